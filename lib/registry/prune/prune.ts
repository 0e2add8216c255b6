/**
 * Prune: deletes the files of provably dead records, and their key files (docs/prune.md).
 *
 * A call, in order:
 * 1. Lists the folders of the records it is given (and the config dirs it is asked about) and finishes
 *    what interrupted prunes left there (recover.ts): a live stranded copy is put back, a dead one and
 *    its journal are removed. A record whose `path` is a stranded copy is settled here.
 * 2. Check: each record's own file must still hold the record's identity (PID, start token,
 *    pidDomain); the claims found are probed in ONE batch; the record's stored `verdict` is never
 *    trusted. Only `gone`, `recycled` and `zombie` go on. `dryRun` stops here and reports.
 * 3. Each dead file walks the protocol (protocol.ts): claimed → moved aside → verified (a second
 *    batch probe) → removed, or put back with link(2) when the copy is no longer that dead claim.
 * 4. The `<pid>.<64 hex>.key` files of every record this call removed, when the key's own procStart
 *    and pidDomain name the same dead process, walk the same protocol.
 */
import { basename, dirname, join, resolve } from 'node:path';
import { isCandidateName, pidFromName, resolveSessionsDirs } from '../config.js';
import type { ConfigDirs, SessionRecord } from '../types.js';
import { judgeVerdicts } from '../verdict.js';
import { readCandidateFile } from '../read/candidates.js';
import { mayRemove, readDoc, sameIdentity, type Doc } from './documents.js';
import { keyPid, strandedPid } from './names.js';
import { begin, settle, verify } from './protocol.js';
import { collectFailures, finishRecovery, listFolders, recover, recoveredCopies, type Listing, type PruneFailure, type RecoveredCopy } from './recover.js';

export type { PruneFailure, RecoveredCopy } from './recover.js';

