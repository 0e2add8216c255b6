/**
 * Property tests: any content in a candidate file is skipped or read, never thrown; a live process
 * with an absent token is never reported dead; the native and JS readers return the same bytes.
 */
import fc from 'fast-check';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsReadFiles } from '../../lib/backend/files.js';
import { readFiles } from '../../lib/backend/index.js';
import { readRecords, scanRegistry } from '../../lib/index.js';
import { NUMBER_FIELDS, STRING_FIELDS } from '../../lib/registry/read/fields.js';
import { LENIENT_FIELDS, parseClaim, readLenientFields } from '../../lib/registry/read/schema.js';
import { BACKENDS, selectBackendForSuite } from '../helpers/backends.js';
import { endAll, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, type RegistryFixture } from '../helpers/registry-fixture.js';

const REASONS = ['symlink', 'not-regular', 'too-large', 'unparseable', 'not-object', 'pid-mismatch', 'no-session-id', 'unreadable'];
const FAST = { retryDelayMs: 0 };

/** A JSON value that may look like a record: pid and sessionId drawn from good and bad values. */
const recordish = (pid: number) =>
  fc.record(
    {
      pid: fc.oneof(fc.constant(pid), fc.jsonValue()),
      sessionId: fc.oneof(fc.uuid(), fc.jsonValue()),
      procStart: fc.jsonValue(),
      procStartFt: fc.jsonValue(),
      kind: fc.jsonValue(),
      pidDomain: fc.jsonValue(),
      cwd: fc.jsonValue(),
      startedAt: fc.jsonValue(),
      status: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );

describe.each(BACKENDS)('properties (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  let reg: RegistryFixture;
  let live: Spawned;

  beforeAll(() => {
    reg = makeRegistry();
    live = spawnSleep();
  });
  afterAll(async () => {
    await live.end();
    await endAll();
    reg.remove();
  });

  it('any JSON document or byte string in a candidate never makes the reader throw', () => {
    const content = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      recordish(live.pid).map((v) => JSON.stringify(v)),
      fc.uint8Array({ maxLength: 2048 }),
      fc.string(),
    );
    fc.assert(
      fc.property(content, (data) => {
        reg.write(live.pid, data);
        const { records, skipped } = scanRegistry(reg.configDir, FAST);
        expect(records.length + skipped.length).toBe(1);
        for (const s of skipped) expect(REASONS).toContain(s.reason);
        for (const r of records) {
          expect(r.pid).toBe(live.pid);
          expect(typeof r.sessionId === 'string' && r.sessionId !== '').toBe(true);
          expect(Object.isFrozen(r)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a record of a live process with an absent token is never gone or recycled', () => {
    const absentToken = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.stringMatching(/^\s*$/),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 2 }),
    );
    fc.assert(
      fc.property(recordish(live.pid), absentToken, absentToken, fc.uuid(), (doc, ps, psFt, sessionId) => {
        const rec: Record<string, unknown> = { ...doc, pid: live.pid, sessionId, procStart: ps, procStartFt: psFt };
        // A pidDomain that is ours or absent keeps the claim local, so it is really probed.
        delete rec.pidDomain;
        if (typeof rec.cwd === 'string' && /^[A-Za-z]:|^\\\\/.test(rec.cwd)) delete rec.cwd;
        reg.write(live.pid, rec);
        const [r] = readRecords(reg.configDir, FAST);
        expect(r?.token).toBeUndefined();
        expect(r?.verdict).toBe('unverified');
        expect(r?.live).toBe(true);
      }),
      // Under ps every run spawns one `ps` (~40 ms here: 100 runs took 4.1 s); the verdict rule it
      // exercises is the same for every backend, so fewer runs still cover the ps answer path.
      { numRuns: backendName === 'ps' ? 25 : 100 },
    );
  });
});

describe('parseClaim', () => {
  it('never throws on any bytes, and only returns a claim whose pid matches', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 512 }), fc.jsonValue().map((v) => new TextEncoder().encode(JSON.stringify(v)))), (bytes) => {
        const out = parseClaim(bytes, '/x/7.json', 7);
        if (typeof out === 'string') expect(REASONS).toContain(out);
        else expect(out.pid).toBe(7);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the lenient fields', () => {
  const FIELDS = LENIENT_FIELDS;
  const value = fc.oneof(
    fc.string(),
    fc.double(), // includes NaN, ±Infinity and -0
    fc.integer(),
    fc.constant(1e400),
    fc.jsonValue(),
    fc.anything(),
  );
  const isString = new Set<string>(STRING_FIELDS);
  const isNumber = new Set<string>(NUMBER_FIELDS);
  /** The declaration in fields.ts, read literally: a field keeps its value only when of its type. */
  const expected = (k: string, v: unknown): unknown =>
    (isString.has(k) && typeof v === 'string') || (isNumber.has(k) && typeof v === 'number' && Number.isFinite(v)) ? v : undefined;

  it('keeps each field only when it has its declared type, for well-typed and mistyped documents', () => {
    const doc = fc.dictionary(fc.constantFrom(...FIELDS, 'pid', 'sessionId', 'other'), value);
    const typed = fc.record(
      Object.fromEntries(FIELDS.map((k) => [k, isNumber.has(k) ? fc.oneof(fc.double(), fc.integer()) : fc.string()])),
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(doc, typed), (raw) => {
        const read = readLenientFields(raw as Record<string, unknown>) as Record<string, unknown>;
        for (const k of FIELDS) expect(Object.is(read[k], expected(k, (raw as Record<string, unknown>)[k])), k).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('a parsed claim carries each field exactly as the declaration says (kind: interactive when absent)', () => {
    const jsonish = fc.oneof(fc.string(), fc.double({ noNaN: true }), fc.integer(), fc.constant('1e400'), fc.jsonValue());
    const doc = fc.dictionary(fc.constantFrom(...FIELDS, 'other'), jsonish);
    fc.assert(
      fc.property(doc, (fields) => {
        const text = JSON.stringify({ ...fields, pid: 7, sessionId: 's' }).replace('"1e400"', '1e400');
        const raw = JSON.parse(text) as Record<string, unknown>;
        const claim = parseClaim(new TextEncoder().encode(text), '/x/7.json', 7);
        if (typeof claim === 'string') throw new Error(`not a claim: ${claim}`);
        for (const k of FIELDS) {
          const want = k === 'kind' ? (expected(k, raw[k]) ?? 'interactive') : expected(k, raw[k]);
          expect(Object.is((claim as unknown as Record<string, unknown>)[k], want), k).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a mistyped field as absent and keeps the rest', () => {
    const raw = { cwd: 5, startedAt: '1', name: 'x', updatedAt: JSON.parse('1e400'), status: null, statusUpdatedAt: 7 };
    expect({ ...readLenientFields(raw) }).toEqual({ name: 'x', statusUpdatedAt: 7 });
  });
});

describe('native and JS batch reads agree', () => {
  selectBackendForSuite('native');
  let reg: RegistryFixture;
  beforeAll(() => {
    reg = makeRegistry();
  });
  afterAll(() => {
    reg.remove();
  });

  it('same status, bytes, inode, size and mtime for random files, links and absences', () => {
    const file = fc.oneof(
      fc.uint8Array({ maxLength: 4096 }).map((b) => ({ kind: 'file' as const, b })),
      fc.constant({ kind: 'link' as const, b: new Uint8Array() }),
      fc.constant({ kind: 'none' as const, b: new Uint8Array() }),
    );
    fc.assert(
      fc.property(fc.array(file, { maxLength: 12 }), fc.integer({ min: 0, max: 5000 }), (files, cap) => {
        const names = files.map((_, i) => `${i + 1}.json`);
        files.forEach((f, i) => {
          const p = reg.path(names[i]!);
          rmSync(p, { force: true });
          if (f.kind === 'file') writeFileSync(p, f.b);
          if (f.kind === 'link') symlinkSync('/etc/hostname', p);
        });
        const native = readFiles(reg.sessions, names, cap);
        const js = jsReadFiles(reg.sessions, names, cap);
        expect(native.status).toEqual(js.status);
        expect(native.meta).toEqual(js.meta);
        expect(Buffer.compare(native.bytes, js.bytes)).toBe(0);
      }),
      { numRuns: 100 },
    );
  });
});
