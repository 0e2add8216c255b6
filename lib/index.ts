// Public API: re-exports only.
export { backend, probe, pidExists, processStartToken } from './backend/index.js';
export type { BackendInfo, ProbeResult } from './backend/index.js';
export type { BackendName, ProbeState } from './backend/types.js';
export { recordedToken, classifyToken, compareTokens } from './proc/token.js';
export type { TokenForm } from './proc/token.js';
export { formatLstart, parseLstart } from './proc/lstart.js';
export { defaultConfigDir, sessionsDir } from './registry/config.js';
// The read functions and watch with their `hosts` option (lib/hosts/api.ts): without it, the registry's own.
export {
  scanRegistry,
  scanRegistryAsync,
  readRecords,
  readRecordsAsync,
  liveRecords,
  liveRecordsAsync,
  liveInteractiveRecords,
  liveInteractiveRecordsAsync,
  hasLiveInteractive,
  hasLiveInteractiveAsync,
} from './hosts/api.js';
export type { HostsReadOptions, HostsScanResult } from './hosts/api.js';
export { HostsIncompleteError, HOSTS_INCOMPLETE } from './hosts/incomplete.js';
export type { HostOutcome } from './hosts/incomplete.js';
export { RegistryUnreadableError, REGISTRY_UNREADABLE } from './registry/read/unreadable-folder.js';
export { MisplacedConfigDirError, MISPLACED_CONFIG_DIR } from './registry/read/misplaced.js';
export { verdict, isLive } from './registry/verdict.js';
export { BACKGROUND_KINDS, DEAD_VERDICTS } from './registry/types.js';
export type {
  SessionRecord,
  Verdict,
  SkipReason,
  SkippedCandidate,
  ScanResult,
  ConfigDirs,
  ReadOptions,
} from './registry/types.js';
export { prune, pruneAsync, pruneWithReport } from './registry/prune/prune.js';
export type { PruneOptions, PruneResult, PrunedRecord, PruneReport, PruneFailure, RecoveredCopy } from './registry/prune/prune.js';
export { pruneLegacy, pruneLegacyWithReport, legacyFiles } from './registry/prune/legacy.js';
export type { LegacyFile, LegacyPruneOptions, LegacyPruneReport } from './registry/prune/legacy.js';
export { snapshot, writeSnapshot, SNAPSHOT_STRING_CAP } from './registry/snapshot.js';
export type { Snapshot, SnapshotSession } from './registry/snapshot.js';
export { Watcher } from './registry/watch/watch.js';
export { watch, HostsWatcher } from './hosts/watch-api.js';
export type { HostsWatchOptions } from './hosts/watch-api.js';
export type { WatchOptions } from './registry/watch/watch.js';
export type { WatchEvent, WatchEventType } from './registry/watch/diff.js';
export { readHosts, anyInteractive, LOCAL_HOST } from './hosts/read.js';
export type { HostScan, HostRecord, HostState, HostReadOptions } from './hosts/read.js';
export { watchHosts, HostWatcher } from './hosts/watch.js';
export type { HostWatchEvent, HostStateEvent, HostWatchOptions } from './hosts/watch.js';
