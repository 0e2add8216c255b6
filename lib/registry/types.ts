/** The shapes of the registry API (docs/registry.md, docs/liveness.md). */

export type Verdict = 'alive' | 'unverified' | 'foreign' | 'gone' | 'recycled' | 'zombie';

/** Only these are provably dead: nothing else may be pruned or reported dead. */
export const DEAD_VERDICTS: ReadonlySet<Verdict> = new Set<Verdict>(['gone', 'recycled', 'zombie']);

/** Kinds that are not a human at a keyboard. Any other, missing or mistyped kind is interactive. */
export const BACKGROUND_KINDS: readonly string[] = Object.freeze(['bg', 'daemon', 'daemon-worker']);

export type SkipReason =
  | 'symlink'
  | 'not-regular'
  | 'too-large'
  | 'unparseable'
  | 'not-object'
  | 'pid-mismatch'
  | 'no-session-id'
  | 'unreadable';

/** A candidate `<pid>.json` that is not a record: never an error, never deleted. */
export interface SkippedCandidate {
  path: string;
  /** The PID in the file name. */
  pid: number;
  reason: SkipReason;
}

/** One claim from `<config_dir>/sessions/<pid>.json`, typed leniently and liveness-checked. Frozen. */
export interface SessionRecord {
  /** The file it was read from. */
  readonly path: string;
  readonly pid: number;
  readonly sessionId: string;
  /** The normalised recorded start token (`procStart`, else `procStartFt`), or undefined. */
  readonly token: string | undefined;
  readonly pidDomain: string | undefined;
  /** As written; `'interactive'` when absent or not a string. */
  readonly kind: string;
  readonly interactive: boolean;
  readonly verdict: Verdict;
  readonly live: boolean;
  readonly cwd: string | undefined;
  readonly startedAt: number | undefined;
  readonly procStart: string | undefined;
  readonly procStartFt: string | undefined;
  readonly version: string | undefined;
  readonly entrypoint: string | undefined;
  readonly name: string | undefined;
  readonly status: string | undefined;
  readonly waitingFor: string | undefined;
  readonly updatedAt: number | undefined;
  readonly statusUpdatedAt: number | undefined;
  readonly messagingSocketPath: string | undefined;
  readonly bridgeSessionId: string | undefined;
  readonly tmux: string | undefined;
  /** The whole parsed document. */
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface ScanResult {
  records: SessionRecord[];
  skipped: SkippedCandidate[];
}

/** One config dir, several, or nothing (the default: CLAUDE_CONFIG_DIR, else ~/.claude). */
export type ConfigDirs = string | readonly string[] | undefined;

export interface ReadOptions {
  /** Pause before the one re-read of an empty or unparseable file, in ms (default 25, as Claude Code). */
  retryDelayMs?: number;
  /** Environment for the default config dir (default process.env). */
  env?: NodeJS.ProcessEnv;
}
