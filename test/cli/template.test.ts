import { describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/cli/args.js';
import { clip, shortenHome, ago, printable } from '../../lib/cli/format.js';
import { COUNT_KEYS, defaultSummary, parseTemplate, renderTemplate, type Counts } from '../../lib/cli/template.js';

const counts = (over: Partial<Counts>): Counts => ({
  ...(Object.fromEntries(COUNT_KEYS.map((k) => [k, 0])) as Counts),
  ...over,
});

describe('summary templates', () => {
  const c = counts({ live: 3, interactive: 2, background: 1, busy: 2, waiting: 1 });
  const render = (t: string, k = c) => renderTemplate(parseTemplate(t), k);

  it('prints the default line from non-zero counts in a fixed order', () => {
    expect(defaultSummary(c)).toBe('2 busy · 1 waiting');
    expect(defaultSummary(counts({ idle: 1, other: 2, shell: 1 }))).toBe('1 shell · 1 idle · 2 other');
    expect(defaultSummary(counts({}))).toBe('no sessions');
  });

  it('substitutes counts, conditional sections, the default line and escaped braces', () => {
    expect(render('{live} live, {dead} dead')).toBe('3 live, 0 dead');
    expect(render('{busy:B#}{waiting: W#}{idle: I#}')).toBe('B2 W1');
    expect(render('[{summary}]')).toBe('[2 busy · 1 waiting]');
    expect(render('{{{live}}}')).toBe('{3}');
    expect(render('{ live }')).toBe('3');
    expect(render('{busy:# busy}', counts({}))).toBe('');
  });

  it('rejects unknown keys and unbalanced braces as usage errors', () => {
    expect(() => parseTemplate('{bussy}')).toThrow(UsageError);
    expect(() => parseTemplate('{bussy}')).toThrow(/unknown key \{bussy\}/);
    expect(() => parseTemplate('{live')).toThrow(/unclosed/);
    expect(() => parseTemplate('live}')).toThrow(/unmatched/);
  });
});

describe('formatting helpers', () => {
  it('shortens the home folder only at a path boundary', () => {
    expect(shortenHome('/home/me/src', '/home/me')).toBe('~/src');
    expect(shortenHome('/home/me', '/home/me')).toBe('~');
    expect(shortenHome('/home/meadow', '/home/me')).toBe('/home/meadow');
    expect(shortenHome('/x', '/')).toBe('/x');
  });

  it('says how long ago in one unit', () => {
    const now = 1_000_000_000;
    expect(ago(undefined, now)).toBe('');
    expect(ago(now + 5000, now)).toBe('now');
    expect(ago(now - 42_000, now)).toBe('42s');
    expect(ago(now - 180_000, now)).toBe('3m');
    expect(ago(now - 7_200_000, now)).toBe('2h');
    expect(ago(now - 2 * 86_400_000, now)).toBe('2d');
  });

  it('clips from either end and blanks control characters', () => {
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip('/a/b/c/d', 5, true)).toBe('…/c/d');
    expect(printable('a\x1b[31mb\nc')).toBe('a [31mb c');
  });
});
