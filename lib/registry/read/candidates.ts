/**
 * Reading candidate files safely, in batches: the folder belongs to another program, so nothing it
 * holds may make us follow a link, block, or read without bound. The system calls are in
 * lib/backend/files.ts (native batch read or its JS twin); this file turns their codes into reasons.
 */
import { basename, dirname } from 'node:path';
import { readFiles } from '../../backend/index.js';
import { META_INO, META_LENGTH, META_MTIME_MS, META_OFFSET, META_SIZE, META_STRIDE } from '../../backend/files.js';
import { READ_MISSING, READ_NOT_REGULAR, READ_OK, READ_SYMLINK, READ_TOO_LARGE } from '../../backend/types.js';
import { isCandidateName } from '../config.js';
import { claimNames, shadowedCopies } from '../prune/names.js';
import type { SkipReason } from '../types.js';
import { listComplete, listCompleteAsync } from './complete-listing.js';

/** Claude Code's own reader caps a record at 262,144 bytes. */
export const MAX_RECORD_BYTES = 256 * 1024;

export type CandidateRead =
  | { ok: true; bytes: Buffer; ino: number; size: number; mtimeMs: number }
  | { ok: false; reason: SkipReason | 'missing' };

/** A READ_* code that is not READ_OK → why the candidate is skipped ('missing': it vanished; not a skip). */
export function readFailure(code: number): SkipReason | 'missing' {
  if (code === READ_MISSING) return 'missing';
  if (code === READ_SYMLINK) return 'symlink';
  if (code === READ_NOT_REGULAR) return 'not-regular';
  if (code === READ_TOO_LARGE) return 'too-large';
  return 'unreadable';
}

/**
 * Reads a batch of names in one folder. `at(i)` gives file i's outcome; the bytes are views into one
 * shared buffer (no copy per file).
 */
export function readBatch(dir: string, names: readonly string[]): (i: number) => CandidateRead {
  const { status, meta, bytes } = readFiles(dir, names, MAX_RECORD_BYTES);
  return (i) => {
    const code = status[i]!;
    if (code !== READ_OK) return { ok: false, reason: readFailure(code) };
    const m = i * META_STRIDE;
    const offset = meta[m + META_OFFSET]!;
    return {
      ok: true,
      bytes: bytes.subarray(offset, offset + meta[m + META_LENGTH]!),
      ino: meta[m + META_INO]!,
      size: meta[m + META_SIZE]!,
      mtimeMs: meta[m + META_MTIME_MS]!,
    };
  };
}

/** The safe single-file read (watch re-reads one changed file with it). */
export function readCandidateFile(path: string): CandidateRead {
  return readBatch(dirname(path), [basename(path)])(0);
}

function readerNames(names: readonly string[]): string[] {
  const shadowed = shadowedCopies(names);
  const out = claimNames(names);
  return shadowed.length === 0 ? out : out.concat(shadowed);
}

/**
 * Candidate names in a folder, from a listing proven complete (complete-listing.ts). A missing folder
 * is an empty registry; one that exists but cannot be listed (EACCES, ENOTDIR, ELOOP, …), or kept
 * changing while it was listed, throws RegistryUnreadableError: its sessions are unknown, not none.
 * `withStranded`: also the copies an interrupted prune left aside of a `<pid>.json` that is missing,
 * then those whose `<pid>.json` exists (the scan keeps only the ones that are a second claim;
 * docs/prune.md).
 */
export function listCandidates(dir: string, withStranded = false): string[] {
  const names = listComplete(dir);
  return withStranded ? readerNames(names) : names.filter(isCandidateName);
}

export async function listCandidatesAsync(dir: string, withStranded = false): Promise<string[]> {
  const names = await listCompleteAsync(dir);
  return withStranded ? readerNames(names) : names.filter(isCandidateName);
}
