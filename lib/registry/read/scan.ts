/**
 * The registry read: folders → candidate names (a listing proven complete) → one batch read per
 * folder → claims or reasoned skips → one re-read of empty or unparseable files after a short pause
 * (Claude Code writes without a rename, so a reader can catch a file mid-write) → a new listing when a
 * listed record vanished before it was read → one batch probe for all claims. The live-only
 * scan behind liveRecords and the guards probes right after the read instead, and leaves provably dead
 * local claims unparsed (readOutcomes).
 */
import { readFiles } from '../../backend/index.js';
import { META_LENGTH, META_OFFSET, META_STRIDE } from '../../backend/files.js';
import { READ_OK } from '../../backend/types.js';
import { childPath, pidFromName, resolveSessionsDirs } from '../config.js';
import { listCandidates, listCandidatesAsync, MAX_RECORD_BYTES, readFailure } from './candidates.js';
import { LISTING_ATTEMPTS, notProven } from './complete-listing.js';
import { checkReadOptions } from './options.js';
import { type Claim } from './schema.js';
import { folderMemo, parseRemembered } from './parse-memo.js';
import { restoredName, strandedPid } from '../prune/names.js';
import type { ConfigDirs, ReadOptions, ScanResult, SessionRecord, SkippedCandidate, SkipReason } from '../types.js';
import { domainFacts, isProvablyLocalText, type DomainFacts } from '../domain.js';
import { judgeClaims, measurePids, PID_MAX, sameIdentity, type Measurement } from '../verdict.js';

export { DEFAULT_RETRY_DELAY_MS } from './options.js';

/** 'dead': a live-only scan found the PID gone or a zombie and the text provably local, and skipped parsing it. */
type Outcome = Claim | SkipReason | 'missing' | 'dead';

interface Folder {
  dir: string;
  names: string[];
  outcomes: Outcome[];
  /** Live-only scans: what the probe said of each file-name PID, right after the read. */
  measured?: Map<number, Measurement>;
  /** name → index in `names`, built on first need (only folders holding aside copies need it). */
  at?: Map<string, number>;
}

function indexOfName(f: Folder, name: string): number {
  f.at ??= new Map(f.names.map((n, i) => [n, i]));
  return f.at.get(name) ?? -1;
}

function namePid(name: string): number {
  // A name beyond a safe integer is still a candidate: it keeps its (rounded) number for reports, and
  // no record can match it, because parseClaim only accepts a safe-integer pid (pid-mismatch).
  return pidFromName(name) ?? strandedPid(name) ?? Number(name.slice(0, -'.json'.length));
}

/**
 * Buffer's native UTF-8 decoder (what `buf.toString('utf8', start, end)` ends in), called directly where
 * Node has it: toString's own JS (its argument checks and encoding lookup) is compiled at its first
 * call, ~0.1 ms of every cold read here. The same text either way (test/registry/read/text-of.test.ts).
 */
const utf8Slice = (Buffer.prototype as { utf8Slice?: (this: Buffer, start: number, end: number) => string }).utf8Slice;

/** The UTF-8 text of `bytes` from `start` to `end` (both within the buffer). */
export function textOf(bytes: Buffer, start: number, end: number): string {
  return typeof utf8Slice === 'function' ? utf8Slice.call(bytes, start, end) : bytes.toString('utf8', start, end);
}

/** A candidate whose PID may be probed: a safe integer (name PIDs always are ≥ 1) up to PID_MAX. */
function probeable(pid: number): boolean {
  return Number.isSafeInteger(pid) && pid <= PID_MAX;
}

/**
 * One batch read of a folder's candidates, each parsed straight from the shared buffer (no copies).
 *
 * `liveOnly` (liveRecords and friends): right after the read, ONE probe of every file-name PID; a file
 * whose PID is gone or a zombie, and whose text proves the claim local (so it cannot be `foreign`),
 * can only be a dead record: it is not parsed at all. Folders full of phantoms (132 of 138 records
 * dead, reported where Claude Code does not sweep) then cost little more than their reads. The probe
 * comes after the read, as in a full scan, so a session that wrote its file before the read is seen.
 */
