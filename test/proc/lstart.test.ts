import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { formatLstart, isLstartText, normaliseLstart, parseLstart } from '../../lib/proc/lstart.js';

// Golden values, cross-checked once with GNU `date -u -d @EPOCH +'%a %b %e %H:%M:%S %Y'`.
const GOLDEN: Array<[number, string]> = [
  [1794217730, 'Mon Nov  9 09:48:50 2026'], // docs/macos.md's example: single-digit day, space-padded
  [0, 'Thu Jan  1 00:00:00 1970'],
  [1794268800, 'Tue Nov 10 00:00:00 2026'], // double-digit day
  [1709164800, 'Thu Feb 29 00:00:00 2024'], // leap day
  [1835481599, 'Tue Feb 29 23:59:59 2028'], // leap day, last second
  [1835481600, 'Wed Mar  1 00:00:00 2028'], // the day after it
  [1803816000, 'Sun Feb 28 12:00:00 2027'], // common year: no Feb 29
  [2147483647, 'Tue Jan 19 03:14:07 2038'], // the last 32-bit second
  [2147483648, 'Tue Jan 19 03:14:08 2038'], // and the first after it
  [4107542400, 'Mon Mar  1 00:00:00 2100'], // 2100 is not a leap year
  [4294967296, 'Sun Feb  7 06:28:16 2106'], // past 32-bit unsigned
];

describe('formatLstart', () => {
  it.each(GOLDEN)('formats %i as %j', (epoch, text) => {
    expect(formatLstart(epoch)).toBe(text);
  });

  it('drops fractions of a second, as the kernel start time does', () => {
    expect(formatLstart(1794217730.999)).toBe('Mon Nov  9 09:48:50 2026');
  });

  it('throws a RangeError for a value that is not a time', () => {
    expect(() => formatLstart(Number.NaN)).toThrow(RangeError);
    expect(() => formatLstart(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => formatLstart(1e300)).toThrow(RangeError);
  });

  const date = spawnSync('date', ['-u', '-d', '@0', '+%e'], { encoding: 'utf8' });
  const hasGnuDate = date.status === 0 && date.stdout === ' 1\n';
  it.skipIf(!hasGnuDate)('agrees with GNU date (an independent strftime) on 300 spread epochs', () => {
    // Deterministic spread over 1970..2200, plus every month boundary effect it happens to hit.
    const epochs = Array.from({ length: 300 }, (_, i) => Math.floor((i * 7260000103) % 7258118400));
    const script = epochs.map((e) => `date -u -d @${e} '+%a %b %e %H:%M:%S %Y'`).join('\n');
    const out = spawnSync('sh', ['-c', script], { encoding: 'utf8', env: { LC_ALL: 'C', PATH: process.env.PATH } });
    expect(out.stdout.trimEnd().split('\n')).toEqual(epochs.map(formatLstart));
  });
});

describe('parseLstart', () => {
  it.each(GOLDEN)('reads %i back from %j', (epoch, text) => {
    expect(parseLstart(text)).toBe(epoch);
  });

  it('tolerates collapsed, doubled or trailing whitespace (ps pads its columns)', () => {
    expect(parseLstart('Mon Nov 9 09:48:50 2026')).toBe(1794217730);
    expect(parseLstart('  Mon  Nov   9  09:48:50   2026   \n')).toBe(1794217730);
    expect(parseLstart('Mon\tNov\t 9 09:48:50 2026')).toBe(1794217730);
  });

  it.each([
    ['Tue Feb 29 00:00:00 2027', 'Feb 29 of a common year'],
    ['Mon Feb 30 00:00:00 2026', 'Feb 30'],
    ['Sun Nov 31 00:00:00 2026', 'Nov 31'],
    ['Tue Nov  9 09:48:50 2026', 'a weekday that does not match the date'],
    ['Mon Nov 09 09:48:50 2026', 'a zero-padded day (ps pads with a space)'],
    ['Mon Nov  9 24:00:00 2026', 'hour 24'],
    ['Mon Nov  9 09:60:00 2026', 'minute 60'],
    ['Mon Nov  9 9:48:50 2026', 'an unpadded hour'],
    ['Mon Nov  9 09:48:50 26', 'a two-digit year'],
    ['mon nov  9 09:48:50 2026', 'lower-case names'],
    ['Mo Nov  9 09:48:50 2026', 'a short name'],
    ['Mon Nov  9 09:48:50 2026 UTC', 'a trailing zone'],
    ['Mon, 09 Nov 2026 09:48:50 GMT', 'an HTTP date'],
    ['2026-11-09T09:48:50Z', 'ISO 8601'],
    ['Thu Jan  1 00:00:00 0070', 'a year below 100 (Date.UTC would map it to 1970)'],
    ['', 'empty text'],
  ])('rejects %j (%s)', (text) => {
    expect(parseLstart(text)).toBeUndefined();
    expect(isLstartText(text)).toBe(false);
  });
});

describe('normaliseLstart', () => {
  it('collapses runs of whitespace and trims', () => {
    expect(normaliseLstart('  Mon Nov  9 09:48:50 2026  ')).toBe('Mon Nov 9 09:48:50 2026');
    expect(normaliseLstart('Mon Nov 9 09:48:50 2026')).toBe('Mon Nov 9 09:48:50 2026');
  });
});
