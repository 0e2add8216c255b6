/**
 * The prune protocol (docs/prune.md): how one file leaves the registry without a live session ever
 * losing its file, and how a later call finishes what a killed one left, by walking the same states.
 *
 *   claimed ──► moved aside ──► verified ──► removed
 *      │             │
 *      │             └────────────────────► put back  (or dropped: a newer file of the same process
 *      └─► released (the file was gone)                holds the name; or kept: another file does)
 *
 * - claimed: the journal `.<name>.prune-<hex>.journal-<our pid>` exists (O_EXCL), holding our start
 *   token and pidDomain. Nothing has moved. Crash: recovery finds a journal without a copy; removes it.
 * - moved aside: rename(2) `<name>` → `.<name>.prune-<hex>`. From here a writer creating `<name>` makes
 *   a new file that is never touched. Crash: recovery finds the copy (readers already see a stranded
 *   record copy as the claim it is) and verifies it, as below.
 * - verified: the copy still is a document of its kind with the expected identity (PID, start token,
 *   pidDomain), and a fresh probe, batched, says it may go. A writer that had the file open before the
 *   move can only turn the copy into its own live content, never back into the dead claim, so a copy
 *   verified dead stays dead.
 * - removed: unlink the aside name: only this move's inode can be there, so a successful unlink is this
 *   call's removal. put back: link(2) the copy to `<name>` (EEXIST rather than clobber), then unlink
 *   the aside name; at every instant the data has a name.
 * - finished: the journal is unlinked last.
 * Recovery adopts a copy only when no journal names a running owner (a live prune is left to finish),
 * verifies it without an expected identity (any provably dead claim may go) and settles it the same way.
 */
import { join } from 'node:path';
import { judgeVerdicts, type LivenessKey } from '../verdict.js';
import { mayRemove, readDoc, readDocAt, sameIdentity, type Doc } from './documents.js';
import { oldJournalPid, parseAside, parseJournal, type FileKind } from './names.js';
import { DEAD_VERDICTS } from '../types.js';
import { claim, errno, moveAside, putBack, readOldJournal, readOwner, reasonOf, unlinkName, unlinkQuietly } from './steps.js';

export type MoveState = 'claimed' | 'moved aside' | 'verified' | 'removed' | 'put back' | 'dropped' | 'kept' | 'released' | 'failed';

/** One file in the protocol, by this call or adopted from an interrupted one. */
export interface Move {
  dir: string;
  name: string;
  kind: FileKind;
  pid: number;
  aside: string;
  /** Journals to unlink when the move is finished: this call's own, or those an interrupted prune left. */
  journals: string[];
  /** This call's moves: the identity the copy must still hold. Adopted copies: none (any dead claim may go). */
  expect?: LivenessKey;
  state: MoveState;
  /** The copy as read when verified (undefined: not a document of its kind). */
  doc?: Doc;
  mtimeMs?: number;
  reason?: string;
}

/** claimed → moved aside (or released: the file was gone; failed: the folder refused). */
export function begin(dir: string, name: string, kind: FileKind, pid: number, expect: LivenessKey): Move {
  let ticket;
  try {
    ticket = claim(dir, name);
  } catch (err) {
    // ENOENT: the folder itself is gone (a profile removed meanwhile), and the file with it.
    const failed = errno(err) !== 'ENOENT';
    return { dir, name, kind, pid, aside: '', journals: [], expect, state: failed ? 'failed' : 'released', reason: failed ? reasonOf('cannot write its journal', err) : undefined };
  }
  const move: Move = { dir, name, kind, pid, aside: ticket.aside, journals: [ticket.journal], expect, state: 'claimed' };
  try {
    move.state = moveAside(ticket) ? 'moved aside' : 'released';
  } catch (err) {
    move.state = 'failed';
    move.reason = reasonOf('cannot move it aside', err);
  }
  if (move.state !== 'moved aside') finish(move);
  return move;
}

/** moved aside → verified, for every copy that still holds its identity and may go: ONE probe for all. */
export function verify(moves: readonly Move[]): void {
  const pending: Move[] = [];
  for (const m of moves) {
    if (m.state !== 'moved aside') continue;
    const copy = readDocAt(join(m.dir, m.aside), m.kind, m.pid);
    m.doc = copy.doc;
    m.mtimeMs = copy.mtimeMs;
    if (m.doc !== undefined && (m.expect === undefined || sameIdentity(m.doc.key, m.expect))) pending.push(m);
  }
  const verdicts = judgeVerdicts(pending.map((m) => m.doc!.key));
  pending.forEach((m, i) => {
    if (mayRemove(m.kind, verdicts[i]!)) m.state = 'verified';
  });
}

/** Is the copy an older state of what now holds its name (the same process wrote the name again)? */
function superseded(m: Move): boolean {
  const newer = readDoc(join(m.dir, m.name), m.kind, m.pid);
  return newer !== undefined && (m.doc === undefined || sameIdentity(m.doc.key, newer.key));
}

