/**
 * The leaf loader: finds and loads the compiled addon, or says why it could not. Nothing but the
 * backend facade imports this file.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep, toNamespacedPath } from 'node:path';
import { hereFile } from '../runtime.js';
import { childPath, type NativeReader } from './files.js';
import type { NativeLister } from './list-folder.js';

export interface NativeAddon extends NativeReader, NativeLister {
  probe(pids: Int32Array, states: Uint8Array, tokens: Float64Array): void;
  readonly clockTicks: number;
}

export type AddonLoad =
  | { addon: NativeAddon; /** The file it came from, relative to the package root. */ file: string; reason?: undefined }
  | { addon?: undefined; file?: undefined; reason: string };

/** The package name node-gyp-build and prebuildify put first in a prebuild's file name. */
const ADDON_NAME = 'claude-ps';

export type Libc = 'glibc' | 'musl';

/**
 * The C library node-gyp-build assumes, decided as it decides (LIBC, else musl where
 * /etc/alpine-release exists), so the fast path below and node-gyp-build pick the same file.
 */
export function detectedLibc(env: NodeJS.ProcessEnv, alpineRelease: () => boolean): Libc {
  if (env.LIBC === 'musl' || env.LIBC === 'glibc') return env.LIBC;
  return alpineRelease() ? 'musl' : 'glibc';
}

/**
 * The files the loader tries by path, in order, relative to the package root: a local build, then
 * the prebuild for this platform and C library (docs/prebuilds.md). On Linux the other C library's
 * build comes next: a musl system that is not Alpine is detected as glibc, and the glibc build
 * cannot load there (no libc.so.6), nor the musl one on glibc.
 */
export function addonCandidates(platform: string, arch: string, libc: Libc): string[] {
  // Forward slashes on every platform: these are also what `doctor` reports. Spelled out rather than
  // posix.join'ed (the parts are clean names): each node:path function a cold start calls first is
  // compiled then, from Node's source.
  const dir = `prebuilds/${platform}-${arch}`;
  const files = ['build/Release/claude_ps.node'];
  if (platform === 'linux') {
    const other: Libc = libc === 'musl' ? 'glibc' : 'musl';
    files.push(`${dir}/${ADDON_NAME}.${libc}.node`, `${dir}/${ADDON_NAME}.${other}.node`);
  }
  files.push(`${dir}/${ADDON_NAME}.node`);
  // macOS ships one universal binary (prebuildify --arch x64+arm64).
  if (platform === 'darwin') files.push(`prebuilds/darwin-x64+arm64/${ADDON_NAME}.node`);
  return files;
}

/**
 * `dir` joined with a relative path of clean names in forward slashes. On POSIX that is the two with
 * a slash between (no node:path call on a cold start: Node compiles each of its functions at its first
 * call, ~20-50 us apiece here); on Windows path.join, which also turns the slashes around, as the
 * `\\?\` form dlopen is given needs.
 */
function under(dir: string, relativePath: string): string {
  return sep === '/' ? childPath(dir, relativePath) : join(dir, relativePath);
}

/** The folder holding `path` (absolute, no trailing slash), as path.dirname gives it; the same on POSIX without the call. */
function parentOf(path: string): string {
  if (sep !== '/') return dirname(path);
  const at = path.lastIndexOf('/');
  return at > 0 ? path.slice(0, at) : '/';
}