function readOutcomes(
  dir: string,
  names: readonly string[],
  liveOnly = false,
  folderSize = names.length,
): { outcomes: Outcome[]; measured?: Map<number, Measurement> } {
  const count = names.length;
  if (count === 0) return { outcomes: [] };
  // The bytes are decoded below, before any other read: a view of the reader's scratch buffer will do.
  const { status, meta, bytes } = readFiles(dir, names, MAX_RECORD_BYTES, true);
  const pids = new Array<number>(count);
  for (let i = 0; i < count; i++) pids[i] = namePid(names[i]!);
  let measured: Map<number, Measurement> | undefined;
  let facts: DomainFacts | undefined;
  /** Live-only scans: index into the probe's answers for name i, or -1 when it was not probed. */
  let slot: number[] | undefined;
  let probed: ReturnType<typeof measurePids> | undefined;
  if (liveOnly) {
    slot = new Array<number>(count).fill(-1);
    const probe: number[] = [];
    for (let i = 0; i < count; i++) {
      if (status[i] === READ_OK && probeable(pids[i]!)) slot[i] = probe.push(pids[i]!) - 1;
    }
    probed = measurePids(probe);
    measured = new Map();
    facts = domainFacts();
  }
  const outcomes: Outcome[] = new Array(count);
  const memo = folderMemo(dir, folderSize);
  for (let i = 0; i < count; i++) {
    if (status[i] !== READ_OK) {
      outcomes[i] = readFailure(status[i]!);
      continue;
    }
    const start = meta[i * META_STRIDE + META_OFFSET]!;
    const text = textOf(bytes, start, start + meta[i * META_STRIDE + META_LENGTH]!);
    const pid = pids[i]!;
    const k = slot === undefined ? -1 : slot[i]!;
    const state = k < 0 ? undefined : probed!.states[k];
    if ((state === 'gone' || state === 'zombie') && isProvablyLocalText(text, facts!)) {
      outcomes[i] = 'dead';
      continue;
    }
    const name = names[i]!;
    // An unchanged text gets last scan's outcome back (parse-memo.ts): a poller's usual case.
    const outcome = parseRemembered(memo, dir, name, text, pid);
    outcomes[i] = outcome;
    // Only a claim's PID is looked up again (judgeVerdicts): no Measurement for the others.
    if (k >= 0 && typeof outcome === 'object') measured!.set(pid, { state: state!, token: probed!.tokens[k] });
  }
  return { outcomes, measured };
}

/** A stranded copy (docs/prune.md) that vanished was put back by a prune meanwhile: its name is read again. */
function vanishedStranded(f: Folder, i: number): boolean {
  if (f.outcomes[i] !== 'missing') return false;
  const restored = restoredName(f.names[i]!);
  // A copy whose name was listed too (shadowedCopies): that name is read already.
  return restored !== undefined && indexOfName(f, restored) < 0;
}

/**
 * A copy whose `<pid>.json` was listed too, and that is no second claim: a record of the very process
 * the file at its name holds (an older state of it), or gone meanwhile. A record of another process
 * stays: prune keeps such a copy aside, and it may be the only record of a live session
 * (docs/prune.md). So does a torn copy, as a skip: whose it is cannot be told, and the guard counts it
 * while its PID exists, as it counts a torn `<pid>.json`.
 */
function shadowedDuplicate(f: Folder, i: number): boolean {
  const name = f.names[i]!;
  if (name.charCodeAt(0) !== 46) return false;
  const restored = restoredName(name);
  const at = restored === undefined ? -1 : indexOfName(f, restored);
  if (at < 0) return false;
  const copy = f.outcomes[i]!;
  const named = f.outcomes[at]!;
  if (copy === 'missing') return true;
  if (typeof copy !== 'object') return false;
  return typeof named === 'object' && sameIdentity(named, copy);
}

