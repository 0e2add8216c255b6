/** Pure formatting helpers for the human-readable output. */
import { lazyBuiltin } from '../runtime.js';

// node:os on first use: not loaded by a render that never shortens a path.
const os = lazyBuiltin<typeof import('node:os')>('node:os');
import { clusters, displayWidth, isPlainAscii, lazily } from './width.js';

/** How long ago an epoch-ms instant was, in one short unit: `now`, `42s`, `3m`, `5h`, `2d`. */
export function ago(epochMs: number | undefined, now = Date.now()): string {
  if (epochMs === undefined || !Number.isFinite(epochMs)) return '';
  const s = Math.floor((now - epochMs) / 1000);
  if (s < 1) return 'now';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** `/home/me/src/app` → `~/src/app`. */
export function shortenHome(path: string | undefined, home = os().homedir()): string {
  if (path === undefined) return '';
  if (home && home !== '/' && (path === home || path.startsWith(home + '/'))) return '~' + path.slice(home.length);
  return path;
}

/**
 * Cuts a string to `max` display columns with an ellipsis; `fromStart` keeps the end (for paths).
 * Never inside a character: an emoji sequence or a letter with its accents goes whole or not at all.
 */
export function clip(s: string, max: number, fromStart = false): string {
  if (displayWidth(s) <= max) return s;
  const parts = clusters(s);
  if (fromStart) parts.reverse();
  let kept = '';
  let width = 1; // the ellipsis
  for (const part of parts) {
    if (width + part.width > max) break;
    kept = fromStart ? part.text + kept : kept + part.text;
    width += part.width;
  }
  return fromStart ? '…' + kept : kept + '…';
}

// Emoji sequences keep their zero-width joiners (👩‍💻 is 👩 U+200D 💻) and the three subdivision
// flags their tag characters; every other joiner, tag or format character is hidden below.
const EMOJI_JOINER = String.raw`(?<=\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u200D(?=\p{Extended_Pictographic})`;
const TAG_FLAG = String.raw`\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}`;
// What a terminal must never be handed from a registry string: C0 and C1 controls (escape sequences),
// format characters (bidi embeddings, overrides and isolates U+202A–E, U+2066–9, which reorder what
// follows on screen; zero-width spaces and joiners; tag characters), line and paragraph separators,
// lone surrogates and the other default-ignorable characters (e.g. the invisible Hangul filler).
// Variation selectors are ignorable too, but they only choose a glyph (text or emoji style).
const VARIATION_SELECTOR = String.raw`[\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}\u180B-\u180D\u180F]`;
const HIDDEN_CHAR = String.raw`[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]`;
const PATTERNS = lazily(() => ({
  hidden: new RegExp(`(${EMOJI_JOINER}|${TAG_FLAG})|(?!${VARIATION_SELECTOR})${HIDDEN_CHAR}`, 'gu'),
  // More combining marks on one letter than any script needs (Unicode's stream-safe limit is 30)
  // only pile up on screen: the rest are dropped.
  markPile: /(\p{M}{30})\p{M}+/gu,
}));

/**
 * A registry string made safe to print: every character in HIDDEN_CHAR becomes a space, so that a name
 * cannot move the cursor, recolour the terminal, reorder the line, or hide text, and one record stays
 * on one line.
 */
export function printable(s: string | undefined): string {
  if (s === undefined) return '';
  if (isPlainAscii(s)) return s;
  const { hidden, markPile } = PATTERNS();
  return s.replace(hidden, (_, kept: string | undefined) => kept ?? ' ').replace(markPile, '$1');
}
