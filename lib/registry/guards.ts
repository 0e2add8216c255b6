/**
 * The questions callers ask of the registry: which sessions are live, which are human, and the guard
 * for deleting or renaming a profile, which errs towards "someone may be here". Each answers yes, no,
 * or — for a `sessions/` folder that exists but cannot be listed — throws RegistryUnreadableError:
 * an unlistable folder is never read as an empty one (docs/guard.md).
 */
import type { ConfigDirs, ReadOptions, ScanResult, SessionRecord, SkipReason, Verdict } from './types.js';
// The live-only scan skips parsing provably dead local claims: these questions never need them.
import { scanLive, scanLiveAsync } from './read/scan.js';
import { refuseMisplaced } from './read/misplaced.js';
import { judgeVerdicts, type LivenessKey } from './verdict.js';
import { DEAD_VERDICTS } from './types.js';

export function liveRecords(configDirs?: ConfigDirs, options?: ReadOptions): SessionRecord[] {
  return scanLive(configDirs, options).records.filter((r) => r.live);
}

export async function liveRecordsAsync(configDirs?: ConfigDirs, options?: ReadOptions): Promise<SessionRecord[]> {
  return (await scanLiveAsync(configDirs, options)).records.filter((r) => r.live);
}

export function liveInteractiveRecords(configDirs?: ConfigDirs, options?: ReadOptions): SessionRecord[] {
  return scanLive(configDirs, options).records.filter((r) => r.live && r.interactive);
}

export async function liveInteractiveRecordsAsync(
  configDirs?: ConfigDirs,
  options?: ReadOptions,
): Promise<SessionRecord[]> {
  return (await scanLiveAsync(configDirs, options)).records.filter((r) => r.live && r.interactive);
}

/**
 * Skips whose content may be Claude Code's own file caught mid-write or in a format we do not know.
 * A symlink, a FIFO, a directory or an oversized file is not something Claude Code writes.
 */
const CONTENT_REASONS: ReadonlySet<SkipReason> = new Set<SkipReason>([
  'unparseable',
  'unreadable',
  'not-object',
  'pid-mismatch',
  'no-session-id',
]);

/**
 * True when a live interactive record exists, or a candidate we could not read names a PID that exists.
 * `judge` judges those PIDs: this machine's probe, or another host's (lib/hosts/judge.ts).
 */
export function hasLiveInteractiveIn(scan: ScanResult, judge: (claims: LivenessKey[]) => Verdict[] = (c) => judgeVerdicts(c)): boolean {
  if (scan.records.some((r) => r.live && r.interactive)) return true;
  // Judged as a claim with no token, domain or cwd: any process at that PID (not a zombie) is "live".
  const unknown = scan.skipped
    .filter((s) => CONTENT_REASONS.has(s.reason))
    .map((s) => ({ pid: s.pid, token: undefined, pidDomain: undefined, cwd: undefined }));
  return unknown.length > 0 && judge(unknown).some((v) => !DEAD_VERDICTS.has(v));
}

/**
 * The guard: true when a human may be using the profile, false only when none can be. Throws
 * RegistryUnreadableError (code ERR_REGISTRY_UNREADABLE) when a folder cannot be listed,
 * MisplacedConfigDirError (ERR_MISPLACED_CONFIG_DIR) for a sessions folder given as a config dir, and
 * a TypeError for a bad argument: a caller that deletes only on `false` fails closed either way.
 */
export function hasLiveInteractive(configDirs?: ConfigDirs, options?: ReadOptions): boolean {
  return hasLiveInteractiveIn(scanLive(configDirs, options)) || provenNo(configDirs, options);
}

export async function hasLiveInteractiveAsync(configDirs?: ConfigDirs, options?: ReadOptions): Promise<boolean> {
  return hasLiveInteractiveIn(await scanLiveAsync(configDirs, options)) || provenNo(configDirs, options);
}

/**
 * Before a "no" stands: a config dir that is really a sessions folder (no `sessions/` of its own,
 * `<pid>.json` names inside) throws MisplacedConfigDirError. Returns false (the "no") otherwise.
 */
export function provenNo(configDirs: ConfigDirs, options?: ReadOptions): false {
  refuseMisplaced(configDirs, options?.env);
  return false;
}
