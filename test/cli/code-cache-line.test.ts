/**
 * The code cache file's first line (lib/code-cache.ts, firstLine): what readCache reads back, and the
 * data after it starting at a multiple of 8 bytes whatever the identity's and the keys' lengths, since
 * V8 copies cached data that is not pointer-aligned before deserializing it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dataCheck, firstLine, readCache, writeCache } from '../../lib/code-cache.js';

const work = mkdtempSync(join(tmpdir(), 'cps-cache-line-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the first line of a code cache file', () => {
  const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 31) & 0xff));

  it('ends at a multiple of 8 bytes for every length of identity and keys, and says the same as before', () => {
    for (let idLength = 1; idLength <= 24; idLength++) {
      for (const keys of [[], ['read'], ['count', 'statusline:setup'], ['a', 'bb', 'ccc']]) {
        const identity = `${'7'.repeat(idLength)} 1796575188998.3008 1796575188998.3008 2147004`;
        const line = firstLine(identity, keys, data);
        expect(line.length % 8, `${identity} / ${keys.join(' ')}`).toBe(0);
        const text = line.toString('latin1');
        expect(text.endsWith(`\t${dataCheck(data)}\n`)).toBe(true);
        const [id, keyField, check, extra] = text.slice(0, -1).split('\t');
        expect([id, keyField!.split(' ').filter(Boolean), check, extra]).toEqual([identity, keys, dataCheck(data), undefined]);
        // At most 7 spaces of padding, all inside the keys field.
        expect(keyField!.length - keys.join(' ').length).toBeLessThan(8);
      }
    }
  });

  it('is read back by readCache with its keys, and the data handed to V8 starts 8-aligned in the file', () => {
    const xdg = mkdtempSync(join(work, 'xdg-'));
    for (const identity of ['1 2 3 4', '79479 1796575188998.3 1796575188998.3 2147004', '123456789 1.5 1.25 42']) {
      const place = { base: xdg, file: `${xdg}/claude-ps/line-test-${identity.length}.v8cache` };
      writeCache(fs, place, identity, ['read'], data);
      const whole = readFileSync(place.file);
      expect((whole.indexOf(10) + 1) % 8).toBe(0);
      const got = readCache(fs, place.file, identity)!;
      expect(got.keys).toEqual(['read']);
      expect(Buffer.compare(got.data, data)).toBe(0);
      expect(got.data.byteOffset % 8).toBe(0);
      expect(readCache(fs, place.file, `${identity}0`)).toBeUndefined();
    }
  });
});
