import { describe, expect, it } from 'vitest';
import { classifyToken, compareTokens, recordedToken, type TokenForm } from '../../lib/proc/token.js';

describe('recordedToken', () => {
  it('trims a non-blank string', () => {
    expect(recordedToken(' 654274470\n')).toBe('654274470');
    expect(recordedToken('Sat Sep  5 05:21:48 2026')).toBe('Sat Sep  5 05:21:48 2026');
  });

  it.each([[undefined], [null], [''], ['   '], ['\n\t'], [654274470], [true], [{}], [['1']]])(
    'treats %j as absent, never as a mismatch',
    (value) => {
      expect(recordedToken(value)).toBeUndefined();
    },
  );
});

describe('classifyToken', () => {
  it.each<[string, TokenForm, string]>([
    ['654274470', 'ticks', 'Linux clock ticks since boot'],
    ['0', 'ticks', 'tick 0'],
    ['9999999999999999', 'ticks', 'just under the Windows threshold'],
    [' 654274470 ', 'ticks', 'padded'],
    ['Sat Sep  5 05:21:48 2026', 'lstart', 'macOS lstart, single-digit day'],
    ['Sat Sep 5 05:21:48 2026', 'lstart', 'lstart with whitespace collapsed'],
    ['Mon Nov 16 09:48:50 2026', 'lstart', 'lstart, double-digit day'],
    ['134000000000000000', 'windows', 'a FILETIME (~1.34e17)'],
    ['638700000000000000', 'windows', '.NET ticks (~6.4e17)'],
    ['10000000000000000', 'windows', 'the Windows threshold'],
    ['3155378975999999999', 'windows', ".NET's largest tick (year 9999): 19 digits"],
    ['31553789759999999990', 'unknown', '20 digits: no Windows encoding is that long'],
    ['', 'unknown', 'empty'],
    ['   ', 'unknown', 'blank'],
    ['0654274470', 'unknown', 'leading zero'],
    ['-5', 'unknown', 'negative'],
    ['1.34e17', 'unknown', 'exponent notation'],
    ['654274470.5', 'unknown', 'a fraction'],
    ['Sat Sep 05 05:21:48 2026', 'unknown', 'zero-padded day: not what ps prints'],
    ['Fri Sep  5 05:21:48 2026', 'unknown', 'weekday contradicts the date'],
    ['Sat Sep  5 05:21:48 2026 UTC', 'unknown', 'lstart with a zone'],
    ['2026-09-05T05:21:48Z', 'unknown', 'ISO 8601'],
    ['deadbeef', 'unknown', 'hex'],
  ])('%j is %s (%s)', (token, form) => {
    expect(classifyToken(token)).toBe(form);
  });
});

describe('compareTokens', () => {
  it('compares ticks exactly', () => {
    expect(compareTokens('654274470', '654274470')).toBe(true);
    expect(compareTokens('654274470', '654274471')).toBe(false);
    expect(compareTokens(' 654274470', '654274470 ')).toBe(true);
  });

  it('compares lstart text after collapsing whitespace', () => {
    expect(compareTokens('Sat Sep  5 05:21:48 2026', 'Sat Sep 5 05:21:48 2026')).toBe(true);
    expect(compareTokens('Sat Sep  5 05:21:48 2026  ', '  Sat  Sep  5  05:21:48  2026')).toBe(true);
    expect(compareTokens('Sat Sep  5 05:21:48 2026', 'Sat Sep  5 05:21:49 2026')).toBe(false);
    expect(compareTokens('Sat Sep  5 05:21:48 2026', 'Sun Sep  6 05:21:48 2026')).toBe(false);
  });

  it('compares Windows tokens exactly within one encoding', () => {
    expect(compareTokens('134000000000000000', '134000000000000000')).toBe(true);
    expect(compareTokens('134000000000000000', '134000000000000001')).toBe(false);
    expect(compareTokens('638700000000000000', '638700000000000001')).toBe(false);
  });

  it('compares a FILETIME and .NET ticks as instants (exactly: both are past 2^53)', () => {
    // .NET ticks = FILETIME + 504911232000000000 (the ticks from year 1 to 1601).
    expect(compareTokens('134000000000000000', '638911232000000000')).toBe(true);
    expect(compareTokens('638911232000000000', '134000000000000000')).toBe(true);
    expect(compareTokens('134000000000000000', '638911232010000000')).toBe(false); // one second apart
  });

  it('a FILETIME against .NET ticks compares to the microsecond (.NET ticks come from a CIM datetime, µs precision)', () => {
    // PowerShell's Win32_Process.CreationDate.Ticks: the FILETIME cut to the microsecond.
    expect(compareTokens('134000000000000007', '638911232000000000')).toBe(true);
    expect(compareTokens('638911232000000000', '134000000000000009')).toBe(true);
    expect(compareTokens('134000000000000010', '638911232000000000')).toBe(false); // one microsecond apart
    expect(compareTokens('638911232000000010', '134000000000000009')).toBe(false);
    // Within one encoding, every 100 ns tick counts.
    expect(compareTokens('134000000000000001', '134000000000000000')).toBe(false);
    expect(compareTokens('638911232000000001', '638911232000000000')).toBe(false);
  });

  it.each([
    ['654274470', 'Sat Sep  5 05:21:48 2026', 'ticks against lstart'],
    ['Sat Sep  5 05:21:48 2026', '654274470', 'lstart against ticks'],
    ['134000000000000000', '654274470', 'FILETIME against ticks'],
    ['654274470', '638700000000000000', 'ticks against .NET ticks'],
    ['Sat Sep  5 05:21:48 2026', 'Sat Sep  5 05:21:48 2026 UTC', 'lstart against unknown text'],
    ['Sat Sep 05 05:21:48 2026', 'Sat Sep  5 05:21:48 2026', 'a malformed lstart against a real one'],
    ['deadbeef', 'deadbeef', 'two unknown tokens, even when equal'],
    ['', '', 'two blanks'],
  ])('%j vs %j is not comparable (%s): never a mismatch', (recorded, current) => {
    expect(compareTokens(recorded, current)).toBeUndefined();
  });
});

describe('wrong argument types are programmer errors', () => {
  it.each([[undefined], [null], [654274470], [{}]])('%j as a token is a TypeError', (value) => {
    expect(() => compareTokens(value as unknown as string, '654274470')).toThrow(TypeError);
    expect(() => compareTokens('654274470', value as unknown as string)).toThrow(TypeError);
    expect(() => classifyToken(value as unknown as string)).toThrow(/must be a string/);
  });

  it('a hostile pair of huge decimal tokens is unknown and not comparable (never handed to BigInt)', () => {
    const huge = '9'.repeat(262_000);
    expect(classifyToken(huge)).toBe('unknown');
    expect(compareTokens(huge, huge)).toBeUndefined();
  });
});
