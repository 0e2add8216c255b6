/**
 * `watch --exec`: every variable a run gets is one line of sanitised, bounded text (issue 20, point
 * 6). CLAUDE_PS_FIELDS names the document's own keys, so a record can put escapes, newlines or a NUL
 * (which made every spawn fail) there, or 150 KB of key names (spawn E2BIG: the command never ran).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupsAfterEach, textOf, until } from './helpers.js';
import { builtCli, removeCopy, startCli } from '../cli/run-cli.js';
import { ExecRunner, MAX_FIELDS, MAX_VALUE, eventEnv, fieldList } from '../../lib/cli/statusline/exec.js';
import type { WatchEvent } from '../../lib/index.js';
import type { SessionRecord } from '../../lib/registry/types.js';
import { endAll, procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord } from '../helpers/registry-fixture.js';

let work: string;
const cleanups = cleanupsAfterEach();
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cps-exec-env-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

// What a terminal or a shell would act on: C0 (NUL, BEL, ESC, newline), C1 (CSI), bidi overrides and isolates.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2028\u2029]/;
const HOSTILE = ['status', 'x\x1b]0;pwned\x07\x1b[2J', 'a\nb', 'nul\0key', '\u202egnp.exe', '\x9b31m', 'a,b c', ''];

function changed(fields: string[], extra: Partial<SessionRecord> = {}): WatchEvent {
  const record = { pid: 7, sessionId: 's', status: 'busy', verdict: 'alive', kind: 'interactive', path: '/x/7.json', raw: {}, ...extra } as SessionRecord;
  return { type: 'changed', record, previous: { ...record, status: 'idle' }, fields };
}

/** Runs one event through a real spawn; resolves with the variables the command saw (`env -0`). */
async function seenBy(event: WatchEvent): Promise<{ env: Map<string, string>; lines: string[] }> {
  const out = join(work, `env-${Date.now()}-${Math.random()}`);
  const lines: string[] = [];
  const runner = new ExecRunner({ command: { shell: `env -0 > '${out}.tmp' && mv '${out}.tmp' '${out}'` }, report: (l) => lines.push(l) });
  cleanups.push(() => runner.close());
  runner.push(event);
  await until(() => textOf(out) !== '' || lines.length > 0, 'the run');
  const env = new Map<string, string>();
  for (const entry of textOf(out).split('\0')) {
    const eq = entry.indexOf('=');
    if (entry.startsWith('CLAUDE_PS_')) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return { env, lines };
}

describe('the variables of an --exec run', () => {
  it('turn hostile field names into plain words, one per changed field', () => {
    expect(fieldList(HOSTILE)).toBe('status,x_]0;pwned_[2J,a_b,nul_key,gnp.exe,31m,a_b_c');
    expect(fieldList(HOSTILE)).not.toMatch(UNSAFE);
  });

  it('bound the field list however many and however long the names are, and say it was cut', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `key${String(i).padStart(10, '0')}`); // 150 KB
    const list = fieldList(many);
    expect(list.length).toBeLessThanOrEqual(MAX_FIELDS);
    expect(list.endsWith(',…')).toBe(true);
    expect(list.startsWith('key0000000000,key0000000001,')).toBe(true);
    const long = fieldList(['a'.repeat(1_000_000), 'b']);
    expect(long).toMatch(/^a{63}…,b$/);
  });

  it('bound every value, in UTF-16 units as well as in columns (combining marks take none)', () => {
    const piled = 'e' + '\u0301'.repeat(29); // 30 units, one column
    const env = eventEnv(changed(['status'], { name: piled.repeat(50_000), cwd: '/' + 'd'.repeat(2_000_000), sessionId: '\0'.repeat(100) }));
    for (const [key, value] of Object.entries(env)) {
      expect(value.length, key).toBeLessThanOrEqual(4 * MAX_VALUE);
      expect(value, key).not.toMatch(UNSAFE);
    }
    expect(env.CLAUDE_PS_SESSION_ID).toBe('');
  });

  it('reach a real command: a NUL, escapes and 150 KB of key names neither stop the run nor get through', async () => {
    const fields = [...HOSTILE, ...Array.from({ length: 10_000 }, (_, i) => `key${String(i).padStart(10, '0')}`)];
    const { env, lines } = await seenBy(changed(fields, { name: 'api\0\x1b[31m', waitingFor: 'a\u2028b' }));
    expect(lines).toEqual([]);
    expect(env.get('CLAUDE_PS_FIELDS')).toBe(fieldList(fields));
    expect(env.get('CLAUDE_PS_NAME')).toBe('api [31m');
    expect(env.get('CLAUDE_PS_WAITING_FOR')).toBe('ab'); // a line separator is dropped, as in a statusline
    for (const [key, value] of env) expect(value, key).not.toMatch(UNSAFE);
  });
});

describe('watch --exec with a record whose keys are hostile', () => {
  let cli: string;
  let sleep: Spawned;
  beforeAll(async () => {
    cli = await builtCli();
    sleep = spawnSleep();
  });
  afterAll(async () => {
    await sleep?.end();
    await endAll();
    if (cli) removeCopy(cli);
  });

  it('runs the command with the changed keys made plain', async () => {
    const reg = makeRegistry('cps-exec-keys-');
    cleanups.push(() => reg.remove());
    const log = join(work, 'keys.log');
    const base = sessionRecord(sleep.pid, { sessionId: 'sid', procStart: procStartTicks(sleep.pid), status: 'idle' });
    reg.write(sleep.pid, base);
    const child = startCli(cli, ['watch', '--interval', '100', '--config-dir', reg.configDir, '--exec', `printf '%s|%s\\n' "$CLAUDE_PS_EVENT" "$CLAUDE_PS_FIELDS" >> '${log}'`, '--exec-shell']);
    cleanups.push(async () => {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
      }
    });
    let stderr = '';
    child.stdout!.resume();
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await until(() => textOf(log) !== '', 'the added run');
    // Keys that sort first (the field list is sorted), then 140 KB of names: more than one variable may hold.
    const hostile: Record<string, unknown> = { ...base, status: 'busy', 'Ax\x1b]0;pwned\x07\x1b[2J': 1, 'Anul\0key': 2, 'A\nb': 3 };
    for (let i = 0; i < 10_000; i++) hostile[`key${String(i).padStart(10, '0')}`] = i;
    reg.write(sleep.pid, hostile);
    await until(() => textOf(log).split('\n').length === 3, 'the changed run');
    const [, changedLine] = textOf(log).trim().split('\n');
    expect(changedLine).toMatch(/^changed\|A_b,Anul_key,Ax_]0;pwned_\[2J,key0000000000,key0000000001,.*,…$/);
    expect(changedLine!.length).toBeLessThanOrEqual(MAX_FIELDS + 10);
    expect(changedLine).not.toMatch(UNSAFE);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    expect(stderr).toBe('');
  });
});
