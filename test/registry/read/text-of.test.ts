/**
 * textOf (lib/registry/read/scan.ts): the batch reader's texts through Buffer's native UTF-8 decoder,
 * called directly, must be exactly what `toString('utf8', start, end)` gives, for any bytes and any
 * range the batch's meta can hold: invalid and truncated sequences, surrogates spelled in UTF-8, a BOM,
 * NUL and bidi characters, and the empty range.
 */
import { describe, expect, it } from 'vitest';
import { textOf } from '../../../lib/registry/read/scan.js';

/** A small deterministic generator (xorshift32), so a failure names its seed. */
function generator(seed: number): () => number {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

const PIECES = [
  [0x7b, 0x22, 0x70, 0x69, 0x64, 0x22, 0x3a], // {"pid":
  [0xc3, 0xbc], // ü
  [0xe2, 0x80, 0xae], // U+202E, right-to-left override
  [0xf0, 0x9f, 0x98, 0x80], // an astral character
  [0xed, 0xa0, 0x80], // a lone surrogate spelled in UTF-8 (invalid)
  [0xc0, 0xaf], // an overlong slash (invalid)
  [0xe2, 0x80], // a sequence cut short
  [0xff],
  [0x80],
  [0xef, 0xbb, 0xbf], // a BOM
  [0x00],
  [0x5c, 0x22], // \"
];

describe('textOf', () => {
  it('gives what toString("utf8", start, end) gives, for hostile bytes and every kind of range', () => {
    const random = generator(0x5eed);
    for (let round = 0; round < 400; round++) {
      const parts: number[] = [];
      const pieces = Math.floor(random() * 40);
      for (let p = 0; p < pieces; p++) {
        if (random() < 0.3) parts.push(Math.floor(random() * 256));
        else parts.push(...PIECES[Math.floor(random() * PIECES.length)]!);
      }
      const bytes = Buffer.from(parts);
      const start = Math.floor(random() * (bytes.length + 1));
      const end = start + Math.floor(random() * (bytes.length - start + 1));
      expect(textOf(bytes, start, end), `round ${round}`).toBe(bytes.toString('utf8', start, end));
    }
  });

  it('reads a range inside a larger buffer, as a borrowed batch hands out its whole scratch buffer', () => {
    const scratch = Buffer.alloc(4096, 0x78);
    const record = Buffer.from('{"pid":42,"sessionId":"s-ü"}');
    record.copy(scratch, 1000);
    expect(textOf(scratch, 1000, 1000 + record.length)).toBe('{"pid":42,"sessionId":"s-ü"}');
    expect(textOf(scratch, 1000, 1000)).toBe('');
  });
});
