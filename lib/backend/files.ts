/**
 * The read backend facade: reads many candidate files of one folder in one call, safely (no symlink
 * follow, no FIFO block, regular files only, bounded). The native addon does it in one N-API call
 * (openat + fstat + read per file); the pure-JS twin below has the same signature and answers.
 * The backend facade (index.ts) picks one together with the probe, so both always agree.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { sep } from 'node:path';
import { READ_MISSING, READ_NOT_REGULAR, READ_OK, READ_SYMLINK, READ_TOO_LARGE, READ_UNREADABLE } from './types.js';

/** Per-file values in `FileBatch.meta`, in this order. */
export const META_OFFSET = 0;
export const META_LENGTH = 1;
export const META_INO = 2;
export const META_SIZE = 3;
export const META_MTIME_MS = 4;
export const META_STRIDE = 5;

export interface FileBatch {
  /** READ_* code per file. */
  status: Uint8Array;
  /** META_STRIDE numbers per file: offset and length into `bytes`, inode, size and mtime (ms) from fstat. */
  meta: Float64Array;
  /**
   * The contents of every READ_OK file, one after another (where `meta` says). A borrowed batch's may
   * run on past the last file: it is the reader's scratch buffer itself.
   */
  bytes: Buffer;
}

/**
 * `borrow`: the caller is done with the batch before the next read (it decodes it at once), so the
 * readers may hand out per-process scratch arrays (views of the status and meta ones, and the bytes'
 * whole scratch buffer, which may run on past the batch) instead of fresh ones: valid until the next
 * borrowing read.
 */
export type ReadFiles = (dir: string, names: readonly string[], maxBytes: number, borrow?: boolean) => FileBatch;

export interface NativeReader {
  /** The bytes written into `out`, or minus the room the batch needs when some file did not fit. */
  readFilesInto(dir: string, joinedNames: string, count: number, maxBytes: number, status: Uint8Array, meta: Float64Array, out: Uint8Array): number;
}

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);

function openError(err: unknown, path: string): number {
  const code = (err as NodeJS.ErrnoException).code;
  // O_NOFOLLOW on a symlink fails with ELOOP (EMLINK on some BSDs).
  if (code === 'ELOOP' || code === 'EMLINK') return READ_SYMLINK;
  if (code === 'ENOENT' || code === 'ENOTDIR') return READ_MISSING;
  // A socket cannot be opened at all (ENXIO; EOPNOTSUPP on macOS), a device may refuse (EACCES, ENXIO):
  // what the name is, not why open failed, decides. Only a regular file we cannot open is `unreadable`.
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st === undefined) return READ_MISSING;
    if (st.isSymbolicLink()) return READ_SYMLINK;
    if (!st.isFile()) return READ_NOT_REGULAR;
  } catch {
    // cannot even lstat it: unknown, so unreadable (the guard's conservative side)
  }
  return READ_UNREADABLE;
}

/**
 * Where the JS twin reads into: one buffer per process, grown on need, handed out only when borrowed.
 * Made on the first JS read: a process the native reader serves never needs its 64 KiB.
 */
let scratch: Buffer | undefined;

/** A borrowed batch's status and meta arrays: one pair per process, grown on need (see ReadFiles). */
let scratchStatus = new Uint8Array(64);
let scratchMeta = new Float64Array(64 * META_STRIDE);

/** Status and meta arrays for `count` files: fresh ones, or the shared pair when the caller borrows. */
function batchArrays(count: number, borrow: boolean): { status: Uint8Array; meta: Float64Array } {
  if (!borrow) return { status: new Uint8Array(count), meta: new Float64Array(count * META_STRIDE) };
  if (scratchStatus.length < count) {
    scratchStatus = new Uint8Array(Math.max(count, scratchStatus.length * 2));
    scratchMeta = new Float64Array(scratchStatus.length * META_STRIDE);
  }
  const status = scratchStatus.subarray(0, count);
  const meta = scratchMeta.subarray(0, count * META_STRIDE);
  status.fill(0);
  meta.fill(0);
  return { status, meta };
}

/** `dir` + `/` + a listed name (names hold no `/`): the file the kernel finds, without path.join's work. */
export function childPath(dir: string, name: string): string {
  return dir.endsWith('/') || dir.endsWith(sep) ? dir + name : `${dir}${sep}${name}`;
}

/**
 * Past this, a scratch buffer is not kept for the next call: a huge registry's bytes are not held for
 * life. 16 MiB holds a 10,000-record registry (Claude Code's records are 0.5-1.5 KiB), so a poller of
 * one does not allocate and fault in megabytes on every scan.
 */
const SCRATCH_KEPT = 16 * 1024 * 1024;

