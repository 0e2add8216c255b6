/**
 * The watcher's file table: per candidate path, the stat its last read was made at and the record it
 * gave. Decides which files need reading (a rescan stats every candidate but re-reads only those whose
 * inode, size or mtime changed), reads them in one batch per folder, and returns the outcomes. Knows
 * nothing of events or liveness.
 */
import { lstatSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pidFromName } from '../config.js';
import { restoredName, strandedPid } from '../prune/names.js';
import { readBatch } from '../read/candidates.js';
import { parseClaim, type Claim } from '../read/schema.js';
import type { SessionRecord, SkipReason } from '../types.js';
import { sameIdentity } from '../verdict.js';

/** The PID a claim's file name carries: `<pid>.json`, or a stranded copy's `.<pid>.json.prune-<hex>`. */
function claimPid(name: string): number {
  return (pidFromName(name) ?? strandedPid(name))!;
}

/**
 * File timestamps come from a coarse clock (a jiffy; a second or two on some filesystems), so a file
 * rewritten just after we read it can keep the same mtime (and size). A file whose mtime was this close
 * to the moment we read it is "racily clean" (as git calls it) and is re-read at the next rescan.
 */
export const RACY_WINDOW_MS = 2000;

export interface FileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
}

export interface FileState {
  /** The file's path (its key in the table). */
  path: string;
  stamp: FileStamp;
  /** Date.now() just before the stat this state was read at. */
  readAt: number;
  /** The record last reported for this path (undefined: the file is a skipped candidate). */
  record: SessionRecord | undefined;
  claim: Claim | undefined;
  /** A reported record whose file now reads as a non-record: the stamp and time it was first seen so. */
  pending?: { stamp: FileStamp; since: number };
  /** Its last read failed (no permission, no descriptor left): it proves nothing, so it is read again. */
  unreadable?: boolean;
}

export type ReadOutcome =
  | { path: string; kind: 'gone' }
  | { path: string; kind: 'claim'; claim: Claim; stamp: FileStamp; readAt: number }
  | { path: string; kind: 'skip'; reason: SkipReason; stamp: FileStamp; readAt: number };

/** A file whose mtime was within RACY_WINDOW_MS of its read, caught mid-write, or unreadable: its stamp proves nothing yet. */
export function needsLook(state: FileState): boolean {
  return state.pending !== undefined || state.unreadable === true || state.stamp.mtimeMs >= state.readAt - RACY_WINDOW_MS;
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** The file's stamp; undefined when nothing is there; 'unknown' when lstat itself failed (EACCES, EIO, ENOMEM). */
function stampOf(path: string): FileStamp | undefined | 'unknown' {
  try {
    const s = lstatSync(path, { throwIfNoEntry: false });
    return s && { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs };
  } catch (err) {
    // ENOTDIR: the folder is not one any more (the listing reports it). Any other failure says
    // nothing of the file: its record is kept, never reported removed on a guess.
    return (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? undefined : 'unknown';
  }
}

/**
 * A copy whose `<pid>.json` exists too and that holds the very process the file at that name holds
 * (an older state of it): no second claim, as the registry read decides (scan.ts, docs/prune.md). A
 * copy of another process is one: prune keeps it aside, and it may be a live session's only record.
 */
function duplicateCopy(path: string, claim: Claim, read: ReadonlyMap<string, ReadOutcome>, table: ReadonlyMap<string, FileState>): boolean {
  const name = basename(path);
  if (name.charCodeAt(0) !== 46) return false;
  const restored = restoredName(name);
  if (restored === undefined) return false;
  const at = join(dirname(path), restored);
  const now = read.get(at);
  // A file at the name that cannot be looked at holds nothing known: the copy stays a claim.
  const there = now === undefined ? stampOf(at) : undefined;
  const named = now === undefined ? (there === undefined || there === 'unknown' ? undefined : table.get(at)?.claim) : now.kind === 'claim' ? now.claim : undefined;
  return named !== undefined && sameIdentity(named, claim);
}

/**
 * Checks paths: one lstat each; a file is read when `force` (the OS said it changed: its stamp may not
 * show a same-size rewrite within one clock tick), when it is new, when its stamp changed, or when its
 * last read was racy. Reads are batched per folder.
 */
export function checkFiles(
  paths: Iterable<string>,
  table: ReadonlyMap<string, FileState>,
  force: (path: string) => boolean,
): ReadOutcome[] {
  const outcomes: ReadOutcome[] = [];
  const toRead = new Map<string, Array<{ path: string; stamp: FileStamp; readAt: number }>>();
  for (const path of paths) {
    const readAt = Date.now();
    const stamp = stampOf(path);
    if (stamp === 'unknown') continue;
    if (stamp === undefined) {
      if (table.has(path)) outcomes.push({ path, kind: 'gone' });
      continue;
    }
    const known = table.get(path);
    // A copy prune left aside is read again whenever it is looked at: whether it is a claim depends on
    // the file at its name too, which may change while the copy does not (duplicateCopy).
    const copy = basename(path).charCodeAt(0) === 46;
    const fresh = known !== undefined && !copy && !needsLook(known) && !force(path) && sameStamp(known.stamp, stamp);
    if (fresh) continue;
    const dir = dirname(path);
    let batch = toRead.get(dir);
    if (batch === undefined) toRead.set(dir, (batch = []));
    batch.push({ path, stamp, readAt });
  }
  for (const [dir, batch] of toRead) {
    const at = readBatch(
      dir,
      batch.map((b) => basename(b.path)),
    );
    batch.forEach(({ path, stamp, readAt }, i) => {
      const read = at(i);
      let parsed: Claim | SkipReason;
      if (read.ok) parsed = parseClaim(read.bytes, path, claimPid(basename(path)));
      else if (read.reason !== 'missing') parsed = read.reason;
      else {
        if (table.has(path)) outcomes.push({ path, kind: 'gone' });
        return;
      }
      if (typeof parsed === 'string') outcomes.push({ path, kind: 'skip', reason: parsed, stamp, readAt });
      else outcomes.push({ path, kind: 'claim', claim: parsed, stamp, readAt });
    });
  }
  if (!outcomes.some((o) => o.kind === 'claim' && basename(o.path).charCodeAt(0) === 46)) return outcomes;
  // Copies beside their own <pid>.json: kept out of the table (so read again whenever listed), and
  // one reported before (while it was stranded) is removed.
  const read = new Map(outcomes.map((o) => [o.path, o]));
  return outcomes.flatMap((o): ReadOutcome[] => {
    if (o.kind !== 'claim' || !duplicateCopy(o.path, o.claim, read, table)) return [o];
    return table.has(o.path) ? [{ path: o.path, kind: 'gone' }] : [];
  });
}
