/**
 * scripts/elf.mjs, the reader the prebuild checks trust: it must agree with binutils' readelf on real
 * files (this Node, this machine's libc, the local build and every prebuild, arm64 ones too), and on
 * hostile bytes (truncated, corrupted) answer with an ElfError, never another exception or a hang.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requireAll } from './requirements.js';

const root = join(import.meta.dirname, '../..');

interface Elf {
  machine: number;
  type: number;
  needed: string[];
  requirements: Array<{ file: string; version: string }>;
  symbols: Array<{ name: string; defined: boolean; version?: string }>;
  exports: string[];
}
const elf = (await import(pathToFileURL(join(root, 'scripts', 'elf.mjs')).href)) as {
  ElfError: new (message: string) => Error;
  readElf(bytes: Uint8Array): Elf;
  highestGlibc(e: Elf): { version: string; symbol?: string } | undefined;
  linuxAddonProblems(bytes: Uint8Array, options: { machine: number; libc: string; floor?: string }): string[];
};

const hasReadelf = spawnSync('readelf', ['--version']).status === 0;

/** What readelf says: NEEDED libraries and the (file, version) pairs of .gnu.version_r. */
function readelfView(path: string): { needed: string[]; requirements: string[]; machine: string } {
  const out = spawnSync('readelf', ['-W', '-h', '-d', '-V', path], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout;
  const needed = [...out.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]!);
  const requirements: string[] = [];
  const section = out.split("Version needs section '.gnu.version_r'")[1] ?? '';
  let file = '';
  for (const line of section.split('\n')) {
    const f = /File: (\S+)/.exec(line);
    if (f) file = f[1]!;
    const n = /Name: (\S+)/.exec(line);
    if (n && file) requirements.push(`${file} ${n[1]}`);
  }
  const machine = /Machine:\s+(.+)/.exec(out)?.[1]?.trim() ?? '';
  return { needed, requirements, machine };
}

const libc = ['/lib/x86_64-linux-gnu/libc.so.6', '/lib/aarch64-linux-gnu/libc.so.6', '/usr/aarch64-linux-gnu/lib/libc.so.6'].filter((f) => existsSync(f));
const prebuilds = existsSync(join(root, 'prebuilds'))
  ? readdirSync(join(root, 'prebuilds'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.startsWith('linux-') && f.endsWith('.node'))
      .map((f) => join(root, 'prebuilds', f))
  : [];
const local = join(root, 'build', 'Release', 'claude_ps.node');
const files = [process.execPath, ...libc, ...(existsSync(local) ? [local] : []), ...prebuilds];

if (requireAll('the ELF reader checks', hasReadelf ? [] : ['readelf (Debian: binutils)'], process.platform === 'linux' ? undefined : 'GNU readelf')) {
  describe('agrees with readelf', () => {
    it.each(files)('%s', (path) => {
      const mine = elf.readElf(readFileSync(path));
      const theirs = readelfView(path);
      expect(mine.needed).toEqual(theirs.needed);
      expect(mine.requirements.map((r) => `${r.file} ${r.version}`).sort()).toEqual(theirs.requirements.sort());
      expect({ 62: 'Advanced Micro Devices X86-64', 183: 'AArch64' }[mine.machine]).toBe(theirs.machine);
    });
  });

  describe('judges', () => {
    it('a program that is no addon (this Node)', () => {
      const problems = elf.linuxAddonProblems(readFileSync(process.execPath), { machine: 62, libc: 'glibc' });
      expect(problems).toContain('napi_register_module_v1 is not exported');
      expect(problems).toContain('ELF type 2, not a shared object');
    });

    it("this machine's node-gyp build (the prebuild before issue 26): it needs libstdc++, and glibc newer than 2.28 where built on one", () => {
      if (!existsSync(local)) return;
      const problems = elf.linuxAddonProblems(readFileSync(local), { machine: 62, libc: 'glibc', floor: '2.28' });
      expect(problems).toContain('needs libstdc++.so.6');
      const top = elf.highestGlibc(elf.readElf(readFileSync(local)));
      const newer = top !== undefined && Number(top.version.split('.')[1]) > 28;
      expect(problems.some((p) => /newer than the GLIBC_2\.28 floor/.test(p))).toBe(newer);
    });

    it('a build for the wrong machine, or a glibc build checked as musl', () => {
      for (const path of prebuilds.filter((p) => p.endsWith('.glibc.node'))) {
        const bytes = readFileSync(path);
        const machine = elf.readElf(bytes).machine;
        expect(elf.linuxAddonProblems(bytes, { machine: machine === 62 ? 183 : 62, libc: 'glibc' })[0]).toMatch(/^machine \d+, not \d+$/);
        expect(elf.linuxAddonProblems(bytes, { machine, libc: 'musl' }).join('; ')).toMatch(/a musl build asking for GLIBC_/);
      }
    });
  });

  describe('hostile bytes: an ElfError, never a crash or a hang', () => {
    const sample = readFileSync(prebuilds[0] ?? (existsSync(local) ? local : process.execPath)).subarray(0, 1 << 20);
    const onlyElfErrors = (bytes: Uint8Array) => {
      try {
        elf.readElf(bytes);
      } catch (err) {
        if (!(err instanceof elf.ElfError)) throw err;
      }
    };

    it('empty, not ELF, 32-bit, big-endian', () => {
      expect(() => elf.readElf(new Uint8Array(0))).toThrow(elf.ElfError);
      expect(() => elf.readElf(Buffer.from('#!/bin/sh\necho not an addon\n'.padEnd(128)))).toThrow(/not an ELF file/);
      const b32 = Buffer.from(sample.subarray(0, 64));
      b32[4] = 1;
      expect(() => elf.readElf(b32)).toThrow(/not a 64-bit/);
      const be = Buffer.from(sample.subarray(0, 64));
      be[5] = 2;
      expect(() => elf.readElf(be)).toThrow(/not a little-endian/);
      expect(elf.linuxAddonProblems(new Uint8Array(10), { machine: 62, libc: 'glibc' })).toEqual(['not an ELF file']);
    });

    it('truncated at any length', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: sample.length - 1 }), (length) => onlyElfErrors(sample.subarray(0, length))),
        { numRuns: 300 },
      );
    });

    it('with bytes of its headers and tables overwritten', () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.integer({ min: 0, max: sample.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 16 }),
          (edits) => {
            const bytes = Buffer.from(sample);
            // Aim half the edits at the ELF and section headers, where the offsets live.
            for (const [at, value] of edits) bytes[at % 2 === 0 ? at % 64 : at] = value;
            onlyElfErrors(bytes);
          },
        ),
        { numRuns: 300 },
      );
    });
  });
}