/**
 * The pure-JS twin of the native batch read (Node opens with O_CLOEXEC by itself). Files are read into
 * one per-process scratch buffer and the batch's bytes copied out once at the end: a fresh 256 KiB
 * buffer per call (the cap plus one byte) cost more in garbage collection than reading ten records.
 */
export const jsReadFiles: ReadFiles = (dir, names, maxBytes, borrow = false) => {
  const count = names.length;
  const { status, meta } = batchArrays(count, borrow);
  let out = (scratch ??= Buffer.allocUnsafe(64 * 1024));
  let used = 0;
  for (let i = 0; i < count; i++) {
    const m = i * META_STRIDE;
    meta[m + META_OFFSET] = used;
    const path = childPath(dir, names[i]!);
    let fd: number;
    try {
      fd = openSync(path, FLAGS);
    } catch (err) {
      status[i] = openError(err, path);
      continue;
    }
    try {
      const st = fstatSync(fd);
      meta[m + META_INO] = st.ino;
      meta[m + META_SIZE] = st.size;
      meta[m + META_MTIME_MS] = st.mtimeMs;
      if (!st.isFile()) {
        status[i] = READ_NOT_REGULAR;
        continue;
      }
      if (st.size > maxBytes) {
        status[i] = READ_TOO_LARGE;
        continue;
      }
      // Read at most maxBytes + 1: one byte more than allowed proves the file grew past the cap.
      const want = maxBytes + 1;
      if (out.length - used < want) {
        const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, used + want));
        out.copy(bigger, 0, 0, used);
        out = scratch = bigger;
      }
      let got = 0;
      for (;;) {
        const asked = want - got;
        const n = readSync(fd, out, used + got, asked, got);
        got += n;
        // A short read of a regular file is its end at that moment (as in the native reader).
        if (n < asked || got >= want) break;
      }
      if (got > maxBytes) {
        status[i] = READ_TOO_LARGE;
        continue;
      }
      meta[m + META_LENGTH] = got;
      used += got;
      status[i] = READ_OK;
    } catch {
      status[i] = READ_UNREADABLE;
    } finally {
      closeSync(fd);
    }
  }
  if (scratch.length > SCRATCH_KEPT) scratch = undefined;
  // Borrowed: valid until the next call, the scratch buffer itself (Buffer#subarray is JS a cold read
  // would compile for this one call). Else a copy, so no caller's bytes change under it at the next
  // call (small ones come from Node's pool).
  if (borrow) return { status, meta, bytes: out };
  const bytes = Buffer.allocUnsafe(used);
  out.copy(bytes, 0, 0, used);
  return { status, meta, bytes };
};

/** Where the addon reads into: one buffer per process, grown on need (see SCRATCH_KEPT). */
let nativeScratch: Buffer | undefined;
/**
 * The largest batch seen past SCRATCH_KEPT, kept when the buffer is not: a big folder is not read
 * twice per scan, even when smaller folders are read in between. It only grows: a buffer that size
 * is allocated per call but never touched past what the batch uses.
 */
let nativeHint = 64 * 1024;

/**
 * The addon's batch read behind the ReadFiles signature. The addon writes the files straight into a
 * per-process buffer (no gathering vector, no new Buffer per call); when some file does not fit it
 * says how much room the batch needs, and the batch is read again into a buffer that big. The
 * answer is then one consistent read of every file, as from the JS twin.
 */
export function nativeReadFiles(addon: NativeReader): ReadFiles {
  return (dir, names, maxBytes, borrow = false) => {
    const count = names.length;
    const { status, meta } = batchArrays(count, borrow);
    if (count === 0) return { status, meta, bytes: Buffer.alloc(0) };
    // One string for all names: one N-API conversion instead of one per file (names hold no NUL).
    const joined = names.join('\0');
    let out = (nativeScratch ??= Buffer.allocUnsafeSlow(nativeHint));
    let used = addon.readFilesInto(dir, joined, count, maxBytes, status, meta, out);
    while (used < 0) {
      // Geometric growth: a folder whose files keep growing under the read still ends in a few rounds.
      out = nativeScratch = Buffer.allocUnsafeSlow(Math.max(-used, out.length * 2));
      used = addon.readFilesInto(dir, joined, count, maxBytes, status, meta, out);
    }
    if (out.length > SCRATCH_KEPT) {
      nativeScratch = undefined;
      nativeHint = Math.max(nativeHint, used + (used >> 2));
    }
    if (borrow) return { status, meta, bytes: out };
    const bytes = Buffer.allocUnsafe(used);
    out.copy(bytes, 0, 0, used);
    return { status, meta, bytes };
  };
}
