/**
 * Start tokens compared by meaning: a token written in local time instead of UTC (an older writer, a
 * wrapper, a port) names the same instant a whole number of quarter hours away, and must never read as
 * another process. Golden cases for real zones, properties over every offset, and a live process of our
 * own whose shifted lstart token is written to a registry, read and pruned through the ps backend.
 */
import fc from 'fast-check';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeState } from '../../lib/backend/types.js';
import { prune, readRecords } from '../../lib/index.js';
import { formatLstart, parseLstart } from '../../lib/proc/lstart.js';
import { compareTokens, isZoneOffset } from '../../lib/proc/token.js';
import { DEAD_VERDICTS } from '../../lib/registry/types.js';
import { decideVerdict } from '../../lib/registry/verdict.js';
import { selectBackendForSuite } from '../helpers/backends.js';
import { endAll, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { tokenOf } from '../helpers/tokens.js';

const UTC = 'Sat Sep  5 05:21:48 2026';
const QUARTER = 900;
const FILETIME_PER_S = 10_000_000n;
const DOTNET_FROM_FILETIME = 504911232000000000n;

describe('lstart tokens a time-zone offset apart', () => {
  it.each([
    ['Sat Sep  5 07:21:48 2026', 'UTC+2 (CEST)'],
    ['Fri Sep  4 22:21:48 2026', 'UTC−7 (PDT), the day before'],
    ['Sat Sep  5 11:06:48 2026', 'UTC+5:45 (Nepal)'],
    ['Sat Sep  5 14:06:48 2026', 'UTC+8:45 (Eucla)'],
    ['Sat Sep  5 19:21:48 2026', 'UTC+14 (Line Islands)'],
    ['Fri Sep  4 17:21:48 2026', 'UTC−12'],
    ['Sat Sep  5 04:51:48 2026', 'UTC−0:30 (no zone, but a whole number of quarter hours)'],
  ])('%j against the UTC token is not comparable (%s): unverified, never recycled', (local) => {
    expect(compareTokens(local, UTC)).toBeUndefined();
    expect(compareTokens(UTC, local)).toBeUndefined();
    expect(decideVerdict(local, 'alive', UTC)).toBe('unverified');
  });

  it.each([
    ['Sat Sep  5 05:21:49 2026', 'one second'],
    ['Sat Sep  5 05:28:48 2026', 'seven minutes: not a quarter hour'],
    ['Sat Sep  5 06:21:49 2026', 'an hour and a second'],
    ['Sat Sep  5 19:36:48 2026', '14 h 15 min: beyond every zone'],
    ['Sun Sep  6 05:21:48 2026', 'a day'],
    ['Fri Sep  5 05:21:48 2025', 'a year'],
  ])('%j against the UTC token is another process (%s)', (other) => {
    expect(compareTokens(other, UTC)).toBe(false);
    expect(decideVerdict(other, 'alive', UTC)).toBe('recycled');
  });

  it('the same instant in other whitespace is the same process', () => {
    expect(compareTokens('Sat Sep 5 05:21:48 2026', UTC)).toBe(true);
  });
});

describe('Windows tokens a time-zone offset apart', () => {
  const FT = 134000000000000000n;
  const twoHours = 2n * 3600n * FILETIME_PER_S;
  it('.NET ticks of local time (PowerShell StartTime.Ticks) against a UTC FILETIME: not comparable', () => {
    expect(compareTokens(String(FT + DOTNET_FROM_FILETIME + twoHours), String(FT))).toBeUndefined();
    expect(compareTokens(String(FT), String(FT + DOTNET_FROM_FILETIME - twoHours))).toBeUndefined();
    expect(compareTokens(String(FT + twoHours), String(FT))).toBeUndefined();
  });
  it('a fraction of a second off an offset is another process (across encodings: a microsecond, their common precision)', () => {
    expect(compareTokens(String(FT + DOTNET_FROM_FILETIME + twoHours + 10n), String(FT))).toBe(false);
    expect(compareTokens(String(FT + twoHours + 1n), String(FT))).toBe(false);
  });
});

describe('isZoneOffset', () => {
  it.each([
    [900, true],
    [-900, true],
    [14 * 3600, true],
    [-14 * 3600, true],
    [5 * 3600 + 45 * 60, true],
    [0, false],
    [1, false],
    [899, false],
    [14 * 3600 + 900, false],
    [-(14 * 3600 + 900), false],
    [450.5, false],
    [Number.NaN, false],
  ])('%d s → %s', (seconds, expected) => {
    expect(isZoneOffset(seconds)).toBe(expected);
  });
});

// Any start between 1970 and 2106, any offset of up to ±14 h in quarter hours (0 included).
const epoch = fc.integer({ min: 15 * 3600, max: 2 ** 32 - 15 * 3600 });
const quarters = fc.integer({ min: -56, max: 56 });
const PROBED: ProbeState[] = ['alive'];

describe('property: no time-zone offset of a live process token is prunable', () => {
  it('lstart: recorded in any zone, probed in UTC', () => {
    fc.assert(
      fc.property(epoch, quarters, (start, q) => {
        const recorded = formatLstart(start + q * QUARTER);
        const current = formatLstart(start);
        for (const state of PROBED) {
          const v = decideVerdict(recorded, state, current);
          expect(DEAD_VERDICTS.has(v)).toBe(false);
          expect(v).toBe(q === 0 ? 'alive' : 'unverified');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('Windows: FILETIME or .NET ticks on either side, recorded in any zone', () => {
    const filetime = fc.bigInt({ min: 125000000000000000n, max: 150000000000000000n }); // 1997 … 2076
    fc.assert(
      fc.property(filetime, quarters, fc.boolean(), fc.boolean(), (ft, q, recordedDotNet, currentDotNet) => {
        const shifted = ft + BigInt(q * QUARTER) * FILETIME_PER_S;
        const recorded = String(recordedDotNet ? shifted + DOTNET_FROM_FILETIME : shifted);
        const current = String(currentDotNet ? ft + DOTNET_FROM_FILETIME : ft);
        const v = decideVerdict(recorded, 'alive', current);
        expect(DEAD_VERDICTS.has(v)).toBe(false);
        expect(v).toBe(q === 0 ? 'alive' : 'unverified');
      }),
      { numRuns: 2000 },
    );
  });

  it('and the rule is narrow: any other difference of lstart instants is recycled', () => {
    const notAZone = fc
      .integer({ min: -(2 ** 31), max: 2 ** 31 })
      .filter((d) => d !== 0 && (Math.abs(d) > 14 * 3600 || d % QUARTER !== 0));
    fc.assert(
      fc.property(fc.integer({ min: 2 ** 31 + 1, max: 2 ** 32 }), notAZone, (start, d) => {
        expect(decideVerdict(formatLstart(start + d), 'alive', formatLstart(start))).toBe('recycled');
      }),
      { numRuns: 2000 },
    );
  });
});

describe('a live process recorded in local time, through the ps backend (real files, real ps)', () => {
  selectBackendForSuite('ps');
  let reg: RegistryFixture;
  let live: Spawned;
  let utcToken: string;

  beforeAll(() => {
    reg = makeRegistry();
    live = spawnSleep();
    utcToken = tokenOf(live.pid, 'ps');
  });
  afterAll(async () => {
    await live.end();
    await endAll();
    reg.remove();
  });

  it('is unverified in every zone, and prune leaves its file', () => {
    const start = parseLstart(utcToken)!;
    fc.assert(
      fc.property(quarters.filter((q) => q !== 0), (q) => {
        const file = reg.write(live.pid, sessionRecord(live.pid, { procStart: formatLstart(start + q * QUARTER) }));
        const records = readRecords(reg.configDir);
        expect(records.map((r) => [r.pid, r.verdict, r.live])).toEqual([[live.pid, 'unverified', true]]);
        expect(prune(records)).toEqual([]);
        expect(existsSync(file)).toBe(true);
      }),
      // Each run spawns ps twice (read, then prune's re-probe): a handful of offsets, chosen at random.
      { numRuns: 8 },
    );
  });

  it('while the same process written an hour and a second off is recycled and pruned', () => {
    const start = parseLstart(utcToken)!;
    const file = reg.write(live.pid, sessionRecord(live.pid, { procStart: formatLstart(start - 3601) }));
    const records = readRecords(reg.configDir);
    expect(records.map((r) => r.verdict)).toEqual(['recycled']);
    expect(prune(records).map((r) => r.pid)).toEqual([live.pid]);
    expect(existsSync(file)).toBe(false);
  });
});
