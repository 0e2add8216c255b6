/**
 * glibc or musl: which prebuild node-gyp-build picks and which the package's loader (lib/backend/load.ts)
 * tries first, from the same inputs (the LIBC variable, /etc/alpine-release). No musl Node runs here, so
 * "Alpine" is this machine with /etc/alpine-release added in a private mount namespace (an overlay on
 * /etc), and the real prebuilds are staged as an installed package: there the loader tries the musl
 * build first, cannot load it on glibc, and serves with the glibc one, as it would on a musl system
 * that is not Alpine the other way round. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { addonCandidates, detectedLibc, truncatedElf } from '../../lib/backend/load.js';
import { requireAll } from './requirements.js';

const root = join(import.meta.dirname, '../..');
const GLIBC = 'prebuilds/linux-x64/claude-ps.glibc.node';
const MUSL = 'prebuilds/linux-x64/claude-ps.musl.node';

describe('the loader’s order of files, from its inputs', () => {
  it('LIBC wins; else /etc/alpine-release means musl; else glibc (as node-gyp-build decides)', () => {
    expect(detectedLibc({}, () => false)).toBe('glibc');
    expect(detectedLibc({}, () => true)).toBe('musl');
    expect(detectedLibc({ LIBC: 'musl' }, () => false)).toBe('musl');
    expect(detectedLibc({ LIBC: 'glibc' }, () => true)).toBe('glibc');
    // Anything else is not a libc node-gyp-build knows: the file system decides.
    expect(detectedLibc({ LIBC: 'uclibc' }, () => false)).toBe('glibc');
  });

  it('a local build, this libc’s prebuild, the other libc’s, the untagged name; the universal binary on macOS', () => {
    expect(addonCandidates('linux', 'arm64', 'glibc')).toEqual([
      'build/Release/claude_ps.node',
      'prebuilds/linux-arm64/claude-ps.glibc.node',
      'prebuilds/linux-arm64/claude-ps.musl.node',
      'prebuilds/linux-arm64/claude-ps.node',
    ]);
    expect(addonCandidates('linux', 'x64', 'musl').slice(1, 3)).toEqual([MUSL, GLIBC]);
    expect(addonCandidates('darwin', 'arm64', 'glibc')).toEqual([
      'build/Release/claude_ps.node',
      'prebuilds/darwin-arm64/claude-ps.node',
      'prebuilds/darwin-x64+arm64/claude-ps.node',
    ]);
  });
});

/** The end of the last PT_LOAD segment of a 64-bit little-endian ELF file, read independently of the loader. */
function loadEnd(bytes: Buffer): number {
  const phoff = Number(bytes.readBigUInt64LE(32));
  let end = 0;
  for (let i = 0; i < bytes.readUInt16LE(56); i++) {
    const at = phoff + i * bytes.readUInt16LE(54);
    if (bytes.readUInt32LE(at) === 1) end = Math.max(end, Number(bytes.readBigUInt64LE(at + 8) + bytes.readBigUInt64LE(at + 32)));
  }
  return end;
}

