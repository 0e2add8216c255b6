/**
 * The file system steps of the prune protocol (docs/prune.md), each one system call or two, each safe
 * to be killed in: the protocol (protocol.ts) decides which to take, these only take them.
 */
import { closeSync, linkSync, lstatSync, openSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processStartToken } from '../../backend/index.js';
import { ourPidDomain } from '../domain.js';
import { readCandidateFile } from '../read/candidates.js';
import { lazyBuiltin } from '../../runtime.js';
import { asideNameFor, journalNameFor } from './names.js';
import type { LivenessKey } from '../verdict.js';

// Loaded on first use: node:crypto costs start-up time that readers of the registry never need.
const crypto = lazyBuiltin<typeof import('node:crypto')>('node:crypto');

export function errno(err: unknown): string {
  return (err as NodeJS.ErrnoException | undefined)?.code ?? 'EUNKNOWN';
}

/** Why a step failed, for a person: `permission denied (EACCES)`. */
export function reasonOf(step: string, err: unknown): string {
  const code = errno(err);
  const message = (err as Error | undefined)?.message ?? String(err);
  const detail = message.startsWith(`${code}: `) ? message.slice(code.length + 2).split(',')[0] : message;
  return `${step}: ${detail} (${code})`;
}

let ownToken: { value: string | undefined } | undefined;

/** Who we are, as a journal says it: our PID, start token and pidDomain (the body of a key file). */
function ownerBody(): string {
  ownToken ??= { value: processStartToken(process.pid) };
  return JSON.stringify({ pid: process.pid, procStart: ownToken.value ?? null, pidDomain: ourPidDomain() }) + '\n';
}

/** A move in hand: the folder, the file's name, its aside name and this call's journal. */
export interface Ticket {
  dir: string;
  name: string;
  aside: string;
  journal: string;
}

/**
 * Step 1, claimed: creates the journal (O_CREAT|O_EXCL, never through a symlink) before anything
 * moves, so a crash after the move leaves a journal beside the copy. Its name carries our PID, so a
 * crash between creating and writing it still tells whose it was. Throws what the folder refused;
 * a journal created but not written (a full disk: ENOSPC, EDQUOT) is unlinked first, since no other
 * prune adopts it while this process lives and a long-lived one would pile them up.
 */
export function claim(dir: string, name: string): Ticket {
  const aside = asideNameFor(name, crypto().randomBytes(8).toString('hex'));
  const journal = journalNameFor(aside, process.pid);
  const fd = openSync(join(dir, journal), 'wx', 0o600);
  let open = true;
  try {
    writeFileSync(fd, ownerBody());
    open = false;
    closeSync(fd); // where writes are deferred (NFS), close is where ENOSPC shows
  } catch (err) {
    if (open) closeQuietly(fd);
    unlinkQuietly(dir, journal); // ours: O_EXCL made it, and its name holds our PID and fresh random hex
    throw err;
  }
  return { dir, name, aside, journal };
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // a close that fails has released the descriptor all the same
  }
}

/** Runs one step: true when it was done, false when its file was already gone; throws other refusals. */
function unlessGone(step: () => void): boolean {
  try {
    step();
    return true;
  } catch (err) {
    if (errno(err) === 'ENOENT') return false;
    throw err;
  }
}

/**
 * Step 2, moved aside: rename(2) the file to the aside name. Atomic: whatever a writer creates at the
 * name afterwards is a new file this move never touches. False when the file is already gone.
 */
export function moveAside(ticket: Ticket): boolean {
  return unlessGone(() => renameSync(join(ticket.dir, ticket.name), join(ticket.dir, ticket.aside)));
}

/** Unlinks by name; true only when this call removed it (false: someone else did). */
export function unlinkName(dir: string, name: string): boolean {
  return unlessGone(() => unlinkSync(join(dir, name)));
}

/** unlinkName that never throws (a journal we could not remove is found and removed later). */
export function unlinkQuietly(dir: string, name: string): void {
  try {
    unlinkSync(join(dir, name));
  } catch {
    // gone already, or a folder we cannot write: the next prune finds it by listing
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

/** 'taken': the name holds another, newer file (the copy stays where it is); 'gone': no copy was there. */
export type PutBackOutcome = 'put back' | 'taken' | 'gone';

/**
 * Step 4b, put back: link(2) the copy to its name, then unlink the aside name, so at every instant the
 * data has a name. link fails with EEXIST rather than clobber a newer file (a session that wrote while
 * its file was aside). Throws what the folder refused (the copy stays aside, visible to readers).
 */
export function putBack(dir: string, aside: string, name: string): PutBackOutcome {
  const from = join(dir, aside);
  const to = join(dir, name);
  try {
    linkSync(from, to);
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT' && vacant(from)) return 'gone'; // another pruner already put it back or removed it
    if (code === 'EEXIST') {
      // Put back by a racing pruner (same inode under both names): drop the extra name only.
      if (!sameFile(from, to)) return 'taken';
    } else if (code === 'EPERM' && vacant(to)) {
      // link(2) refuses directories: something odd was moved; rename it back while nothing is there.
      renameSync(from, to);
      return 'put back';
    } else {
      throw err;
    }
  }
  unlinkQuietly(dir, aside);
  return 'put back';
}

/** A journal's content: the owner it names (a torn or foreign body names only the PID in its name). */
export function readOwner(dir: string, journal: string, ownerPid: number): LivenessKey & { ageMs: number } {
  const read = readCandidateFile(join(dir, journal));
  const owner = { pid: ownerPid, token: undefined as string | undefined, pidDomain: undefined as string | undefined, cwd: undefined };
  if (!read.ok) return { ...owner, ageMs: 0 };
  try {
    const body = JSON.parse(read.bytes.toString('utf8')) as { pid?: unknown; procStart?: unknown; pidDomain?: unknown };
    if (body.pid === ownerPid) {
      if (typeof body.procStart === 'string' && body.procStart !== '') owner.token = body.procStart;
      if (typeof body.pidDomain === 'string') owner.pidDomain = body.pidDomain;
    }
  } catch {
    // torn (the owner died between creating and writing it): judged by the PID in its name alone
  }
  return { ...owner, ageMs: Date.now() - read.mtimeMs };
}

/** The aside name a 0.1 journal slot announces (valid only for its PID), and its age. */
export function readOldJournal(dir: string, journal: string, pid: number): { aside: string | undefined; ageMs: number } {
  const read = readCandidateFile(join(dir, journal));
  if (!read.ok) return { aside: undefined, ageMs: 0 };
  const text = read.bytes.toString('utf8').trim();
  const valid = new RegExp(String.raw`^\.${pid}\.json\.prune-[0-9a-f]{16}$`).test(text);
  return { aside: valid ? text : undefined, ageMs: Date.now() - read.mtimeMs };
}

/** The names in a folder; undefined when it is missing, with the error when it cannot be listed. */
export function listFolder(dir: string): { names: string[] } | { names: undefined; error?: unknown } {
  try {
    return { names: readdirSync(dir) };
  } catch (err) {
    const code = errno(err);
    return code === 'ENOENT' || code === 'ENOTDIR' ? { names: undefined } : { names: undefined, error: err };
  }
}
