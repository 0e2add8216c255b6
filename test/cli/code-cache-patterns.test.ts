/**
 * lib/code-cache.ts reads no regular expression on a cold run (each would be compiled on every run):
 * its spelled-out checks must say what the patterns they replace said, and its sampled data check
 * must still find a damaged block or a cut whatever the data's alignment.
 */
import * as fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cachePlace, dataCheck, flagsOf, readCache, writeCache } from '../../lib/code-cache.js';

const work = mkdtempSync(join(tmpdir(), 'cps-cache-patterns-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** flagsOf as it was written with patterns (the reference the loop must equal). */
function flagsByPattern(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (/^--(eval|print)=/.test(arg)) continue;
    if (/^-[pe]+$/.test(arg) || arg === '--eval' || arg === '--print') {
      if (arg.includes('e') || arg === '--eval' || execArgv[i + 1]?.startsWith('-') !== true) i++;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}

// Words near the ones that matter: -p, -e and their mixes, --eval/--print with and without a value.
const argWord = fc.oneof(
  fc.constantFrom('-e', '-p', '-pe', '-ep', '-pp', '-ee', '-', '-x', '-px', '-pex', '--eval', '--print', '--eval=1', '--print=x', '--evalx', '--eval-', '---eval=1'),
  fc.constantFrom('--no-warnings', '--enable-source-maps', '-r', './x.cjs', 'console.log(1)', '--', 'e', 'p'),
  fc.array(fc.constantFrom('-', 'p', 'e', '=', 'x', 'v', 'a', 'l', 'r', 'i', 'n', 't'), { maxLength: 9 }).map((c) => c.join('')),
);

describe('lib/code-cache.ts without patterns', () => {
  it('flagsOf keeps and drops what the patterns kept and dropped', () => {
    fc.assert(
      fc.property(fc.array(argWord, { maxLength: 8 }), (argv) => {
        expect(flagsOf(argv)).toEqual(flagsByPattern(argv));
      }),
      { numRuns: 3000 },
    );
    expect(flagsOf(['--no-warnings', '-pe', 'code', '--eval=x', '-p', '-e', 'more', '--abort-on-uncaught-exception'])).toEqual(['--no-warnings', '--abort-on-uncaught-exception']);
  });

  it('cachePlace drops the slashes a cache folder ends with, as the pattern did', () => {
    const saved = process.env.XDG_CACHE_HOME;
    // The version the bundle sets at build time (scripts/bundle.mjs): part of the file name only.
    (globalThis as Record<string, unknown>).__CLAUDE_PS_VERSION__ = '0.0.0-test';
    try {
      for (const given of ['/tmp/c', '/tmp/c/', '/tmp/c///', '/', '//', '/a//b//']) {
        process.env.XDG_CACHE_HOME = given;
        const base = given.replace(/\/+$/, '');
        // "/" alone ends empty, which is no place (and so undefined), as before.
        expect(cachePlace('x', '/p/x.cjs')?.base).toBe(base === '' ? undefined : base);
      }
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
      delete (globalThis as Record<string, unknown>).__CLAUDE_PS_VERSION__;
    }
  });

  it('dataCheck is the same for the same bytes at any alignment, and differs for a changed word, a cut or a zeroed block', () => {
    const data = Buffer.from(Array.from({ length: 40_003 }, (_, i) => (i * 131 + (i >> 7)) & 0xff));
    const check = dataCheck(data);
    for (let shift = 1; shift < 8; shift++) {
      const backing = Buffer.alloc(data.length + 8);
      data.copy(backing, shift);
      expect(dataCheck(backing.subarray(shift, shift + data.length))).toBe(check);
    }
    expect(dataCheck(data.subarray(0, data.length - 1))).not.toBe(check);
    for (const at of [0, 4096, 20_480, 35_904]) {
      const damaged = Buffer.from(data);
      damaged.fill(0, at, at + 4096);
      expect(dataCheck(damaged), `zeroed at ${at}`).not.toBe(check);
    }
    const sampled = Buffer.from(data);
    const at = 61 * 4 * 3; // a byte of a sampled word
    sampled[at] = sampled[at]! ^ 1;
    expect(dataCheck(sampled)).not.toBe(check);
  });

  it('dataCheck tells apart damage to the top bytes of two sampled words, and to the bytes past the last whole word', () => {
    // A multiply carries a change only upward: without folding the high half down, the low bits of
    // the hash depended only on the low bytes of the words, and 255 of these 65,535 pairs collided.
    const data = Buffer.from(Array.from({ length: 733 }, (_, i) => (i * 37 + 11) & 0xff));
    const check = dataCheck(data);
    const seen = new Set<string>([check]);
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) {
        if (a === data[3] && b === data[247]) continue;
        const damaged = Buffer.from(data);
        damaged[3] = a; // the top byte of word 0 (little-endian), sampled
        damaged[247] = b; // the top byte of word 61, sampled
        seen.add(dataCheck(damaged));
      }
    }
    expect(seen.size).toBe(65_536);
    const tail = Buffer.from(data);
    tail[732] = tail[732]! ^ 0x80; // past the last whole word
    expect(dataCheck(tail)).not.toBe(check);
    expect(dataCheck(Buffer.from([1, 2, 3]))).not.toBe(dataCheck(Buffer.from([1, 2, 4])));
    expect(dataCheck(new Uint8Array(0))).toBe(dataCheck(Buffer.alloc(0)));
  });

  it('readCache takes a first line ending at byte 4096 at the latest, and refuses an empty file or one with no line', () => {
    const xdg = mkdtempSync(join(work, 'xdg-'));
    const file = `${xdg}/line.v8cache`;
    const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => i & 0xff));
    const lineOf = (length: number) => {
      const tail = `\tkeys\t${dataCheck(data)}\n`;
      return Buffer.from(`${'i'.repeat(length - tail.length)}${tail}`, 'latin1');
    };
    for (const [lineLength, taken] of [[4096, true], [4097, true], [4098, false]] as const) {
      const line = lineOf(lineLength);
      writeFileSync(file, Buffer.concat([line, data]), { mode: 0o600 });
      const id = line.toString('latin1').split('\t')[0]!;
      const got = readCache(fs, file, id);
      expect(got !== undefined, `line of ${lineLength} bytes (newline at ${lineLength - 1})`).toBe(taken);
      if (got) expect(Buffer.compare(got.data, data)).toBe(0);
    }
    writeFileSync(file, '', { mode: 0o600 });
    expect(readCache(fs, file, '')).toBeUndefined();
    writeFileSync(file, 'no line at all', { mode: 0o600 });
    expect(readCache(fs, file, 'no line at all')).toBeUndefined();
  });

  it('readCache refuses a file with a zeroed block, a cut body or the byte check of an older version', () => {
    const xdg = mkdtempSync(join(work, 'xdg-'));
    const data = Buffer.from(Array.from({ length: 30_000 }, (_, i) => (i * 7 + 3) & 0xff));
    const place = { base: xdg, file: `${xdg}/claude-ps/damage.v8cache` };
    writeCache(fs, place, 'id', ['read'], data);
    const whole = readFileSync(place.file);
    const head = whole.indexOf(10) + 1;
    expect(readCache(fs, place.file, 'id')?.keys).toEqual(['read']);
    const zeroed = Buffer.from(whole);
    zeroed.fill(0, head + 8192, head + 12_288);
    writeFileSync(place.file, zeroed, { mode: 0o600 });
    expect(readCache(fs, place.file, 'id')).toBeUndefined();
    writeFileSync(place.file, whole.subarray(0, whole.length - 100), { mode: 0o600 });
    expect(readCache(fs, place.file, 'id')).toBeUndefined();
    // The line an older version wrote: its check sampled bytes, so it never passes as this one's.
    let h = 0x811c9dc5;
    for (let i = 0; i < data.length; i += 61) h = Math.imul(h ^ data[i]!, 0x01000193);
    writeFileSync(place.file, Buffer.concat([Buffer.from(`id\tread\t${data.length}.${(h >>> 0).toString(16)}\n`, 'latin1'), data]), { mode: 0o600 });
    expect(readCache(fs, place.file, 'id')).toBeUndefined();
  });
});