export interface PruneOptions {
  /** Remove nothing; report what would be removed now. */
  dryRun?: boolean;
  /**
   * Config dirs whose `sessions/` folders are also checked for what an interrupted prune left (the
   * folders of the records given always are). A string or an array of strings.
   */
  configDirs?: ConfigDirs;
  /** Environment for resolving config dirs (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** A record whose file this call removed, with the key files removed with it (absolute paths). */
export interface PrunedRecord extends SessionRecord {
  readonly keys: readonly string[];
}

/** The records whose files this call removed (or, with `dryRun`, would remove), in input order. */
export type PruneResult = PrunedRecord[];

export interface PruneReport {
  dryRun: boolean;
  removed: PrunedRecord[];
  /** Provably dead files this call could not remove (e.g. a folder it may not write), with the reason. */
  failed: PruneFailure[];
  /** Copies interrupted prunes had left aside, and what became of them. */
  recovered: RecoveredCopy[];
}

const OPTION_KEYS = new Set(['dryRun', 'configDirs', 'env']);

function checkArgs(records: unknown, options: unknown): Required<Pick<PruneOptions, 'dryRun'>> & PruneOptions {
  if (!Array.isArray(records)) throw new TypeError('prune(records, options?): records must be an array of records');
  records.forEach((r: Partial<SessionRecord> | null, i) => {
    if (
      typeof r !== 'object' || r === null || typeof r.path !== 'string' || typeof r.pid !== 'number' ||
      (r.token !== undefined && typeof r.token !== 'string') || (r.pidDomain !== undefined && typeof r.pidDomain !== 'string')
    ) {
      throw new TypeError(`prune(records): records[${i}] is not a session record (path, pid, token, pidDomain)`);
    }
  });
  return checkPruneOptions(options, 'prune(records, options?)');
}

/** Every option is checked: a misspelt or mistyped one must never turn a dry run into a deletion. */
export function checkPruneOptions(options: unknown, fn: string): Required<Pick<PruneOptions, 'dryRun'>> & PruneOptions {
  if (options === undefined) return { dryRun: false };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${fn}: options must be an object or undefined`);
  }
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!OPTION_KEYS.has(key)) throw new TypeError(`${fn}: unknown option "${key}" (known: dryRun, configDirs, env)`);
  }
  if (o.dryRun !== undefined && typeof o.dryRun !== 'boolean') throw new TypeError(`${fn}: options.dryRun must be a boolean`);
  if (o.env !== undefined && (typeof o.env !== 'object' || o.env === null)) throw new TypeError(`${fn}: options.env must be an object`);
  if (o.configDirs !== undefined) resolveSessionsDirs(o.configDirs as ConfigDirs, o.env as NodeJS.ProcessEnv | undefined);
  return { ...(o as PruneOptions), dryRun: o.dryRun === true };
}

interface Target {
  index: number;
  record: SessionRecord;
  dir: string;
  name: string;
  /** The record was read from a copy an interrupted prune left aside (recovery settles it). */
  stranded: boolean;
}

/** Records whose path is a candidate (or a stranded copy) named after their own PID; each path once. */
function targetsOf(records: readonly SessionRecord[]): Target[] {
  const seen = new Set<string>();
  const out: Target[] = [];
  records.forEach((record, index) => {
    const path = resolve(record.path);
    const name = basename(path);
    const stranded = strandedPid(name) === record.pid;
    if (!stranded && (!isCandidateName(name) || pidFromName(name) !== record.pid)) return;
    if (seen.has(path)) return;
    seen.add(path);
    out.push({ index, record, dir: dirname(path), name, stranded });
  });
  return out;
}

/**
 * Step 2: the targets whose file still holds their identity and is provably dead now (one probe). A
 * file that exists but cannot be read again stays, and is reported: on Windows, a process holding it
 * open without sharing (docs/windows.md) blocks reading and moving alike.
 */
function deadNow(targets: readonly Target[], failed: PruneFailure[]): Target[] {
  const found: { target: Target; doc: Doc }[] = [];
  for (const target of targets) {
    const path = join(target.dir, target.name);
    const doc = readDoc(path, 'record', target.record.pid);
    if (doc !== undefined && sameIdentity(doc.key, target.record)) found.push({ target, doc });
    else if (doc === undefined) {
      const again = readCandidateFile(path);
      if (!again.ok && again.reason === 'unreadable') {
        failed.push({ path, pid: target.record.pid, reason: 'cannot read it again to check it is still dead (unreadable: another process may hold it open without sharing)' });
      }
    }
  }
  const verdicts = judgeVerdicts(found.map((f) => f.doc.key));
  return found.filter((_, i) => mayRemove('record', verdicts[i]!)).map((f) => f.target);
}

/** Step 4: the key files of removed records whose own body names the same (dead) process. */
function keysOf(removed: readonly Target[], listings: readonly Listing[]): { at: number; name: string; doc: Doc }[] {
  if (removed.length === 0) return [];
  const keyNames = new Map<string, string[]>(); // `<dir>\0<pid>` → key names, from each folder's one listing
  for (const { dir, names } of listings) {
    for (const name of names) {
      const pid = keyPid(name);
      if (pid === undefined) continue;
      const at = `${dir}\0${pid}`;
      keyNames.set(at, [...(keyNames.get(at) ?? []), name]);
    }
  }
  const out: { at: number; name: string; doc: Doc }[] = [];
  removed.forEach((t, at) => {
    for (const name of keyNames.get(`${t.dir}\0${t.record.pid}`) ?? []) {
      const doc = readDoc(join(t.dir, name), 'key', t.record.pid); // undefined for a symlink: never followed
      if (doc !== undefined && sameIdentity(doc.key, t.record)) out.push({ at, name, doc });
    }
  });
  return out;
}

function pruneNow(records: readonly SessionRecord[], options: PruneOptions & { dryRun: boolean }): PruneReport {
  const { dryRun } = options;
  const targets = targetsOf(records);
  const failed: PruneFailure[] = [];
  const dirs = targets.map((t) => t.dir);
  if (options.configDirs !== undefined) dirs.push(...resolveSessionsDirs(options.configDirs, options.env));
  const listings: Listing[] = listFolders(dirs, failed);

  // Step 1: what interrupted prunes left.
  const adopted = recover(listings, dryRun);
  const settledAt = new Map(adopted.map((m) => [join(m.dir, m.aside), m]));
  const removed: Target[] = targets.filter((t) => {
    if (!t.stranded) return false;
    const m = settledAt.get(join(t.dir, t.name));
    return m !== undefined && m.doc !== undefined && sameIdentity(m.doc.key, t.record) && m.state === (dryRun ? 'verified' : 'removed');
  });

  // Steps 2 and 3.
  const dead = deadNow(targets.filter((t) => !t.stranded), failed);
  if (dryRun) removed.push(...dead);
  else {
    const moves = dead.map((t) => begin(t.dir, t.name, 'record', t.record.pid, t.record));
    verify(moves);
    settle(moves);
    moves.forEach((m, i) => m.state === 'removed' && removed.push(dead[i]!));
    collectFailures(moves, failed);
  }
  finishRecovery(adopted, dryRun);
  const recovered = recoveredCopies(adopted, dryRun, failed);

  // Step 4.
  removed.sort((a, b) => a.index - b.index);
  const keys = removed.map((): string[] => []);
  const found = keysOf(removed, listings);
  if (dryRun) for (const k of found) keys[k.at]!.push(join(removed[k.at]!.dir, k.name));
  else {
    const moves = found.map((k) => begin(removed[k.at]!.dir, k.name, 'key', k.doc.key.pid, k.doc.key));
    verify(moves);
    settle(moves);
    moves.forEach((m, i) => m.state === 'removed' && keys[found[i]!.at]!.push(join(m.dir, m.name)));
    collectFailures(moves, failed);
  }
  const pruned = removed.map((t, i) => Object.freeze({ ...t.record, keys: Object.freeze(keys[i]!) }));
  return { dryRun, removed: pruned, failed, recovered };
}

/**
 * Removes the files of provably dead records (and their key files) and returns the records whose files
 * this call removed (`dryRun`: would remove), each with `keys`. Never throws for registry content;
 * throws TypeError for bad arguments.
 */
export function prune(records: readonly SessionRecord[], options?: PruneOptions): PruneResult {
  return pruneNow(records, checkArgs(records, options)).removed;
}

/** prune, with what it could not remove and why, and what it did to copies left aside. */
export function pruneWithReport(records: readonly SessionRecord[], options?: PruneOptions): PruneReport {
  return pruneNow(records, checkArgs(records, options));
}

/**
 * The Promise twin of `prune`. The work is a few system calls per record with no waiting worth
 * yielding for, and splitting it across ticks would only widen the windows the protocol closes.
 */
export async function pruneAsync(records: readonly SessionRecord[], options?: PruneOptions): Promise<PruneResult> {
  return prune(records, options);
}
