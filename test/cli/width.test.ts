/**
 * Terminal output in display columns (lib/cli/width.ts) and what may reach the terminal at all
 * (`printable`, lib/cli/format.ts): wide and zero-width characters, emoji sequences, and the control,
 * format and bidi characters a hostile registry string could carry.
 */
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { clip, printable } from '../../lib/cli/format.js';
import { makePaint, table } from '../../lib/cli/output.js';
import { clusters, displayWidth } from '../../lib/cli/width.js';

// Building blocks of real names: ASCII, accents (precomposed and combining), CJK, kana (full and
// half width), Hangul (syllables and conjoining jamo), Cyrillic, Devanagari with spacing marks, and
// emoji: presentation, text style + VS16, skin tones, ZWJ sequences, flags, keycaps, a tag flag.
// Marks come with their letter: a mark after an emoji is no name's, and terminals disagree on it.
const PIECES = [
  'a', 'Z', '7', ' ', '-', '_', '.', '/', 'é', 'e\u0301', 'ñ', 'ß', 'ø', 'Ж', 'я', 'Ω',
  '日', '本', '語', '中', 'か', 'カ', 'ｶ', 'ﾊﾟ', '한', '국', '\u1100\u1161\u11a8', 'Ａ', '！',
  'न', 'कि', 'का',
  '👍', '👍🏽', '🙂', '🚀', '❤️', '☺️', '✔', '👩‍💻', '🧑🏻‍🤝‍🧑🏼', '👨‍👩‍👧', '🏳️‍🌈', '🇯🇵', '🇫🇷', '1️⃣', '#️⃣',
  '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}',
];
const name = fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((parts) => parts.join(''));

