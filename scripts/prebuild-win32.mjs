// The win32 prebuilds (`npm run prebuild:win32`): cross-builds the addon for x86_64-windows-gnu and
// aarch64-windows-gnu with the Zig toolchain the darwin check installs (scripts/check-darwin.mjs, same
// cache), links it against an import library for node.exe made from node-api-headers' def file,
// checks the result is a 64-bit Windows DLL for its machine exporting napi_register_module_v1, and
// writes prebuilds/win32-<arch>/claude-ps.node, where the package's loader looks first. Only the x64
// one can be loaded here (under Wine, by `npm run test:windows`); the arm64 one is checked as a file.
// Why and what it proves: docs/windows.md.
//
// Exit 0 after a build or after ONE line saying why it was skipped; exit 1 on any error. With CI=true a
// toolchain that cannot be installed is an error. Other scripts call buildWin32() directly.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HEADERS_SPEC, Unavailable, cacheRoot, ensurePackage, ensureZig, run, zigEnv } from './zig.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Zig's target, the PE machine it must produce, node_api.def's dlltool machine, the prebuild folder. */
export const WIN32_TARGETS = [
  { name: 'x64', zig: 'x86_64-windows-gnu', machine: 0x8664, dlltool: 'i386:x86-64', folder: 'win32-x64' },
  { name: 'arm64', zig: 'aarch64-windows-gnu', machine: 0xaa64, dlltool: 'arm64', folder: 'win32-arm64' },
];

const REGISTER_SYMBOL = 'napi_register_module_v1';
const IMAGE_FILE_DLL = 0x2000;
const PE32_PLUS = 0x20b;

/**
 * The Windows side of binding.gyp: the target's sources, minus the `sources!` and plus the `sources`
 * of every `OS=='win'` condition, with the defines of both. Throws when the file is not what it reads.
 */
export function win32Build(gypText) {
  const gyp = JSON.parse(gypText);
  const target = gyp?.targets?.[0];
  if (!target || !Array.isArray(target.sources)) throw new Error('binding.gyp: no target with sources');
  let sources = [...target.sources];
  const defines = [...(target.defines ?? [])];
  let found = false;
  for (const condition of target.conditions ?? []) {
    if (!Array.isArray(condition) || !/OS\s*==\s*['"]win['"]/.test(String(condition[0]))) continue;
    found = true;
    const excluded = new Set(condition[1]?.['sources!'] ?? []);
    sources = sources.filter((s) => !excluded.has(s));
    sources.push(...(condition[1]?.sources ?? []));
    defines.push(...(condition[1]?.defines ?? []));
  }
  if (!found) throw new Error("binding.gyp: no OS=='win' condition");
  return { sources, defines };
}

/**
 * Why `bytes` is not a PE32+ DLL for `machine` exporting napi_register_module_v1, or undefined when it
 * is: the DOS and PE signatures, the machine, the DLL flag, and a walk of the export directory's names.
 */
export function peProblem(bytes, machine) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    if (b.length < 64 || b.toString('latin1', 0, 2) !== 'MZ') return 'not a PE file (no MZ header)';
    const pe = b.readUInt32LE(0x3c);
    if (b.toString('latin1', pe, pe + 4) !== 'PE\0\0') return 'not a PE file (no PE signature)';
    const coff = pe + 4;
    if (b.readUInt16LE(coff) !== machine) return `machine 0x${b.readUInt16LE(coff).toString(16)}, not 0x${machine.toString(16)}`;
    const sectionCount = b.readUInt16LE(coff + 2);
    const optionalSize = b.readUInt16LE(coff + 16);
    if ((b.readUInt16LE(coff + 18) & IMAGE_FILE_DLL) === 0) return 'not a DLL';
    const optional = coff + 20;
    if (b.readUInt16LE(optional) !== PE32_PLUS) return 'not PE32+';
    const exportRva = b.readUInt32LE(optional + 112);
    if (exportRva === 0) return 'no export directory';
    const sections = optional + optionalSize;
    const offsetOf = (rva) => {
      for (let s = 0; s < sectionCount; s++) {
        const at = sections + s * 40;
        const va = b.readUInt32LE(at + 12);
        const size = Math.max(b.readUInt32LE(at + 8), b.readUInt32LE(at + 16));
        if (rva >= va && rva < va + size) return rva - va + b.readUInt32LE(at + 20);
      }
      throw new RangeError('an RVA outside every section');
    };
    const dir = offsetOf(exportRva);
    const names = b.readUInt32LE(dir + 24);
    const nameTable = offsetOf(b.readUInt32LE(dir + 32));
    for (let i = 0; i < names; i++) {
      const start = offsetOf(b.readUInt32LE(nameTable + i * 4));
      const end = b.indexOf(0, start);
      if (end > start && b.toString('latin1', start, end) === REGISTER_SYMBOL) return undefined;
    }
    return `${REGISTER_SYMBOL} is not exported`;
  } catch {
    return 'a truncated PE file';
  }
}

