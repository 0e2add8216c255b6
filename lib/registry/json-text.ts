/**
 * The one JSON escaping rule for every document this package prints or writes (the CLI's `--json`
 * output, watch's NDJSON, snapshot files): JSON.stringify, then every character it leaves as it is
 * but a terminal acts on or hides is written as a `\uXXXX` escape, which is the same data for any
 * JSON reader. Registry strings are another program's text, and `cat snapshot.json` must not let a
 * session name move the cursor or reorder the line.
 */

// DEL and the C1 controls (U+009B is a CSI on many terminals), format characters (bidi embeddings,
// overrides and isolates, zero-width spaces and joiners, tag characters), line and paragraph
// separators, and the other default-ignorable (invisible) characters. C0 controls and lone
// surrogates JSON.stringify escapes itself. These can only stand inside a JSON string.
let unsafe: RegExp | undefined;

const escapeUnits = (c: string) =>
  Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

// Printable ASCII only (the common case: nothing to look at; JSON.stringify has escaped C0 already).
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** JSON.stringify under the package's escaping rule. */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined || PLAIN_ASCII.test(text)) return text;
  // Compiled on first need: a Unicode property pattern costs start-up that ASCII output never pays.
  unsafe ??= /[\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;
  return text.replace(unsafe, escapeUnits);
}
