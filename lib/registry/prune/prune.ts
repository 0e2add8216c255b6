/**
 * Prune: deletes the files of provably dead records (docs/prune.md).
 *
 * Design — why a live session can never lose its file here:
 * 1. Check. Each record's own file is read safely (no symlink follow, regular files only) and must
 *    still hold the record's identity: the same PID and start token (status, name, sessionId and
 *    clocks change inside a live file and are not identity). The claims found are probed in ONE
 *    batch; the record's stored `verdict` is never trusted. Only `gone`, `recycled` and `zombie` go
 *    on. `dryRun` stops here and reports them.
 * 2. Move aside. A naive read-check-unlink loses a session that rewrites `<pid>.json` between the
 *    check and the unlink. Instead the file is renamed (atomic) to `.<pid>.json.prune-<random>`, a
 *    non-candidate name in the same folder that only this call uses. From that instant a writer
 *    creating `<pid>.json` makes a new file this call never touches. Before the move, a journal slot
 *    (O_EXCL, a fixed name per PID) records the aside name, so a crash cannot strand the copy unseen.
 * 3. Verify the moved copy: it must parse and hold the same PID and token, and its claim is probed
 *    again (one more batch) — that second probe is what protects a record without a token, whose
 *    PID a new process may have taken since step 1. Provably dead → unlink the aside name (only this
 *    call's inode can be there, so an unlink that succeeds is this call's removal, reported once;
 *    ENOENT means a racing pruner removed it and reports it). Anything else — a file rewritten by a
 *    new session, half-written, unparseable, replaced by a symlink or a FIFO — is put back with
 *    link(2), which fails rather than clobber a newer `<pid>.json`; then the copy stays aside, kept.
 *    A writer that had the file open with O_TRUNC before the move can only turn the copy into a
 *    prefix of its own (live) content, never back into the dead claim, so a copy verified dead stays
 *    dead until it is unlinked.
 * 4. Leftovers. For each record it prunes, a call reads that PID's few journal slots (fixed names,
 *    never a folder listing). A journal older than JOURNAL_GRACE_MS whose aside copy still exists
 *    was left by an interrupted prune: a copy that is this record's provably dead claim is removed
 *    (and reported), any other copy is restored as in step 3. Every action on a copy depends on its
 *    content alone, so even a wrong guess about whether its owner still runs cannot lose a live file.
 */
import { basename, dirname, join } from 'node:path';
import { isCandidateName, pidFromName } from '../config.js';
import { readCandidateFile } from '../read/candidates.js';
import { parseClaim, type Claim } from '../read/schema.js';
import { DEAD_VERDICTS, type SessionRecord } from '../types.js';
import { judgeVerdicts } from '../verdict.js';
import {
  JOURNAL_GRACE_MS,
  claimTicket,
  moveAside,
  readJournals,
  releaseTicket,
  restoreAside,
  unlinkQuietly,
} from './aside.js';

export interface PruneOptions {
  /** Remove nothing; return the records whose files would be removed now. */
  dryRun?: boolean;
}

/** The records whose files this call removed (or, with `dryRun`, would remove), in input order. */
export type PruneResult = SessionRecord[];

interface Target {
  index: number;
  record: SessionRecord;
  dir: string;
  name: string;
}

/** A copy set aside (by this call, or left by an interrupted one) awaiting its verdict. */
interface Moved {
  target: Target;
  aside: string;
  claim: Claim;
  /** The journal slot naming the copy (this call's own, or the interrupted prune's). */
  journal: string;
}

function checkArgs(records: unknown, options: unknown): boolean {
  if (!Array.isArray(records)) throw new TypeError('prune(records, options?): records must be an array of records');
  records.forEach((r: Partial<SessionRecord> | null, i) => {
    if (
      typeof r !== 'object' || r === null || typeof r.path !== 'string' || typeof r.pid !== 'number' ||
      (r.token !== undefined && typeof r.token !== 'string')
    ) {
      throw new TypeError(`prune(records): records[${i}] is not a session record (path, pid, token)`);
    }
  });
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError('prune(records, options?): options must be an object');
  }
  return (options as PruneOptions | undefined)?.dryRun === true;
}

/** Records whose path is a candidate named after their own PID; each path once. Nothing else is touched. */
function targetsOf(records: readonly SessionRecord[]): Target[] {
  const seen = new Set<string>();
  const out: Target[] = [];
  records.forEach((record, index) => {
    const name = basename(record.path);
    if (!isCandidateName(name) || pidFromName(name) !== record.pid || seen.has(record.path)) return;
    seen.add(record.path);
    out.push({ index, record, dir: dirname(record.path), name });
  });
  return out;
}