function finish(m: Move): void {
  for (const journal of m.journals) unlinkQuietly(m.dir, journal);
}

/** Puts one copy back; when its name is taken, drops it if superseded, else keeps it aside. */
function restore(m: Move): void {
  try {
    const outcome = putBack(m.dir, m.aside, m.name);
    if (outcome === 'taken') {
      if (superseded(m) && unlinkName(m.dir, m.aside)) m.state = 'dropped';
      else m.state = 'kept';
    } else {
      m.state = outcome === 'gone' ? 'released' : 'put back';
    }
  } catch (err) {
    m.state = 'failed';
    m.reason = reasonOf('cannot put it back', err);
  }
}

/**
 * verified → removed; every other copy → put back (dropped / kept). Copies of one name go back newest
 * first, so an older copy can never take the name from a newer one. Journals are unlinked last; a
 * kept copy loses its journal too (it is nobody's move now: any later prune may adopt it).
 */
export function settle(moves: readonly Move[]): void {
  const back: Move[] = [];
  for (const m of moves) {
    if (m.state === 'verified') {
      try {
        m.state = unlinkName(m.dir, m.aside) ? 'removed' : 'released';
      } catch (err) {
        m.state = 'failed';
        m.reason = reasonOf('cannot remove it', err);
      }
    } else if (m.state === 'moved aside') back.push(m);
    else continue;
    if (m.state !== 'moved aside') finish(m);
  }
  const byName = (m: Move) => `${m.dir}\0${m.name}`;
  back.sort((a, b) => (byName(a) < byName(b) ? -1 : byName(a) > byName(b) ? 1 : (b.mtimeMs ?? 0) - (a.mtimeMs ?? 0)));
  for (const m of back) {
    restore(m);
    finish(m);
  }
}

/** Kept copies, once more (a dead record that held the name may have been removed since). */
export function retryKept(moves: readonly Move[]): void {
  for (const m of moves) if (m.state === 'kept') restore(m);
}

/** A 0.1 journal younger than this may belong to a 0.1 prune that has not moved its file yet. */
export const OLD_JOURNAL_GRACE_MS = 2000;

interface Leftover {
  dir: string;
  aside: string;
  name: string;
  kind: FileKind;
  pid: number;
  present: boolean;
  owners: LivenessKey[];
  journals: string[];
  young: boolean;
}

/** What interrupted prunes left in one folder listing: aside copies and journals, grouped by copy. */
export function leftoversIn(dir: string, names: readonly string[]): { leftovers: Leftover[]; stray: string[] } {
  const byAside = new Map<string, Leftover>();
  const stray: string[] = [];
  const entry = (aside: string, name: string, kind: FileKind, pid: number): Leftover => {
    let e = byAside.get(aside);
    if (e === undefined) byAside.set(aside, (e = { dir, aside, name, kind, pid, present: false, owners: [], journals: [], young: false }));
    return e;
  };
  for (const n of names) {
    if (n.charCodeAt(0) !== 46) continue;
    const a = parseAside(n);
    if (a !== undefined) {
      entry(n, a.name, a.kind, a.pid).present = true;
      continue;
    }
    const j = parseJournal(n);
    if (j !== undefined) {
      const e = entry(j.aside, j.name, j.kind, j.pid);
      e.journals.push(n);
      e.owners.push(readOwner(dir, n, j.ownerPid));
      continue;
    }
    const oldPid = oldJournalPid(n);
    if (oldPid === undefined) continue;
    const old = readOldJournal(dir, n, oldPid);
    if (old.aside === undefined) {
      if (old.ageMs >= OLD_JOURNAL_GRACE_MS) stray.push(n); // torn or foreign: nothing was moved under it
      continue;
    }
    const e = entry(old.aside, `${oldPid}.json`, 'record', oldPid);
    e.journals.push(n);
    if (old.ageMs < OLD_JOURNAL_GRACE_MS) e.young = true;
  }
  return { leftovers: [...byAside.values()], stray };
}

/**
 * Adopts what interrupted prunes left: a leftover whose every journal names a provably dead owner (or
 * that has none) becomes a Move in the state its files show — claimed (journal, no copy) or moved
 * aside. Leftovers of a running prune are left to it. One probe batch for all owners.
 */
export function adopt(leftovers: readonly Leftover[], dryRun: boolean): Move[] {
  const owners = leftovers.flatMap((l) => l.owners);
  const verdicts = judgeVerdicts(owners);
  const ownerDead = new Map(owners.map((o, i) => [o, DEAD_VERDICTS.has(verdicts[i]!)]));
  const moves: Move[] = [];
  for (const l of leftovers) {
    if (l.young || l.owners.some((o) => !ownerDead.get(o))) continue;
    const move: Move = { dir: l.dir, name: l.name, kind: l.kind, pid: l.pid, aside: l.aside, journals: l.journals, state: 'claimed' };
    if (l.present) move.state = 'moved aside';
    else {
      move.state = 'released';
      if (!dryRun) finish(move);
    }
    moves.push(move);
  }
  return moves;
}
