/**
 * The darwin build check (scripts/check-darwin.mjs, a step of `npm test`): the parts that decide what is
 * compiled and what counts as a good result, and its one-line answers when it cannot run. The compile
 * itself runs in `npm test` (it needs the cached toolchain); nothing here touches the network.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const script = join(root, 'scripts', 'check-darwin.mjs');

interface CheckDarwin {
  ARCHS: Array<{ name: string; zig: string; cputype: number }>;
  darwinBuild(gyp: string): { sources: string[]; defines: string[]; deploymentTarget: string };
  unlistedDarwinFiles(sources: string[], nativeFiles: string[]): string[];
  machOProblem(bytes: Uint8Array, cputype: number): string | undefined;
}

let check: CheckDarwin;
let scratch: string;
beforeAll(async () => {
  check = (await import(pathToFileURL(script).href)) as CheckDarwin;
  scratch = mkdtempSync(join(tmpdir(), 'cps-darwin-check-test-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const X86_64 = 0x01000007;
const ARM64 = 0x0100000c;

/** A minimal 64-bit Mach-O: header, one LC_SYMTAB, one symbol `name` of n_type `type`. */
function machO(cputype: number, { filetype = 6, name = '_napi_register_module_v1', type = 0x0f } = {}): Buffer {
  const strings = Buffer.from(`\0${name}\0`, 'latin1');
  const header = Buffer.alloc(32);
  header.writeUInt32LE(0xfeedfacf, 0);
  header.writeUInt32LE(cputype, 4);
  header.writeUInt32LE(filetype, 12);
  header.writeUInt32LE(1, 16); // ncmds
  header.writeUInt32LE(24, 20); // sizeofcmds
  const symtab = Buffer.alloc(24);
  symtab.writeUInt32LE(0x2, 0);
  symtab.writeUInt32LE(24, 4);
  symtab.writeUInt32LE(56, 8); // symoff
  symtab.writeUInt32LE(1, 12); // nsyms
  symtab.writeUInt32LE(72, 16); // stroff
  symtab.writeUInt32LE(strings.length, 20);
  const nlist = Buffer.alloc(16);
  nlist.writeUInt32LE(1, 0);
  nlist[4] = type;
  return Buffer.concat([header, symtab, nlist, strings]);
}

describe('what the darwin check compiles', () => {
  it("takes binding.gyp's common sources and its OS=='mac' ones, never the Linux probe", () => {
    const build = check.darwinBuild(readFileSync(join(root, 'binding.gyp'), 'utf8'));
    expect(build.sources).toEqual(expect.arrayContaining(['native/addon.cc', 'native/read_posix.cc', 'native/probe_darwin.cc']));
    expect(build.sources).not.toContain('native/probe_linux.cc');
    expect(build.defines).toContain('NAPI_VERSION=8');
    expect(build.deploymentTarget).toBe('11.0');
  });

  it('picks up a file another branch adds to the mac condition', () => {
    const gyp = JSON.parse(readFileSync(join(root, 'binding.gyp'), 'utf8'));
    const mac = gyp.targets[0].conditions.find((c: [string]) => c[0].includes("OS=='mac'"));
    mac[1].sources.push('native/exit_darwin.cc');
    expect(check.darwinBuild(JSON.stringify(gyp)).sources).toContain('native/exit_darwin.cc');
  });

  it('flags a *_darwin.cc in native/ that binding.gyp does not list (a Mac build would skip it)', () => {
    const { sources } = check.darwinBuild(readFileSync(join(root, 'binding.gyp'), 'utf8'));
    expect(check.unlistedDarwinFiles(sources, readdirSync(join(root, 'native')))).toEqual([]);
    expect(check.unlistedDarwinFiles(sources, ['probe_darwin.cc', 'future_darwin.cc', 'probe_linux.cc'])).toEqual(['native/future_darwin.cc']);
  });

  it('refuses a binding.gyp it cannot read', () => {
    expect(() => check.darwinBuild('{ "targets": [] }')).toThrow(/no target/);
    expect(() => check.darwinBuild("{ 'targets': # a gyp comment\n }")).toThrow();
  });

  it('builds both Mac architectures', () => {
    expect(check.ARCHS.map((a) => [a.name, a.cputype])).toEqual([['x86_64', X86_64], ['arm64', ARM64]]);
  });
});

describe('what counts as a good addon (the Mach-O header and symbol table)', () => {
  it('accepts a dylib or bundle of the right CPU that exports napi_register_module_v1', () => {
    expect(check.machOProblem(machO(X86_64), X86_64)).toBeUndefined();
    expect(check.machOProblem(machO(ARM64, { filetype: 8 }), ARM64)).toBeUndefined();
  });

  it.each<[string, Buffer, number, RegExp]>([
    ['the other architecture', machO(X86_64), ARM64, /CPU type 0x1000007, not 0x100000c/],
    ['an executable', machO(ARM64, { filetype: 2 }), ARM64, /file type 2/],
    ['no registration symbol', machO(ARM64, { name: '_something_else' }), ARM64, /not exported/],
    ['the symbol only imported (undefined)', machO(ARM64, { type: 0x01 }), ARM64, /not exported/],
    ['a truncated file', machO(ARM64).subarray(0, 60), ARM64, /truncated/],
    ['an empty file', Buffer.alloc(0), ARM64, /not a 64-bit Mach-O/],
    ['a 32-bit Mach-O', Buffer.from([0xce, 0xfa, 0xed, 0xfe, ...Buffer.alloc(28)]), ARM64, /not a 64-bit Mach-O/],
  ])('rejects %s', (_name, bytes, cputype, message) => {
    expect(check.machOProblem(bytes, cputype)).toMatch(message);
  });

  it('rejects an ELF prebuild', () => {
    const elf = readFileSync(join(root, 'prebuilds', 'linux-x64', 'claude-ps.glibc.node'));
    expect(check.machOProblem(elf, X86_64)).toBe('not a 64-bit Mach-O file');
  });
});

describe('the check when it cannot run', () => {
  function runCheck(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', HOME: scratch, ...env }, encoding: 'utf8', timeout: 60_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  it('says so in one line when told to skip', () => {
    expect(runCheck({ CLAUDE_PS_DARWIN_CHECK: 'skip' })).toEqual({ status: 0, stdout: 'check-darwin: skipped (CLAUDE_PS_DARWIN_CHECK=skip)\n', stderr: '' });
  });

  it.skipIf(process.platform !== 'linux' || process.arch !== 'x64')(
    'a cache it cannot create: one skip line on a workstation, a failure on CI',
    () => {
      const blocker = join(scratch, 'a-file');
      writeFileSync(blocker, '');
      const cache = join(blocker, 'cache'); // under a regular file: ENOTDIR, before any download
      const local = runCheck({ CLAUDE_PS_CACHE_DIR: cache });
      expect(local.status).toBe(0);
      expect(local.stdout).toMatch(/^check-darwin: skipped: cannot create .*a-file\/cache \(ENOTDIR\)\n$/);
      const ci = runCheck({ CLAUDE_PS_CACHE_DIR: cache, CI: 'true' });
      expect(ci.status).toBe(1);
      expect(ci.stderr).toMatch(/^check-darwin: FAILED\ncannot create .*CI=true/);
    },
  );
});