/** The claim in a file, if it is a record holding the target's identity (PID and start token). */
function identityClaim(path: string, target: Target): Claim | undefined {
  const read = readCandidateFile(path);
  if (!read.ok) return undefined;
  const claim = parseClaim(read.bytes, target.record.path, target.record.pid);
  if (typeof claim === 'string') return undefined;
  return claim.pid === target.record.pid && claim.token === target.record.token ? claim : undefined;
}

/** One probe batch for many claims → which of them are provably dead. */
function deadFlags(claims: readonly Claim[]): boolean[] {
  return judgeVerdicts(claims).map((v) => DEAD_VERDICTS.has(v));
}

/** A copy left aside by an interrupted prune that is not this record's claim: it goes back last. */
interface Stray {
  target: Target;
  aside: string;
  journal: string;
}

/** Step 4: copies left aside by interrupted prunes of these records' PIDs. */
function leftovers(targets: readonly Target[]): { moved: Moved[]; strays: Stray[] } {
  const moved: Moved[] = [];
  const strays: Stray[] = [];
  const now = Date.now();
  for (const target of targets) {
    for (const entry of readJournals(target.dir, target.record.pid, now)) {
      if (entry.ageMs < JOURNAL_GRACE_MS) continue; // may belong to a prune that is running now
      if (entry.aside === undefined) {
        unlinkQuietly(join(target.dir, entry.journal)); // empty or torn journal: nothing was moved under it
        continue;
      }
      const claim = identityClaim(join(target.dir, entry.aside), target);
      if (claim !== undefined) moved.push({ target, aside: entry.aside, claim, journal: entry.journal });
      else strays.push({ target, aside: entry.aside, journal: entry.journal });
    }
  }
  return { moved, strays };
}

function pruneNow(records: readonly SessionRecord[], dryRun: boolean): PruneResult {
  const targets = targetsOf(records);
  if (targets.length === 0) return [];

  // Step 1: identity check, then one batch probe of the claims found.
  const found: { target: Target; claim: Claim }[] = [];
  for (const target of targets) {
    const claim = identityClaim(target.record.path, target);
    if (claim !== undefined) found.push({ target, claim });
  }
  const deadNow = deadFlags(found.map((f) => f.claim));
  const dead = found.filter((_, i) => deadNow[i]);
  if (dryRun) return dead.map((f) => f.target.record);

  // Step 2: journal, then move aside; verify the moved copy's identity.
  const { moved, strays } = leftovers(targets);
  for (const { target } of dead) {
    const ticket = claimTicket(target.dir, target.name, target.record.pid);
    if (ticket === undefined) continue; // every journal slot busy: leave the record for a later call
    if (!moveAside(ticket)) {
      releaseTicket(ticket); // already gone (another pruner, or the session exited): not ours
      continue;
    }
    const claim = identityClaim(join(target.dir, ticket.aside), target);
    if (claim !== undefined) {
      moved.push({ target, aside: ticket.aside, claim, journal: ticket.journal });
      continue;
    }
    // A new session's file (or a torn write, a symlink…) was moved: put it back at once.
    if (restoreAside(target.dir, ticket.aside, target.name) !== 'kept') releaseTicket(ticket);
  }

  // Step 3: a second batch probe of the moved claims, then unlink or restore.
  const stillDead = deadFlags(moved.map((m) => m.claim));
  const removed = new Set<number>();
  moved.forEach((m, i) => {
    const { target } = m;
    let settled = true;
    if (stillDead[i]) {
      if (unlinkQuietly(join(target.dir, m.aside))) removed.add(target.index);
    } else {
      settled = restoreAside(target.dir, m.aside, target.name) !== 'kept';
    }
    // A copy kept aside keeps its journal, so a later call can still find and restore it.
    if (settled) unlinkQuietly(join(target.dir, m.journal));
  });
  // Last, once the dead record no longer holds the name: a stray (a live session's file caught aside
  // by an interrupted prune, a torn write, or already gone) goes back under its name if it is free.
  for (const { target, aside, journal } of strays) {
    if (restoreAside(target.dir, aside, target.name) !== 'kept') unlinkQuietly(join(target.dir, journal));
  }
  return [...removed].sort((a, b) => a - b).map((i) => records[i]!);
}

/**
 * Removes the files of provably dead records and returns the records whose files this call removed
 * (`dryRun`: would remove). Never throws for registry content; throws TypeError for bad arguments.
 */
export function prune(records: readonly SessionRecord[], options?: PruneOptions): PruneResult {
  const dryRun = checkArgs(records, options);
  return pruneNow(records, dryRun);
}

/**
 * The Promise twin of `prune`. The work is a few system calls per record with no waiting worth
 * yielding for, and splitting it across ticks would only widen the windows the design closes.
 */
export async function pruneAsync(records: readonly SessionRecord[], options?: PruneOptions): Promise<PruneResult> {
  return prune(records, options);
}
