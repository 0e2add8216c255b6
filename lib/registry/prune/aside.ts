/**
 * The file moves behind prune (see the design note in prune.ts): moving a record aside under a name
 * only this call uses, putting it back without clobbering, and the journal that lets a later call
 * find what an interrupted one left aside — without walking the folder.
 *
 * Names (all start with a dot, so none matches `^[1-9][0-9]*\.json$`, and none ends like Claude
 * Code's `.key` / `.key.tmp.*` files):
 * - aside copy: `.<pid>.json.prune-<16 hex>` — random per call, so no other pruner can ever rename
 *   onto it, and an unlink by this name can only hit the inode this call moved there;
 * - journal:    `.<pid>.json.prune-journal-<k>`, k in 0..JOURNAL_SLOTS-1 — deterministic per PID,
 *   claimed with O_EXCL, holding the aside copy's name. A later prune of the same PID reads these few
 *   names and no others.
 */
import { linkSync, lstatSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCandidateFile } from '../read/candidates.js';
import { lazyBuiltin } from '../../runtime.js';

// Loaded on first use: node:crypto costs start-up time that readers of the registry never need.
const crypto = lazyBuiltin<typeof import('node:crypto')>('node:crypto');

/** Concurrent prunes of one PID (plus kept leftovers) beyond this skip the record for this call. */
export const JOURNAL_SLOTS = 4;

/**
 * A journal whose aside copy is absent is removed only when older than this: until then it may
 * belong to a prune that has written it and not yet moved the file. Getting this wrong costs at most
 * a journal entry, never a record: every action on an aside copy depends on its content alone.
 */
export const JOURNAL_GRACE_MS = 2000;

export function journalName(pid: number, slot: number): string {
  return `.${pid}.json.prune-journal-${slot}`;
}

function asidePattern(pid: number): RegExp {
  return new RegExp(`^\\.${pid}\\.json\\.prune-[0-9a-f]{16}$`);
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** A claimed journal slot and the aside name it announces. */
export interface AsideTicket {
  dir: string;
  /** `<pid>.json`. */
  name: string;
  aside: string;
  journal: string;
}

/**
 * Claims a journal slot (O_EXCL) and writes the aside name into it, before any file moves: a crash
 * after the move leaves a journal that points at the copy. Undefined when every slot is taken.
 */
export function claimTicket(dir: string, name: string, pid: number): AsideTicket | undefined {
  const aside = `.${pid}.json.prune-${crypto().randomBytes(8).toString('hex')}`;
  for (let slot = 0; slot < JOURNAL_SLOTS; slot++) {
    const journal = journalName(pid, slot);
    try {
      // 'wx' is O_CREAT|O_EXCL: fails on any existing name, a symlink included.
      writeFileSync(join(dir, journal), `${aside}\n`, { flag: 'wx', mode: 0o600 });
      return { dir, name, aside, journal };
    } catch (err) {
      if (errno(err) !== 'EEXIST') return undefined;
    }
  }
  return undefined;
}

export function releaseTicket(ticket: AsideTicket): void {
  unlinkQuietly(join(ticket.dir, ticket.journal));
}

/** rename(2) `<pid>.json` → the aside name: atomic, and whatever a writer creates next at the
 * original name is a new file that this call never touches. False when the file is already gone. */
export function moveAside(ticket: AsideTicket): boolean {
  try {
    renameSync(join(ticket.dir, ticket.name), join(ticket.dir, ticket.aside));
    return true;
  } catch {
    return false;
  }
}

/** Unlinks by name; true only when this call removed it (ENOENT: someone else did). */
export function unlinkQuietly(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const x = lstatSync(a);
    const y = lstatSync(b);
    return x.ino === y.ino && x.dev === y.dev;
  } catch {
    return false;
  }
}

function vacant(path: string): boolean {
  try {
    lstatSync(path);
    return false;
  } catch (err) {
    return errno(err) === 'ENOENT';
  }
}

export type RestoreOutcome = 'restored' | 'gone' | 'kept';

/**
 * Puts an aside copy back under `<pid>.json` without clobbering: link(2) fails with EEXIST when a
 * newer file appeared there (a session that wrote while its file was aside), and then the copy is
 * kept where it is rather than lost. Link then unlink, so at every instant the data has a name.
 */
export function restoreAside(dir: string, aside: string, name: string): RestoreOutcome {
  const from = join(dir, aside);
  const to = join(dir, name);
  try {
    linkSync(from, to);
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT') return 'gone'; // another pruner already restored or removed it
    if (code === 'EEXIST') {
      // Restored by a racing pruner (same inode under both names): drop the extra name only.
      if (!sameFile(from, to)) return 'kept';
    } else if (code === 'EPERM' && vacant(to)) {
      // link(2) refuses directories: something odd was swapped in; rename it back while nothing is there.
      try {
        renameSync(from, to);
        return 'restored';
      } catch {
        return 'kept';
      }
    } else {
      return 'kept';
    }
  }
  unlinkQuietly(from);
  return 'restored';
}

/** What a journal slot says: the aside name it announces (valid for this PID only), and its age. */
export interface JournalEntry {
  journal: string;
  aside: string | undefined;
  ageMs: number;
}

/** Reads the journal slots of one PID (a handful of fixed names; the folder is never listed). */
export function readJournals(dir: string, pid: number, now = Date.now()): JournalEntry[] {
  const out: JournalEntry[] = [];
  const valid = asidePattern(pid);
  for (let slot = 0; slot < JOURNAL_SLOTS; slot++) {
    const journal = journalName(pid, slot);
    const read = readCandidateFile(join(dir, journal));
    if (!read.ok) continue; // missing (the common case), or something that is not our journal
    const text = read.bytes.toString('utf8').trim();
    out.push({ journal, aside: valid.test(text) ? text : undefined, ageMs: now - read.mtimeMs });
  }
  return out;
}
