/**
 * The addon's one-call folder listing for a proven-complete listing (lib/registry/read/complete-listing.ts):
 * open the folder once, fstat it, read every name, fstat the same descriptor again. The stamps around
 * the listing then come from the listing's own descriptor, in one N-API crossing, where the JS path
 * takes a stat, a readdir and a stat by path (three crossings, two Stats objects with Dates).
 * POSIX only: on Windows, and with an addon built before it, the JS path serves.
 */
import { getSystemErrorName } from 'node:util';

/** Doubles per stamp in the addon's answer (native/read.h kStampStride), in this order. */
const STAMP_STRIDE = 7;

/** What the proof compares: a subset of BigIntStats, so the JS path's stats serve as they are. */
export interface FolderStamp {
  dev: bigint;
  ino: bigint;
  ctimeNs: bigint;
  mtimeNs: bigint;
  size: bigint;
}

export interface FolderListing {
  names: string[];
  before: FolderStamp;
  after: FolderStamp;
}

export interface NativeLister {
  listFolder?(dir: string, stamps: Float64Array): string | number;
}

/** Throws what readdirSync would (an Error with `code`, `errno`, `syscall`, `path`) when the folder cannot be listed. */
export type ListFolder = (dir: string) => FolderListing;

const stamps = new Float64Array(2 * STAMP_STRIDE);

function stampAt(at: number): FolderStamp {
  return {
    dev: BigInt(stamps[at]!),
    ino: BigInt(stamps[at + 1]!),
    ctimeNs: BigInt(stamps[at + 2]!) * 1_000_000_000n + BigInt(stamps[at + 3]!),
    mtimeNs: BigInt(stamps[at + 4]!) * 1_000_000_000n + BigInt(stamps[at + 5]!),
    // -1: the addon could not stat the path after the listing (the proof then fails: see read_posix.cc).
    size: BigInt(stamps[at + 6]!),
  };
}

function listingError(dir: string, negErrno: number): Error {
  let code: string;
  try {
    code = getSystemErrorName(negErrno);
  } catch {
    code = 'EIO';
  }
  return Object.assign(new Error(`${code}: cannot list the folder, scandir '${dir}'`), { code, errno: negErrno, syscall: 'scandir', path: dir });
}

/** The addon's lister, or undefined where it has none (Windows, an older build): the caller lists in JS. */
export function nativeListFolder(addon: NativeLister): ListFolder | undefined {
  if (process.platform === 'win32' || typeof addon.listFolder !== 'function') return undefined;
  const list = addon.listFolder.bind(addon);
  return (dir) => {
    const answer = list(dir, stamps);
    if (typeof answer === 'number') throw listingError(dir, answer);
    // Every name is followed by a NUL (names hold none): the last split piece is the empty tail.
    const names = answer.split('\0');
    names.pop();
    return { names, before: stampAt(0), after: stampAt(STAMP_STRIDE) };
  };
}
