/**
 * The per-user V8 code cache shared by the CLI's executable (lib/cli/launch.ts, on a Node without a
 * compile cache of its own) and the library's ES module entry (lib/library-entry.ts, on every Node:
 * Node's compile cache is the application's to turn on): one file per bundle, package version, Node
 * version, architecture, V8 flags and bundle path in `$XDG_CACHE_HOME/claude-ps/`
 * (else `~/.cache/claude-ps/`), its first line the identity of the source it was made from (size,
 * mtime, ctime, inode of the descriptor the source was read from) and the keys of what it holds. Read
 * without following a symlink or blocking on a FIFO, only from a file of this user's that nobody else
 * may write; written to a temporary file renamed into place, only into a folder of this user's. Every
 * failure is silent: a run without the cache is slower, never wrong. No import but types: the caller
 * hands in node:fs, so neither entry loads anything it would not load anyway.
 */
import type * as Fs from 'node:fs';

declare const __CLAUDE_PS_VERSION__: string;

export interface CachePlace {
  base: string;
  file: string;
}

/**
 * Node's own options without the code of `node -e`/`-p` (execArgv holds the script itself): one
 * file per way of running, not one per script a user evaluates. Spelled out without regular
 * expressions, as is the rest of this file: each pattern a cold process runs is compiled on its
 * first use and again, to machine code, on its second (~40-100 us apiece on every run).
 */
export function flagsOf(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (arg.startsWith('--eval=') || arg.startsWith('--print=')) continue;
    if (isShortEvalOrPrint(arg) || arg === '--eval' || arg === '--print') {
      // -p and -e take the next word as code, alone or together (-pe); -p alone may stand before -e.
      if (arg.includes('e') || arg === '--eval' || execArgv[i + 1]?.startsWith('-') !== true) i++;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}

/** `-` and then one or more of `p` and `e` (`-e`, `-p`, `-pe`, `-ep`, `-pp`...). */
function isShortEvalOrPrint(arg: string): boolean {
  if (arg.length < 2 || arg.charCodeAt(0) !== 45) return false;
  for (let i = 1; i < arg.length; i++) {
    const c = arg.charCodeAt(i);
    if (c !== 112 && c !== 101) return false;
  }
  return true;
}

/** `path` without the slashes it ends with. */
function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  return path.slice(0, end);
}

