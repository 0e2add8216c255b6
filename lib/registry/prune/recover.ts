/**
 * Recovery (docs/prune.md): every prune call lists the folders it works in and finishes what an
 * interrupted prune left there, walking the protocol's own states (protocol.ts). Listing is the one
 * thing prune reads a folder for.
 */
import { join } from 'node:path';
import type { FileKind } from './names.js';
import { adopt, leftoversIn, retryKept, settle, verify, type Move } from './protocol.js';
import { listFolder, reasonOf, unlinkQuietly } from './steps.js';

/** A file prune could not remove (or put back), and why. */
export interface PruneFailure {
  path: string;
  pid: number;
  reason: string;
}

/** What became of a copy an interrupted prune left aside. */
export interface RecoveredCopy {
  /** The aside copy, `.<name>.prune-<hex>`. */
  path: string;
  /** The name it was moved from. */
  originalPath: string;
  pid: number;
  kind: FileKind;
  /**
   * `removed` (provably dead), `put back` (under its name), `dropped` (a newer file of the same
   * process holds the name), `kept` (another file holds it; left aside), `failed` (see `failed`).
   * With dryRun: `removed` or `put back`, what would be done.
   */
  action: 'removed' | 'put back' | 'dropped' | 'kept' | 'failed';
}

export interface Listing {
  dir: string;
  names: readonly string[];
}

/** Lists each folder once; a missing one is skipped, one that cannot be listed is a failure. */
export function listFolders(dirs: Iterable<string>, failed: PruneFailure[]): Listing[] {
  const out: Listing[] = [];
  for (const dir of new Set(dirs)) {
    const listed = listFolder(dir);
    if (listed.names !== undefined) out.push({ dir, names: listed.names });
    else if ('error' in listed && listed.error !== undefined) {
      failed.push({ path: dir, pid: 0, reason: reasonOf('cannot list the folder', listed.error) });
    }
  }
  return out;
}

/** Adopts, verifies and (unless dryRun) settles every leftover in the listings. */
export function recover(listings: readonly Listing[], dryRun: boolean): Move[] {
  const found = listings.map((l) => leftoversIn(l.dir, l.names));
  const moves = adopt(found.flatMap((f) => f.leftovers), dryRun);
  verify(moves);
  if (!dryRun) {
    settle(moves);
    listings.forEach((l, i) => found[i]!.stray.forEach((journal) => unlinkQuietly(l.dir, journal)));
  }
  return moves;
}

/** The moves that failed, as failures (their files are still there, under their name or aside). */
export function collectFailures(moves: readonly Move[], failed: PruneFailure[]): void {
  for (const m of moves) {
    if (m.state === 'failed') failed.push({ path: join(m.dir, m.name), pid: m.pid, reason: m.reason ?? 'failed' });
  }
}

/** After this call's own removals: a kept copy may now go back (the dead file on its name is gone). */
export function finishRecovery(moves: readonly Move[], dryRun: boolean): void {
  if (!dryRun) retryKept(moves);
}

/** The report of what recovery did (or, with dryRun, would do) to copies; journals are not listed. */
export function recoveredCopies(moves: readonly Move[], dryRun: boolean, failed: PruneFailure[]): RecoveredCopy[] {
  const out: RecoveredCopy[] = [];
  for (const m of moves) {
    const path = join(m.dir, m.aside);
    let action: RecoveredCopy['action'];
    if (dryRun) {
      if (m.state === 'released') continue;
      action = m.state === 'verified' ? 'removed' : 'put back';
    } else if (m.state === 'removed' || m.state === 'put back' || m.state === 'dropped' || m.state === 'kept') {
      action = m.state;
    } else if (m.state === 'failed') {
      action = 'failed';
      failed.push({ path, pid: m.pid, reason: m.reason ?? 'failed' });
    } else continue; // released: a journal without a copy, or a copy another prune settled meanwhile
    out.push({ path, originalPath: join(m.dir, m.name), pid: m.pid, kind: m.kind, action });
  }
  return out;
}