function needsRetry(folders: readonly Folder[]): boolean {
  return folders.some((f) => f.outcomes.some((o, i) => o === 'unparseable' || vanishedStranded(f, i)));
}

/** Re-reads, in one batch per folder, the files whose first read was empty or unparseable (and vanishedStranded). */
function reread(folders: readonly Folder[]): void {
  for (const f of folders) {
    const idx: number[] = [];
    f.outcomes.forEach((o, i) => {
      if (vanishedStranded(f, i)) {
        f.names[i] = restoredName(f.names[i]!)!;
        f.at = undefined; // names changed
      } else if (o !== 'unparseable') return;
      idx.push(i);
    });
    if (idx.length === 0) continue;
    const again = readOutcomes(
      f.dir,
      idx.map((i) => f.names[i]!),
      false,
      f.names.length,
    ).outcomes;
    idx.forEach((i, k) => {
      f.outcomes[i] = again[k]!;
      // Probed before the pause: the verdict of a re-read file gets a fresh probe.
      f.measured?.delete(namePid(f.names[i]!));
    });
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
}

function byPidThenPath(a: { pid: number; path: string }, b: { pid: number; path: string }): number {
  return a.pid - b.pid || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

function finish(folders: readonly Folder[]): ScanResult {
  const claims: Claim[] = [];
  const skipped: SkippedCandidate[] = [];
  let measured: Map<number, Measurement> | undefined;
  for (let k = 0; k < folders.length; k++) {
    const f = folders[k]!;
    if (f.measured) measured = measured ? new Map([...measured, ...f.measured]) : f.measured;
    for (let i = 0; i < f.names.length; i++) {
      const o = f.outcomes[i]!;
      if (shadowedDuplicate(f, i)) continue;
      if (typeof o === 'object') claims.push(o);
      // A file that vanished between listing and reading is simply no longer a candidate.
      else if (o !== 'missing' && o !== 'dead') {
        skipped.push({ path: childPath(f.dir, f.names[i]!), pid: namePid(f.names[i]!), reason: o });
      }
    }
  }
  const records: SessionRecord[] = judgeClaims(claims, domainFacts(), measured).sort(byPidThenPath);
  return { records, skipped: skipped.sort(byPidThenPath) };
}

/**
 * A listed candidate that was missing when read, and whose record no other listed name holds: the
 * listing is out of date (a prune moved the file between names meanwhile, or its session ended), so
 * nothing it says, above all "no session here", is proven. The folder is read again from a new listing.
 */
function lostSome(f: Folder): boolean {
  if (!f.outcomes.includes('missing')) return false;
  const held = new Set<number>();
  f.outcomes.forEach((o, i) => o !== 'missing' && held.add(namePid(f.names[i]!)));
  return f.outcomes.some((o, i) => o === 'missing' && !held.has(namePid(f.names[i]!)));
}

/** One folder: listed, read, re-read once after the pause where needed, and read again while lostSome (bounded). */
function readFolder(dir: string, liveOnly: boolean, delay: number): Folder {
  for (let attempt = 1; ; attempt++) {
    const names = listCandidates(dir, true);
    const { outcomes, measured } = readOutcomes(dir, names, liveOnly);
    const f: Folder = { dir, names, outcomes, measured };
    if (needsRetry([f])) {
      sleepSync(delay);
      reread([f]);
    }
    if (!lostSome(f)) return f;
    if (attempt === LISTING_ATTEMPTS) throw notProven(dir);
  }
}

/**
 * Set by the first read of a process, for the library's ES module entry (lib/library-entry.ts): the code
 * cache a run writes at exit holds what that run compiled, so a cache made by a run that never read is
 * made again, once, by the first run that does.
 */
export const READ_MARK = Symbol.for('claude-ps.read');

function scan(configDirs: ConfigDirs, options: ReadOptions | undefined, liveOnly: boolean): ScanResult {
  const { retryDelayMs: delay, env } = checkReadOptions(options);
  (globalThis as Record<symbol, unknown>)[READ_MARK] = true;
  // A loop, not .map: see judgeClaims (the folders' array deoptimized finish() the same way).
  const dirs = resolveSessionsDirs(configDirs, env);
  const folders: Folder[] = [];
  for (let i = 0; i < dirs.length; i++) folders.push(readFolder(dirs[i]!, liveOnly, delay));
  return finish(folders);
}

/** Every record (with its verdict) and every skipped candidate with its reason. Never throws for content. */
export function scanRegistry(configDirs?: ConfigDirs, options?: ReadOptions): ScanResult {
  return scan(configDirs, options, false);
}

/**
 * For the live-only questions (liveRecords, the guards): every live record and every skip of a PID
 * that exists, but provably dead local claims may be missing from both (see readOutcomes).
 */
export function scanLive(configDirs?: ConfigDirs, options?: ReadOptions): ScanResult {
  return scan(configDirs, options, true);
}

/** Files per synchronous batch read in the async twin: ~2 ms of work between event-loop turns. */
const ASYNC_SLICE = 256;

/** readOutcomes in slices, yielding to the event loop between them, so a huge folder never blocks it long. */
async function readOutcomesInSlices(
  dir: string,
  names: readonly string[],
  liveOnly: boolean,
): Promise<{ outcomes: Outcome[]; measured?: Map<number, Measurement> }> {
  if (names.length <= ASYNC_SLICE) return readOutcomes(dir, names, liveOnly);
  const outcomes: Outcome[] = [];
  const measured = liveOnly ? new Map<number, Measurement>() : undefined;
  for (let start = 0; start < names.length; start += ASYNC_SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const slice = readOutcomes(dir, names.slice(start, start + ASYNC_SLICE), liveOnly, names.length);
    outcomes.push(...slice.outcomes);
    slice.measured?.forEach((m, pid) => measured!.set(pid, m));
  }
  return { outcomes, measured };
}

/**
 * The async twin: listing, the reads (in slices of ASYNC_SLICE files, each one fast batch call) and
 * the pause before a re-read leave the event loop free in between. The probe is one batch call.
 */
export async function scanRegistryAsync(configDirs?: ConfigDirs, options?: ReadOptions): Promise<ScanResult> {
  return scanAsync(configDirs, options, false);
}

/** The async twin of scanLive. */
export async function scanLiveAsync(configDirs?: ConfigDirs, options?: ReadOptions): Promise<ScanResult> {
  return scanAsync(configDirs, options, true);
}

async function readFolderAsync(dir: string, liveOnly: boolean, delay: number): Promise<Folder> {
  for (let attempt = 1; ; attempt++) {
    const names = await listCandidatesAsync(dir, true);
    const { outcomes, measured } = await readOutcomesInSlices(dir, names, liveOnly);
    const f: Folder = { dir, names, outcomes, measured };
    if (needsRetry([f])) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      reread([f]);
    }
    if (!lostSome(f)) return f;
    if (attempt === LISTING_ATTEMPTS) throw notProven(dir);
  }
}

async function scanAsync(configDirs: ConfigDirs, options: ReadOptions | undefined, liveOnly: boolean): Promise<ScanResult> {
  const { retryDelayMs: delay, env } = checkReadOptions(options);
  (globalThis as Record<symbol, unknown>)[READ_MARK] = true;
  return finish(await Promise.all(resolveSessionsDirs(configDirs, env).map((dir) => readFolderAsync(dir, liveOnly, delay))));
}

/** Every record, live or not, sorted by PID. */
export function readRecords(configDirs?: ConfigDirs, options?: ReadOptions): SessionRecord[] {
  return scanRegistry(configDirs, options).records;
}

export async function readRecordsAsync(configDirs?: ConfigDirs, options?: ReadOptions): Promise<SessionRecord[]> {
  return (await scanRegistryAsync(configDirs, options)).records;
}
