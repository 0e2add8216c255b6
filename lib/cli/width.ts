/**
 * Display columns, as a terminal draws them: a CJK character or an emoji takes two, a combining mark
 * none, an emoji sequence (👩‍💻, 👍🏽, 🇯🇵, 1️⃣) two in all. East Asian Width comes from
 * get-east-asian-width (the Unicode table); the few emoji rules are here, one code point at a time.
 *
 * Not string-width: on Node 20 its first non-ASCII call costs ~70 ms of CPU (building an
 * Intl.Segmenter and compiling a `\p{RGI_Emoji}` pattern), half of a whole `node` start-up; these rules
 * cost nothing to load. test/cli/width.test.ts checks them against string-width (a development
 * dependency only) on random names, and pins the two places where they deliberately differ.
 */
import { eastAsianWidth } from 'get-east-asian-width';

/** One user-perceived character for width purposes: a base and what joins it, and its columns. */
export interface Cluster {
  text: string;
  width: number;
}

/**
 * A value made on first use. Unicode property patterns cost ~0.1 ms each to create, which `count`
 * and `summary` (run by a statusline on every render, on ASCII-only output) never need.
 */
export function lazily<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

const PATTERNS = lazily(() => ({
  pictographic: /\p{Extended_Pictographic}/u,
  modifierBase: /\p{Emoji_Modifier_Base}/u,
  emojiPresentation: /\p{Emoji_Presentation}/u,
  spacingMark: /\p{Mc}/u,
  // Joins the previous character without a column of its own: marks, variation selectors, format and
  // other default-ignorable characters, and the Hangul medial vowels and final consonants.
  zeroWidth: /[\p{Mn}\p{Me}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}\u1160-\u11ff\ud7b0-\ud7ff]/u,
}));

const ZWJ = 0x200d;
const VS15 = 0xfe0e;
const VS16 = 0xfe0f;
const KEYCAP = 0x20e3;
const isRegionalIndicator = (cp: number) => cp >= 0x1f1e6 && cp <= 0x1f1ff;
const isSkinTone = (cp: number) => cp >= 0x1f3fb && cp <= 0x1f3ff;
const isKeycapBase = (cp: number) => (cp >= 0x30 && cp <= 0x39) || cp === 0x23 || cp === 0x2a;

function baseWidth(ch: string, cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || PATTERNS().zeroWidth.test(ch)) return 0;
  return eastAsianWidth(cp);
}

/**
 * The clusters of a string, in order. A cluster is a base character plus every character that joins
 * it: combining marks, variation selectors, an emoji's skin tone, the second regional indicator of a
 * flag, and after a zero-width joiner the next pictograph.
 */
export function clusters(text: string): Cluster[] {
  const { pictographic, modifierBase, emojiPresentation, spacingMark, zeroWidth } = PATTERNS();
  const chars = Array.from(text);
  const out: Cluster[] = [];
  for (let i = 0; i < chars.length; ) {
    const base = chars[i]!;
    const cp = base.codePointAt(0)!;
    let width = baseWidth(base, cp);
    const emoji = pictographic.test(base);
    let end = i + 1;
    let pairedFlag = false;
    while (end < chars.length) {
      const next = chars[end]!;
      const ncp = next.codePointAt(0)!;
      if (ncp === VS16 && (emoji || isKeycapBase(cp))) width = 2;
      else if (ncp === VS15 && emoji && cp <= 0xffff && emojiPresentation.test(base)) width = 1;
      else if (ncp === KEYCAP && isKeycapBase(cp)) width = 2;
      else if (isSkinTone(ncp) && modifierBase.test(base)) width = 2;
      else if (isRegionalIndicator(ncp) && isRegionalIndicator(cp) && !pairedFlag && end === i + 1) {
        pairedFlag = true;
        width = 2;
      } else if (ncp === ZWJ && emoji && end + 1 < chars.length && pictographic.test(chars[end + 1]!)) {
        // An emoji ZWJ sequence (👩‍💻): one glyph, two columns.
        width = 2;
        end += 2;
        continue;
      } else if (spacingMark.test(next)) width += eastAsianWidth(ncp);
      // Anything else visible starts the next cluster; a zero-width character (a lone joiner too) stays.
      else if (!zeroWidth.test(next)) break;
      end++;
    }
    out.push({ text: chars.slice(i, end).join(''), width });
    i = end;
  }
  return out;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** True for text of printable ASCII only: one column per character, nothing to blank or measure. */
export const isPlainAscii = (text: string): boolean => PRINTABLE_ASCII.test(text);

/** Columns the string takes on a terminal (after `printable`: no control or format characters). */
export function displayWidth(text: string): number {
  if (isPlainAscii(text)) return text.length;
  let width = 0;
  for (const c of clusters(text)) width += c.width;
  return width;
}
