/**
 * The win32 prebuild script (scripts/prebuild-win32.mjs): what it compiles from binding.gyp and what it
 * accepts as a Windows addon. The cross-build itself runs in `npm run test:windows` (it needs the
 * cached Zig toolchain), which then loads the result under Wine; nothing here touches the network.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

interface PrebuildWin32 {
  WIN32_TARGETS: Array<{ name: string; zig: string; machine: number; folder: string }>;
  win32Build(gyp: string): { sources: string[]; defines: string[] };
  peProblem(bytes: Uint8Array, machine: number): string | undefined;
}

let script: PrebuildWin32;
beforeAll(async () => {
  script = (await import(pathToFileURL(join(root, 'scripts', 'prebuild-win32.mjs')).href)) as PrebuildWin32;
});

const AMD64 = 0x8664;

/** A minimal PE32+ image: one section holding an export directory that names `name`. */
function pe({ machine = AMD64, characteristics = 0x2022, magic = 0x20b, name = 'napi_register_module_v1', exportRva = 0x1000 } = {}): Buffer {
  const b = Buffer.alloc(0x600);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(0x80, 0x3c);
  b.write('PE\0\0', 0x80, 'latin1');
  const coff = 0x84;
  b.writeUInt16LE(machine, coff);
  b.writeUInt16LE(1, coff + 2); // one section
  b.writeUInt16LE(240, coff + 16); // optional header size (PE32+)
  b.writeUInt16LE(characteristics, coff + 18);
  const optional = coff + 20;
  b.writeUInt16LE(magic, optional);
  b.writeUInt32LE(exportRva, optional + 112);
  b.writeUInt32LE(0x100, optional + 116);
  const section = optional + 240;
  b.write('.edata', section, 'latin1');
  b.writeUInt32LE(0x200, section + 8); // virtual size
  b.writeUInt32LE(0x1000, section + 12); // virtual address
  b.writeUInt32LE(0x200, section + 16); // raw size
  b.writeUInt32LE(0x400, section + 20); // raw offset
  const dir = 0x400; // RVA 0x1000
  b.writeUInt32LE(1, dir + 24); // NumberOfNames
  b.writeUInt32LE(0x1040, dir + 32); // AddressOfNames
  b.writeUInt32LE(0x1050, dir + 0x40); // name RVA
  b.write(`${name}\0`, dir + 0x50, 'latin1');
  return b;
}

describe('what the win32 prebuild compiles', () => {
  it("takes binding.gyp's common sources minus the POSIX ones, plus every OS=='win' source", () => {
    const build = script.win32Build(readFileSync(join(root, 'binding.gyp'), 'utf8'));
    expect(build.sources.sort()).toEqual(['native/addon.cc', 'native/exit_win32.cc', 'native/probe_win32.cc', 'native/read_win32.cc']);
    expect(build.defines).toEqual(expect.arrayContaining(['NAPI_VERSION=8', 'NAPI_DISABLE_CPP_EXCEPTIONS']));
  });

  it('every *_win32.cc in native/ is compiled', () => {
    const build = script.win32Build(readFileSync(join(root, 'binding.gyp'), 'utf8'));
    const win32Files = readdirSync(join(root, 'native')).filter((f) => /_win32\.cc$/.test(f)).map((f) => `native/${f}`);
    expect(win32Files.length).toBeGreaterThan(0);
    for (const f of win32Files) expect(build.sources).toContain(f);
  });

  it("a binding.gyp without an OS=='win' condition is an error, not a build of the POSIX files", () => {
    expect(() => script.win32Build(JSON.stringify({ targets: [{ sources: ['native/addon.cc'] }] }))).toThrow(/OS=='win'/);
  });
});

describe('what counts as a Windows addon', () => {
  it('a PE32+ x86-64 DLL exporting napi_register_module_v1', () => {
    expect(script.peProblem(pe(), AMD64)).toBeUndefined();
  });

  it.each([
    ['another machine', pe({ machine: 0xaa64 }), /machine 0xaa64/],
    ['not a DLL', pe({ characteristics: 0x0022 }), /not a DLL/],
    ['PE32, not PE32+', pe({ magic: 0x10b }), /not PE32\+/],
    ['no export directory', pe({ exportRva: 0 }), /no export directory/],
    ['another export', pe({ name: 'napi_register_module_v2' }), /is not exported/],
    ['an export RVA outside every section', pe({ exportRva: 0x9000 }), /truncated/],
    ['an ELF file', Buffer.from('\x7fELF\x02\x01\x01', 'latin1'), /not a PE file/],
    ['a truncated file', pe().subarray(0, 0x90), /truncated|PE signature/],
  ])('rejects %s', (_name, bytes, problem) => {
    expect(script.peProblem(bytes, AMD64)).toMatch(problem);
  });

  it('names x86_64-windows-gnu for win32-x64 and aarch64-windows-gnu for win32-arm64', () => {
    expect(script.WIN32_TARGETS).toEqual([
      expect.objectContaining({ name: 'x64', zig: 'x86_64-windows-gnu', machine: AMD64, folder: 'win32-x64' }),
      expect.objectContaining({ name: 'arm64', zig: 'aarch64-windows-gnu', machine: 0xaa64, folder: 'win32-arm64' }),
    ]);
  });
});