/** The package root: the nearest folder above this file that holds binding.gyp. */
function packageRoot(): string | undefined {
  if (hereFile === undefined) return undefined;
  let dir = parentOf(hereFile);
  for (let i = 0; i < 5; i++) {
    if (existsSync(under(dir, 'binding.gyp'))) return dir;
    const parent = parentOf(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

const PT_LOAD = 1;

/**
 * Why the ELF file at `path` cannot be mapped whole, or undefined (also for files that are not ELF,
 * which the platform's loader judges). The dynamic loader maps each PT_LOAD segment as its program
 * header says; where the file ends sooner (a download or copy cut short), touching the missing pages
 * kills the process with SIGBUS instead of failing the load, so such a file is never handed to it.
 */
export function truncatedElf(path: string): string | undefined {
  const found = elfCheck(path);
  return typeof found === 'object' ? `unreadable (${found.missing})` : found;
}

/**
 * truncatedElf, with a file that is not there told apart (`{ missing }`): the loader's one look at each
 * candidate, so it needs no existsSync first. Typed arrays and a DataView, not Buffer's read methods
 * or BigInts: each of those is JS Node compiles on first use, in every process that loads the addon.
 */
function elfCheck(path: string): string | undefined | { missing: 'ENOENT' | 'ENOTDIR' } {
  let fd: number | undefined;
  try {
    // O_NONBLOCK: a FIFO in place of the file answers at once instead of blocking the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile()) return 'not a regular file';
    // The ELF header and, in every file a linker writes, the program headers right after it.
    const head = new Uint8Array(1024);
    const got = readSync(fd, head, 0, head.length, 0);
    const view = new DataView(head.buffer);
    if (got < 4 || view.getUint32(0) !== 0x7f454c46) return undefined;
    const wide = head[4] === 2;
    const little = head[5] === 1;
    const u16 = (at: number) => view.getUint16(at, little);
    const u32 = (at: number) => view.getUint32(at, little);
    // A 64-bit field as a double: exact below 2^53, and any size past that is "cut short" anyway.
    const word = (at: number) => (wide ? (little ? u32(at) + u32(at + 4) * 2 ** 32 : u32(at) * 2 ** 32 + u32(at + 4)) : u32(at));
    if (got < (wide ? 64 : 52)) return `cut short at ${stat.size} bytes`;
    const phoff = word(wide ? 32 : 28);
    const phentsize = u16(wide ? 54 : 42);
    const phnum = u16(wide ? 56 : 44);
    if (phoff + phnum * phentsize > got) return phoff + phnum * phentsize > stat.size ? `cut short at ${stat.size} bytes` : undefined;
    let end = 0;
    for (let i = 0; i < phnum; i++) {
      const at = phoff + i * phentsize;
      if (u32(at) === PT_LOAD) end = Math.max(end, wide ? word(at + 8) + word(at + 32) : u32(at + 4) + u32(at + 16));
    }
    return end > stat.size ? `cut short at ${stat.size} of ${end} bytes` : undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ENOENT' || code === 'ENOTDIR') && fd === undefined) return { missing: code };
    return `unreadable (${code ?? String(err)})`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function checked(addon: Partial<NativeAddon>, file: string): AddonLoad {
  // An addon from an older build lacks part of the API: it is not used at all, so the probe and
  // the reader always come from the same backend.
  if (typeof addon.probe !== 'function' || typeof addon.readFilesInto !== 'function') {
    return { reason: 'the addon is out of date (rebuild it: npm run build:native)' };
  }
  return { addon: addon as NativeAddon, file };
}

/**
 * Loads an addon file as require() would (its `.node` handler is this same process.dlopen), without
 * the CommonJS loader's resolution around it: 0.25 ms instead of ~2.8 ms of a cold start, which a
 * statusline pays per render. Each call gives a fresh exports object (N-API modules load again).
 */
function dlopenAddon(path: string): Partial<NativeAddon> {
  const module = { exports: {} as Partial<NativeAddon> };
  process.dlopen(module, toNamespacedPath(path));
  return module.exports;
}

function firstLine(err: unknown): string {
  return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
}

export function loadNativeAddon(): AddonLoad {
  const root = packageRoot();
  if (root === undefined) return { reason: 'package root (binding.gyp) not found' };
  // The usual places first, by path: node-gyp-build's search costs ~5 ms of start-up, which a
  // statusline pays per render. It still decides everything else (other tags, Debug builds).
  const libc = process.platform === 'linux' ? detectedLibc(process.env, () => existsSync('/etc/alpine-release')) : 'glibc';
  const refused: string[] = [];
  for (const file of addonCandidates(process.platform, process.arch, libc)) {
    const path = under(root, file);
    const damage = elfCheck(path);
    if (typeof damage === 'object') continue;
    if (damage !== undefined) {
      refused.push(`${file}: ${damage}`);
      continue;
    }
    try {
      return checked(dlopenAddon(path), file);
    } catch {
      // A file that does not load here (another libc, a broken build): the next one, then node-gyp-build.
    }
  }
  try {
    const require = createRequire(join(root, 'package.json'));
    const nodeGypBuild = require('node-gyp-build') as { resolve(dir: string): string };
    const path = nodeGypBuild.resolve(root);
    const file = relative(root, path).split(sep).join('/');
    const damage = truncatedElf(path);
    if (damage !== undefined) throw new Error(`${file}: ${damage}`);
    return checked(require(path) as Partial<NativeAddon>, file);
  } catch (err) {
    const first = firstLine(err);
    // Files refused by the length check that node-gyp-build did not pick (it names its own).
    const others = refused.filter((r) => r !== first);
    return { reason: `no native addon for ${process.platform}-${process.arch}: ${first}${others.length > 0 ? ` (refused ${others.join(', ')})` : ''}` };
  }
}