describe('display width', () => {
  it('agrees with string-width on names made of every kind of character', () => {
    fc.assert(
      fc.property(name, (s) => {
        expect(displayWidth(s)).toBe(stringWidth(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts wide, zero-width and joined characters as a terminal draws them', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('👩‍💻')).toBe(2);
    expect(displayWidth('👍🏽')).toBe(2);
    expect(displayWidth('🇯🇵')).toBe(2);
    expect(displayWidth('1️⃣')).toBe(2);
    expect(displayWidth('❤')).toBe(1);
    expect(displayWidth('❤️')).toBe(2);
    expect(displayWidth('\u1100\u1161\u11a8')).toBe(2);
  });

  // The two places where string-width 8 (the last release for Node 20) and these rules differ, both as
  // wcwidth-based terminals (xterm, VTE) draw them, and as string-width 9 now measures them too.
  it('gives each consonant of an Indic conjunct its column, and a wide emoji with VS15 one column', () => {
    expect(displayWidth('नमस्ते')).toBe(4);
    expect(stringWidth('नमस्ते')).toBe(3);
    expect(displayWidth('⌚\uFE0E')).toBe(1);
    expect(stringWidth('⌚\uFE0E')).toBe(2);
  });

  it('splits into clusters that put every joined character with its base', () => {
    expect(clusters('a👩‍💻e\u0301🇯🇵x').map((c) => [c.text, c.width])).toEqual([
      ['a', 1], ['👩‍💻', 2], ['e\u0301', 1], ['🇯🇵', 2], ['x', 1],
    ]);
    // Three regional indicators: one flag and a lone letter; a stray skin tone is a swatch of its own.
    expect(clusters('🇯🇵🇫').map((c) => c.width)).toEqual([2, 1]);
    expect(clusters('a🏽').map((c) => c.width)).toEqual([1, 2]);
  });

  it('clips to a number of columns, never inside a character', () => {
    expect(clip('日本語のセッション', 7)).toBe('日本語…');
    expect(displayWidth(clip('日本語のセッション', 7))).toBe(7);
    expect(clip('ab👩‍💻cd', 4)).toBe('ab…');
    expect(clip('ab👩‍💻cd', 5)).toBe('ab👩‍💻…');
    // A wide character that would pass the limit is left out, even if one column stays empty.
    expect(clip('/home/me/プロジェクト', 8, true)).toBe('…ェクト');
    expect(clip('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301…');
    fc.assert(
      fc.property(name, fc.integer({ min: 1, max: 20 }), (s, max) => {
        const cut = clip(s, max);
        expect(displayWidth(cut)).toBeLessThanOrEqual(Math.max(max, 1));
        if (displayWidth(s) <= max) expect(cut).toBe(s);
        else expect(s.startsWith(cut.slice(0, -1))).toBe(true);
      }),
    );
  });

  it('aligns table columns in display columns, whatever the names hold', () => {
    const paint = makePaint(false);
    const text = table(['PID', 'NAME', 'VERDICT'], [['1', '日本語の名前', 'alive'], ['22', '👩‍💻 dev', 'gone'], ['333', 'plain', 'alive']], paint);
    const lines = text.trimEnd().split('\n');
    const verdictColumn = lines.map((l) => displayWidth(l.slice(0, l.search(/(VERDICT|alive|gone)$/))));
    expect(new Set(verdictColumn).size).toBe(1);
    expect(lines[1]).toBe('1    日本語の名前  alive');
  });
});

describe('printable: what never reaches the terminal', () => {
  const HOSTILE = [
    '\x1b[31m', '\x07', '\x9b', '\n', '\r', '\t', '\x7f',
    '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c',
    '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u180e',
    '\u2028', '\u2029',
    '\u{E0041}', '\u{E007F}',
    '\u3164', '\u115f', '\uffa0',
    '\ud800', '\udfff',
  ];
  const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u3164\u115f\uffa0]/u;

  it('blanks controls, bidi overrides and isolates, zero-width and separator characters', () => {
    for (const bad of HOSTILE) {
      const out = printable(`a${bad}b`);
      expect(out, JSON.stringify(bad)).not.toMatch(FORBIDDEN);
      expect(out.startsWith('a') && out.endsWith('b')).toBe(true);
    }
    expect(printable('evil\u202Egnp.exe')).toBe('evil gnp.exe');
    expect(printable('line\u2028two')).toBe('line two');
  });

  it('keeps what emoji sequences are made of, and only that', () => {
    for (const emoji of ['👩‍💻', '🧑🏻‍🤝‍🧑🏼', '🏳️‍🌈', '❤️', '1️⃣', '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}', '葛\u{E0100}']) {
      expect(printable(emoji)).toBe(emoji);
    }
    // A joiner between letters, or a tag run that is not one of the three subdivision flags, is hidden.
    expect(printable('a\u200db')).toBe('a b');
    expect(printable('🏴\u{E0068}\u{E0069}\u{E007F}')).not.toMatch(/[\u{E0000}-\u{E007F}]/u);
  });

  it('never lets a random string through with a forbidden character, and changes nothing twice', () => {
    const nasty = fc.array(fc.oneof(fc.constantFrom(...HOSTILE, ...PIECES), fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 16 });
    fc.assert(
      fc.property(nasty, (parts) => {
        const out = printable(parts.join(''));
        // Joiners are allowed only between two pictographs; tag characters only in a whole tag flag.
        const stripped = out
          .replace(/(?<=\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u200D(?=\p{Extended_Pictographic})/gu, '')
          .replace(/\u{1F3F4}[\u{E0061}-\u{E007A}]+\u{E007F}/gu, '');
        expect(stripped).not.toMatch(FORBIDDEN);
        expect(printable(out)).toBe(out);
      }),
      { numRuns: 3000 },
    );
  });

  it('cuts a pile of combining marks to 30 and stays linear on a huge string', () => {
    expect(printable('a' + '\u0301'.repeat(500) + 'b')).toBe('a' + '\u0301'.repeat(30) + 'b');
    const huge = '日\u202e👩‍💻\u0301'.repeat(50_000);
    const out = printable(huge);
    expect(out).not.toContain('\u202e');
    expect(displayWidth(out)).toBe(50_000 * 5);
  });
});