/** This user's cache folder and, in it, the file for this package, Node and flags; undefined where there is no such place. */
export function cachePlace(bundleName: string, sourcePath: string): CachePlace | undefined {
  const { env } = process;
  const given = env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : env.HOME?.startsWith('/') ? `${env.HOME}/.cache` : undefined;
  // Without trailing slashes: the folder's parent is what is before its last one.
  const base = given === undefined ? undefined : withoutTrailingSlashes(given);
  if (!base) return undefined;
  // The flags V8 checks the data against, and the bundle's own path: two installs of one version
  // (a project's and a global one) would otherwise replace each other's file on every run. In a short
  // stable form (no character a file name cannot hold).
  const key = `${flagsOf(process.execArgv).join(' ')} ${env.NODE_OPTIONS ?? ''}\0${sourcePath}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return { base, file: `${base}/claude-ps/${bundleName}-${__CLAUDE_PS_VERSION__}-node${process.versions.node}-${process.arch}-${(h >>> 0).toString(16)}.v8cache` };
}

/**
 * A check of the data V8 is handed, from its length, one 32-bit word of every 61 and the last bytes
 * past a whole word. A release V8 does not verify its data's checksum: a file whose first line
 * matches over a damaged body (a block zeroed by a crash, a disk error) would crash every run in V8's
 * deserializer until someone deleted it. Every byte would cost ~2-4 ms of JS per run (the loop gets
 * compiled on the stack) and node:zlib's crc32 ~5 ms to load; a sample finds a damaged block (16
 * words of every 4 KiB) or a cut for ~0.05 ms. Words, not bytes: a quarter of the steps, which a cold
 * run takes in the interpreter. Each step folds the hash's high half into its low one, as a multiply
 * alone carries a change only upward (damage to the top bytes of two words could cancel out). The
 * data of a file starts 4-aligned in memory (firstLine pads the line before it; readCache reads the
 * file into a block of its own); data that does not (a file of an older version) is checked from a
 * copy. Words are read in the machine's byte order, which the file's name fixes (process.arch): a
 * file from the other order would only fail its check. The file is also synced before it is renamed
 * into place, so a crash leaves the old file or a whole new one.
 */
export function dataCheck(data: Uint8Array): string {
  const aligned = (data.byteOffset & 3) === 0 ? data : Uint8Array.prototype.slice.call(data);
  const words = new Int32Array(aligned.buffer, aligned.byteOffset, data.length >>> 2);
  let h = 0x811c9dc5;
  for (let i = 0; i < words.length; i += 61) {
    h = Math.imul(h ^ words[i]!, 0x01000193);
    h ^= h >>> 15;
  }
  for (let i = data.length & ~3; i < data.length; i++) h = Math.imul(h ^ data[i]!, 0x01000193);
  return `${data.length}.w${(h >>> 0).toString(16)}`;
}

/**
 * The cached data for this bundle and the commands whose runs it holds (its first line: the identity,
 * a tab, the command keys, a tab, the data's check), or undefined when anything is off. Read into a
 * block of its own with typed-array builtins and Buffer's native latin1Slice rather than readFileSync,
 * Buffer#indexOf and #toString: those are JS a cold process compiles first (~0.3 ms of every run).
 */
export function readCache(fs: typeof Fs, file: string, identity: string): { data: Uint8Array; keys: string[] } | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.uid !== process.getuid?.() || (st.mode & 0o022) !== 0 || st.size > 64 << 20) return undefined;
    // The size fstat gave. Never a file this code is writing (it renames a whole new one into place);
    // one another program lengthens meanwhile is read and checked as fstat saw it.
    const whole = Buffer.allocUnsafeSlow(st.size);
    let got = 0;
    for (let n = 1; got < whole.length && n > 0; got += n) n = fs.readSync(fd, whole, got, whole.length - got, got);
    const end = new Uint8Array(whole.buffer, whole.byteOffset, Math.min(got, 4097)).indexOf(10);
    if (end < 0) return undefined;
    const fields = latin1(whole, end).split('\t');
    if (fields[0] !== identity) return undefined;
    const data = new Uint8Array(whole.buffer, whole.byteOffset + end + 1, got - end - 1);
    return fields[2] === dataCheck(data) ? { data, keys: (fields[1] ?? '').split(' ').filter(Boolean) } : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The first `end` bytes of `buf` as latin1 text (Buffer's native slice where Node has it). */
function latin1(buf: Buffer, end: number): string {
  const native = (buf as Buffer & { latin1Slice?: (start: number, end: number) => string }).latin1Slice;
  return typeof native === 'function' ? native.call(buf, 0, end) : buf.toString('latin1', 0, end);
}

/**
 * The file's first line: the identity, a tab, the command keys, a tab, the data's check. The keys are
 * padded with spaces (readCache drops empty keys) so that the data after the line starts at a multiple
 * of 8 bytes: V8 copies cached data that is not pointer-aligned before it deserializes it, ~0.2 ms a run
 * here for the library's ~85 KB, and the identity's length (its mtime's digits) varies from build to
 * build. readFileSync's buffer for a file this size is a block of its own, which malloc aligns.
 */
export function firstLine(identity: string, keys: readonly string[], data: Uint8Array): Buffer {
  const head = `${identity}\t${keys.join(' ')}`;
  const tail = `\t${dataCheck(data)}\n`;
  return Buffer.from(head + ' '.repeat((8 - ((head.length + tail.length) % 8)) % 8) + tail, 'latin1');
}

/** A folder of this user's that nobody else may write (a symlink is not one). */
function isOwnFolder(fs: typeof Fs, path: string, follow: boolean): boolean {
  try {
    const st = follow ? fs.statSync(path) : fs.lstatSync(path);
    return st.isDirectory() && st.uid === process.getuid!() && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Writes the cache for the next runs: only into a folder of this user's (never creating one in
 * somebody else's, e.g. root running with a user's HOME), to a temporary file renamed into place.
 * Temporary files of runs killed mid-write, a minute old, are removed. Every failure is silent.
 */
export function writeCache(fs: typeof Fs, { base, file }: CachePlace, identity: string, keys: readonly string[], data: Buffer): void {
  const dir = file.slice(0, file.lastIndexOf('/'));
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    const parent = base.slice(0, base.lastIndexOf('/')) || '/';
    if (!fs.existsSync(base) && fs.statSync(parent).uid === process.getuid!()) fs.mkdirSync(base, { mode: 0o700 });
    if (fs.statSync(base).uid !== process.getuid!()) return;
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch {
      // there already, or not ours to make: checked next
    }
    if (!isOwnFolder(fs, dir, false)) return;
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.tmp')) continue;
      try {
        if (Date.now() - fs.lstatSync(`${dir}/${name}`).mtimeMs > 60_000) fs.unlinkSync(`${dir}/${name}`);
      } catch {
        // another run's, removed meanwhile
      }
    }
    const fd = fs.openSync(temp, 'wx', 0o600);
    try {
      fs.writeFileSync(fd, Buffer.concat([firstLine(identity, keys, data), data]));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch {
    try {
      fs.unlinkSync(temp);
    } catch {
      // nothing was written
    }
  }
}

/**
 * A bundle's source and its identity, both from one descriptor, the identity taken before the read: a
 * bundle replaced or rewritten meanwhile gets another identity next time, never this source's
 * bytecode. V8 itself checks only the source's length, and size and mtime survive a rebuild copied
 * with its mtime (cp -p, tar, rsync -a, an image layer); the inode and ctime of a rewrite never do.
 */
export function readSource(fs: typeof Fs, path: string): { source: string; identity: string } {
  const fd = fs.openSync(path, 'r');
  try {
    const st = fs.fstatSync(fd);
    return { identity: `${st.size} ${st.mtimeMs} ${st.ctimeMs} ${st.ino}`, source: fs.readFileSync(fd, 'utf8') };
  } finally {
    fs.closeSync(fd);
  }
}
