/** The stat-line parser on lines the kernel can produce and on malformed ones. */
import { describe, expect, it } from 'vitest';
import { isExitedState } from '../../lib/proc/stat.js';
import { parseStatLine } from '../helpers/stat-line.js';

const tail = (state: string, start: string) =>
  `${state} 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 ${start} 4833280 453 18446744073709551615 0 0`;

describe('parseStatLine', () => {
  it('reads state and field 22 after the last ")"', () => {
    expect(parseStatLine(`42 (bash) ${tail('S', '654274470')}`)).toEqual({ state: 'S', startTicks: 654274470 });
  });

  it('is not fooled by ")", spaces, digits and newlines in the command name', () => {
    expect(parseStatLine(`42 (a) R 1 2 ) 3\n4 ) ${tail('Z', '99')}`)).toEqual({ state: 'Z', startTicks: 99 });
  });

  it('rejects lines without ")", or too short, or with a non-numeric start time', () => {
    expect(parseStatLine('42 bash S 1 2 3')).toBeUndefined();
    expect(parseStatLine('42 (bash) S 1 2 3')).toBeUndefined();
    expect(parseStatLine(`42 (bash) ${tail('S', 'x1')}`)).toBeUndefined();
    expect(parseStatLine('')).toBeUndefined();
  });

  it('copes with runs of spaces between fields', () => {
    expect(parseStatLine(`42 (b)  ${tail('S', '7').replace(/ /g, '  ')}`)).toEqual({ state: 'S', startTicks: 7 });
  });

  it('knows which states mean exited', () => {
    expect(['Z', 'X', 'x'].map((s) => isExitedState(s.charCodeAt(0)))).toEqual([true, true, true]);
    expect(['R', 'S', 'D', 'T', 't', 'I'].some((s) => isExitedState(s.charCodeAt(0)))).toBe(false);
  });
});
