/**
 * The library surface the CLI uses, in one place, imported from the modules that own each part (the
 * same functions lib/index.ts exports). The bundler keeps only what the commands use.
 */
export { backend, probe } from '../backend/index.js';
export { defaultConfigDir, sessionsDir } from '../registry/config.js';
export { scanRegistry, readRecords } from '../registry/scan.js';
export { liveRecords, liveInteractiveRecords, hasLiveInteractive } from '../registry/guards.js';
export { prune } from '../registry/prune.js';
export { snapshot, writeSnapshot } from '../registry/snapshot.js';
export { watch } from '../registry/watch.js';
export type { SessionRecord, SkippedCandidate, Verdict } from '../registry/types.js';