describe('a prebuild cut short is refused before the dynamic loader maps it', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cps-cut-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const whole = readFileSync(existsSync(join(root, GLIBC)) ? join(root, GLIBC) : process.execPath).subarray(0, 16 << 20);

  it('whole: accepted; cut anywhere inside a loaded segment: refused with the sizes; not ELF: left to the platform', () => {
    const file = join(scratch, 'addon.node');
    writeFileSync(file, whole);
    if (loadEnd(whole) <= whole.length) expect(truncatedElf(file)).toBeUndefined();
    for (const length of [0, 3, 20, 63, 64, 200, 4095, 4096, Math.floor(loadEnd(whole) / 2), loadEnd(whole) - 1]) {
      writeFileSync(file, whole.subarray(0, length));
      const why = truncatedElf(file);
      if (length < 4) expect(why).toBeUndefined(); // too short to be called ELF: dlopen refuses it itself
      else expect(why, `cut at ${length}`).toMatch(new RegExp(`^cut short at ${length}( of ${loadEnd(whole)})? bytes$`));
    }
    writeFileSync(file, '#!/bin/sh\n');
    expect(truncatedElf(file)).toBeUndefined();
    expect(truncatedElf(join(scratch, 'missing.node'))).toBe('unreadable (ENOENT)');
  });

  it.each([
    [64, 'little'],
    [64, 'big'],
    [32, 'little'],
    [32, 'big'],
  ] as const)('reads the program headers of a %i-bit %s-endian ELF file', (bits, order) => {
    // A header, then two program headers: a PT_LOAD ending at 0x1_2345 (a 64-bit offset whose high
    // word is set in the 64-bit files: 2^32 + 0x2345) and a PT_NOTE past it, which does not count.
    const wide = bits === 64;
    const phoff = wide ? 64 : 52;
    const phentsize = wide ? 56 : 32;
    const bytes = Buffer.alloc(phoff + 2 * phentsize);
    const w16 = (v: number, at: number) => (order === 'little' ? bytes.writeUInt16LE(v, at) : bytes.writeUInt16BE(v, at));
    const w32 = (v: number, at: number) => (order === 'little' ? bytes.writeUInt32LE(v, at) : bytes.writeUInt32BE(v, at));
    const wWord = (v: number, at: number) => {
      if (!wide) return w32(v, at);
      const big = BigInt(v);
      return order === 'little' ? bytes.writeBigUInt64LE(big, at) : bytes.writeBigUInt64BE(big, at);
    };
    bytes.writeUInt32BE(0x7f454c46, 0);
    bytes[4] = wide ? 2 : 1;
    bytes[5] = order === 'little' ? 1 : 2;
    wWord(phoff, wide ? 32 : 28);
    w16(phentsize, wide ? 54 : 42);
    w16(2, wide ? 56 : 44);
    const end = wide ? 2 ** 32 + 0x2345 : 0x1_2345;
    const load = phoff;
    w32(1, load); // PT_LOAD
    wWord(0x1000, load + (wide ? 8 : 4)); // p_offset
    wWord(end - 0x1000, load + (wide ? 32 : 16)); // p_filesz
    const note = phoff + phentsize;
    w32(4, note); // PT_NOTE
    wWord(0, note + (wide ? 8 : 4));
    wWord(end * 2, note + (wide ? 32 : 16));
    const file = join(scratch, `synthetic-${bits}-${order}.node`);
    writeFileSync(file, bytes);
    expect(truncatedElf(file)).toBe(`cut short at ${bytes.length} of ${end} bytes`);
  });

  it('a FIFO in its place answers at once, without blocking on the open', async () => {
    const fifo = join(scratch, 'fifo.node');
    await new Promise<void>((done, fail) => spawn('mkfifo', [fifo]).on('exit', (code) => (code === 0 ? done() : fail(new Error(`mkfifo ${code}`)))));
    expect(truncatedElf(fifo)).toBe('not a regular file');
  });
});

const missing = [
  existsSync(join(root, GLIBC)) && existsSync(join(root, MUSL)) ? '' : `${GLIBC} and ${MUSL} (npm run prebuild)`,
  existsSync(join(root, 'dist', 'cli.cjs')) ? '' : 'dist/ (npm run build)',
].filter(Boolean);

