/**
 * Legacy files (docs/prune.md): older Claude Code wrote `pid-<n>.json` (snake_case `session_id`,
 * `cwd`, no start token). They are not records, so nothing reads them; they pile up beside the
 * records. Without a token, only a PID that no longer exists (`gone`) proves the writer dead: a PID
 * that exists may still be that old process. Each goes through the same protocol as a record.
 */
import { join } from 'node:path';
import { resolveSessionsDirs } from '../config.js';
import type { ConfigDirs } from '../types.js';
import { judgeVerdicts } from '../verdict.js';
import { readDoc, type Doc } from './documents.js';
import { legacyPid } from './names.js';
import { begin, settle, verify } from './protocol.js';
import { checkPruneOptions, type PruneOptions } from './prune.js';
import { collectFailures, finishRecovery, listFolders, recover, recoveredCopies, type PruneFailure, type RecoveredCopy } from './recover.js';

/** A `pid-<n>.json` file as older Claude Code wrote it. */
export interface LegacyFile {
  path: string;
  pid: number;
  sessionId: string;
  cwd: string | undefined;
}

export interface LegacyPruneReport {
  dryRun: boolean;
  removed: LegacyFile[];
  failed: PruneFailure[];
  recovered: RecoveredCopy[];
}

export type LegacyPruneOptions = Omit<PruneOptions, 'configDirs'>;

interface Found {
  dir: string;
  name: string;
  doc: Doc;
}

/** The legacy files in listed folders (a `pid-<n>.json` whose content is not one is never touched). */
function legacyIn(listings: readonly { dir: string; names: readonly string[] }[]): Found[] {
  const out: Found[] = [];
  for (const { dir, names } of listings) {
    for (const name of names) {
      const pid = legacyPid(name);
      if (pid === undefined) continue;
      const doc = readDoc(join(dir, name), 'legacy', pid);
      if (doc !== undefined) out.push({ dir, name, doc });
    }
  }
  return out;
}

const toFile = (f: Found): LegacyFile => ({ path: join(f.dir, f.name), pid: f.doc.key.pid, sessionId: f.doc.sessionId!, cwd: f.doc.cwd });

/** Every legacy file in the config dirs' `sessions/` folders, by PID. Reads only. */
export function legacyFiles(configDirs?: ConfigDirs, options?: Pick<PruneOptions, 'env'>): LegacyFile[] {
  const { env } = checkPruneOptions(options, 'legacyFiles(configDirs?, options?)');
  const listings = listFolders(resolveSessionsDirs(configDirs, env), []);
  return legacyIn(listings).map(toFile).sort((a, b) => a.pid - b.pid);
}

/** Removes the legacy files whose PID no longer exists, with what it could not remove and why. */
export function pruneLegacyWithReport(configDirs?: ConfigDirs, options?: LegacyPruneOptions): LegacyPruneReport {
  const opts = checkPruneOptions(options, 'pruneLegacy(configDirs?, options?)');
  if ((options as PruneOptions | undefined)?.configDirs !== undefined) {
    throw new TypeError('pruneLegacy(configDirs?, options?): pass the config dirs as the first argument');
  }
  const failed: PruneFailure[] = [];
  const listings = listFolders(resolveSessionsDirs(configDirs, opts.env), failed);
  const adopted = recover(listings, opts.dryRun);
  const found = legacyIn(listings);
  const verdicts = judgeVerdicts(found.map((f) => f.doc.key));
  const gone = found.filter((_, i) => verdicts[i] === 'gone');
  let removed: Found[] = gone;
  if (!opts.dryRun) {
    const moves = gone.map((f) => begin(f.dir, f.name, 'legacy', f.doc.key.pid, f.doc.key));
    verify(moves);
    settle(moves);
    removed = gone.filter((_, i) => moves[i]!.state === 'removed');
    collectFailures(moves, failed);
  }
  finishRecovery(adopted, opts.dryRun);
  const recovered = recoveredCopies(adopted, opts.dryRun, failed);
  return { dryRun: opts.dryRun, removed: removed.map(toFile).sort((a, b) => a.pid - b.pid), failed, recovered };
}

/** Removes the legacy files whose PID no longer exists; returns those this call removed (`dryRun`: would). */
export function pruneLegacy(configDirs?: ConfigDirs, options?: LegacyPruneOptions): LegacyFile[] {
  return pruneLegacyWithReport(configDirs, options).removed;
}

/** What `prune --legacy` makes of the `pid-<n>.json` names in one listed folder (doctor reports it). */
export interface LegacyCensus {
  /** Legacy documents (snake_case `session_id`): what prune --legacy considers. */
  files: number;
  /** Of those, the ones whose PID no longer exists: what prune --legacy would remove now. */
  removable: number;
  /** Of those, kept: a process has that PID, and without a start token it may be the old writer. */
  kept: number;
  /** `pid-<n>.json` names that are no legacy document (unreadable, not JSON, no `session_id`): never touched. */
  unrecognised: number;
}

/**
 * The census of the legacy names in `names` (one listing of `dir`), judged by the same reads and the
 * same rule as pruneLegacy, so doctor and prune cannot disagree.
 */
export function legacyCensus(dir: string, names: readonly string[]): LegacyCensus {
  const named = names.filter((n) => legacyPid(n) !== undefined).length;
  const found = legacyIn([{ dir, names }]);
  const verdicts = judgeVerdicts(found.map((f) => f.doc.key));
  const removable = verdicts.filter((v) => v === 'gone').length;
  return { files: found.length, removable, kept: found.length - removable, unrecognised: named - found.length };
}