function headersDir(cache) {
  const probe = join('node_modules', 'node-api-headers');
  const dir = join(ensurePackage(cache, 'node-api-headers', HEADERS_SPEC, join(probe, 'include', 'node_api.h')), probe);
  if (!existsSync(join(dir, 'def', 'node_api.def'))) throw new Unavailable(`${HEADERS_SPEC} has no def/node_api.def`);
  return dir;
}

/** Compiles and links one target into `outFile`; the error text, or undefined. */
async function buildTarget(zig, env, target, build, includes, work, outFile) {
  const nodeLib = join(work, `node-${target.name}.lib`);
  // node_api.def names NODE.EXE: the addon binds to the node.exe that loads it.
  const lib = await run(zig, ['dlltool', '-d', join(includes[0], '..', 'def', 'node_api.def'), '-l', nodeLib, '-m', target.dlltool], env);
  if (lib.status !== 0) return `dlltool (${target.name}):\n${lib.output.trim()}`;
  const flags = ['-target', target.zig, '-std=c++17', '-O2', '-Wall', '-Wextra', '-Werror', ...build.defines.map((d) => `-D${d}`)];
  const objects = await Promise.all(
    build.sources.map(async (source) => {
      const object = join(work, `${target.name}-${source.replace(/[^A-Za-z0-9]+/g, '_')}.o`);
      const r = await run(zig, ['c++', ...flags, ...includes.flatMap((i) => ['-I', i]), '-c', join(root, source), '-o', object], env);
      return r.status === 0 ? { object } : { error: `${source} (${target.name}):\n${r.output.trim()}` };
    }),
  );
  const failed = objects.find((o) => o.error);
  if (failed) return failed.error;
  // libc++ and the mingw runtime are linked in statically: the DLL needs only node.exe and system DLLs.
  const addon = join(work, `claude-ps-${target.name}.node`);
  const link = await run(zig, ['c++', '-target', target.zig, '-shared', '-s', ...objects.map((o) => o.object), nodeLib, '-o', addon], env);
  if (link.status !== 0) return `link (${target.name}):\n${link.output.trim()}`;
  const problem = peProblem(readFileSync(addon), target.machine);
  if (problem) return `${addon}: ${problem}`;
  // Into place by rename, so a loader never sees half a file.
  mkdirSync(dirname(outFile), { recursive: true });
  const staged = `${outFile}.${process.pid}.tmp`;
  copyFileSync(addon, staged);
  renameSync(staged, outFile);
  return undefined;
}

/**
 * Builds every WIN32_TARGETS prebuild into `<outRoot>/<folder>/claude-ps.node`. Resolves to
 * `{ skipped }` (one line why) when the toolchain is unavailable and `ci` is false, else `{ files, seconds }`.
 */
export async function buildWin32({ env = process.env, outRoot = join(root, 'prebuilds'), ci = env.CI === 'true' || env.CI === '1' } = {}) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    const why = `the Zig toolchain here exists for linux-x64 only (this is ${process.platform}-${process.arch})`;
    if (ci) throw new Error(`${why} (CI=true)`);
    return { skipped: why };
  }
  const started = performance.now();
  const build = win32Build(readFileSync(join(root, 'binding.gyp'), 'utf8'));
  const missing = build.sources.filter((s) => !existsSync(join(root, s)));
  if (missing.length > 0) throw new Error(missing.map((f) => `binding.gyp lists ${f}, which does not exist`).join('; '));
  const cache = cacheRoot(env);
  let zig;
  let includes;
  try {
    zig = ensureZig(cache);
    includes = [join(headersDir(cache), 'include'), dirname(createRequire(join(root, 'package.json')).resolve('node-addon-api/package.json'))];
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
    if (ci) throw new Error(`${err.message} (CI=true: the win32 prebuild must be built on CI, so this fails instead of skipping)`);
    return { skipped: err.message };
  }
  const work = mkdtempSync(join(tmpdir(), 'cps-win32-build-'));
  try {
    const files = WIN32_TARGETS.map((t) => join(outRoot, t.folder, 'claude-ps.node'));
    const problems = await Promise.all(WIN32_TARGETS.map((t, i) => buildTarget(zig, zigEnv(cache), t, build, includes, work, files[i])));
    const failed = problems.filter(Boolean);
    if (failed.length > 0) throw new Error(failed.join('\n\n'));
    return { files, seconds: (performance.now() - started) / 1000 };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  buildWin32()
    .then((result) => {
      if (result.skipped) return console.log(`prebuild-win32: skipped: ${result.skipped}`);
      for (const file of result.files) {
        console.log(`prebuild-win32: ${file.slice(root.length + 1)} (${statSync(file).size} bytes) in ${result.seconds.toFixed(1)} s`);
      }
    })
    .catch((err) => {
      console.error(`prebuild-win32: FAILED\n${err.message}`);
      process.exitCode = 1;
    });
}