const notHere = process.platform === 'linux' && process.arch === 'x64' ? undefined : 'it loads the x64 prebuilds';
if (requireAll('the libc choice on the real prebuilds', missing, notHere)) {
  let stage = '';
  let overlay = '';
  // Same check as test/helpers/processes.ts, with the overlay this test needs.
  let canFakeAlpine = false;

  beforeAll(() => {
    stage = mkdtempSync(join(tmpdir(), 'cps-libc-pkg-'));
    for (const entry of ['package.json', 'binding.gyp', 'dist', 'prebuilds']) cpSync(join(root, entry), join(stage, entry), { recursive: true });
    mkdirSync(join(stage, 'node_modules'));
    cpSync(join(root, 'node_modules', 'node-gyp-build'), join(stage, 'node_modules', 'node-gyp-build'), { recursive: true });
    overlay = mkdtempSync(join(tmpdir(), 'cps-alpine-etc-'));
    mkdirSync(join(overlay, 'upper'));
    mkdirSync(join(overlay, 'work'));
    writeFileSync(join(overlay, 'upper', 'alpine-release'), '3.20.0\n');
    canFakeAlpine = spawnSync('unshare', ['--mount', 'sh', '-c', mountAlpine('test -f /etc/alpine-release')]).status === 0;
  });
  afterAll(() => {
    for (const dir of [stage, overlay]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function mountAlpine(command: string): string {
    return `mount -t overlay overlay -o lowerdir=/etc,upperdir=${overlay}/upper,workdir=${overlay}/work /etc && ${command}`;
  }

  /** node-gyp-build's choice and what the package's loader serves with, in a fresh Node. */
  function choices(
    env: NodeJS.ProcessEnv,
    alpine: boolean,
  ): { nodeGypBuild: string; doctor: { name: string; addon: string | null }; reason: string | null } {
    const script =
      `const p = require('path'); const r = require(${JSON.stringify(join(stage, 'node_modules', 'node-gyp-build'))}).resolve(${JSON.stringify(stage)});` +
      `const d = JSON.parse(require('child_process').execFileSync(process.execPath, [${JSON.stringify(join(stage, 'dist', 'cli.cjs'))}, 'doctor', '--json'], { encoding: 'utf8' }));` +
      `console.log(JSON.stringify({ nodeGypBuild: p.relative(${JSON.stringify(stage)}, r), doctor: { name: d.backend.name, addon: d.backend.addon }, reason: d.backend.reason }))`;
    const options = { encoding: 'utf8' as const, env: { ...process.env, ...env } };
    // sh -c 'mount … && exec "$0" "$@"' node -e script: no quoting of the script through a shell.
    const run = alpine
      ? spawnSync('unshare', ['--mount', 'sh', '-c', mountAlpine('exec "$0" "$@"'), process.execPath, '-e', script], options)
      : spawnSync(process.execPath, ['-e', script], options);
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout);
  }

  const base = { CLAUDE_PS_BACKEND: '', LIBC: '', CLAUDE_CONFIG_DIR: join(tmpdir(), 'cps-no-such-config') };

  describe('node-gyp-build and the loader, on the real prebuilds', () => {
    it('glibc here: both pick the glibc build', () => {
      const seen = choices(base, false);
      expect(seen.nodeGypBuild).toBe(GLIBC);
      expect(seen.doctor).toEqual({ name: 'native', addon: GLIBC });
      expect(addonCandidates('linux', 'x64', detectedLibc(base, () => false))[1]).toBe(GLIBC);
    });

    it('LIBC=musl: node-gyp-build picks the musl build; the loader tries it first, it does not load on glibc, the glibc one serves', () => {
      const seen = choices({ ...base, LIBC: 'musl' }, false);
      expect(seen.nodeGypBuild).toBe(MUSL);
      expect(addonCandidates('linux', 'x64', detectedLibc({ LIBC: 'musl' }, () => false))[1]).toBe(MUSL);
      expect(seen.doctor).toEqual({ name: 'native', addon: GLIBC });
    });

    it('/etc/alpine-release (an overlay in a private mount namespace): the same musl choice as LIBC=musl', (ctx) => {
      if (!canFakeAlpine) return ctx.skip('no private mount namespace with an overlay here (needs root and unshare)');
      const seen = choices(base, true);
      expect(seen.nodeGypBuild).toBe(MUSL);
      expect(seen.doctor).toEqual({ name: 'native', addon: GLIBC });
    });

    it('a damaged glibc build (cut short), the musl one unloadable: the JS backend serves and the reason names the file', () => {
      const file = join(stage, GLIBC);
      const whole = readFileSync(file);
      writeFileSync(file, whole.subarray(0, 4096));
      try {
        const seen = choices(base, false);
        expect(seen.nodeGypBuild).toBe(GLIBC);
        expect(seen.doctor).toEqual({ name: 'js', addon: null });
        // Handed to the dynamic loader, the cut file would kill Node with SIGBUS: it is refused first.
        expect(seen.reason).toBe(`no native addon for linux-x64: ${GLIBC}: cut short at 4096 of ${loadEnd(whole)} bytes`);
      } finally {
        writeFileSync(file, whole);
      }
    });

    it('both builds cut short: the reason names node-gyp-build’s pick and the other file refused', () => {
      const files = [GLIBC, MUSL].map((f) => join(stage, f));
      const wholes = files.map((f) => readFileSync(f));
      files.forEach((f, i) => writeFileSync(f, wholes[i]!.subarray(0, 4096)));
      try {
        const seen = choices(base, false);
        expect(seen.doctor).toEqual({ name: 'js', addon: null });
        expect(seen.reason).toBe(
          `no native addon for linux-x64: ${GLIBC}: cut short at 4096 of ${loadEnd(wholes[0]!)} bytes ` +
            `(refused ${MUSL}: cut short at 4096 of ${loadEnd(wholes[1]!)} bytes)`,
        );
      } finally {
        files.forEach((f, i) => writeFileSync(f, wholes[i]!));
      }
    });
  });
}
