/** The driver's shapes: what a test asks for (SessionSpec, LabOptions) and what it gets (Lab, Session). */

export type Status = 'idle' | 'busy' | 'waiting' | 'shell';

export interface SessionSpec {
  name: string;
  /** `bg` sets CLAUDE_CODE_SESSION_KIND=bg, as a background spawn of Claude Code does. */
  kind?: 'interactive' | 'bg';
  /** Default `default`, so the Bash tool asks for approval (status `waiting`). */
  permissionMode?: string;
  args?: string[];
  env?: Record<string, string>;
}

export interface Session {
  readonly name: string;
  readonly pid: number;
  readonly cwd: string;
  readonly kind: 'interactive' | 'bg' | 'print' | 'job';
  /** The session's record file, `<config>/sessions/<pid>.json`. */
  readonly file: string;
  /** Types text and Enter: `SLOW <ms> …` keeps it busy that long; `TOOL` makes it wait for approval. */
  send(text: string): Promise<void>;
  /** Answers the permission prompt with its first option ("Yes"); resolves once it is no longer waiting. */
  approve(timeoutMs?: number): Promise<void>;
  /** Resolves with the record once its status is `status` (or the file is gone, for 'gone'). */
  waitFor(status: Status | 'gone', timeoutMs?: number): Promise<Record<string, unknown> | null>;
  /** Resolves with the record once `check` accepts it (null: no readable record). */
  waitUntil(check: (record: Record<string, unknown> | null) => boolean, what: string, timeoutMs?: number): Promise<Record<string, unknown> | null>;
  /** One whole turn from idle: send the prompt, see it start, approve it if asked, back to idle. */
  turn(prompt: string, options?: { approve?: boolean }): Promise<void>;
  /** Sends a signal, but only while the PID still carries this lab's marker. */
  signal(signal: NodeJS.Signals): void;
  /** The record as it is on disk now, or null. */
  record(): Record<string, unknown> | null;
  /** What the terminal shows (for failure messages). */
  screen(): string;
}

export interface Lab {
  /** The temp folder holding everything: config dir, tmux socket, home, cwds. */
  readonly root: string;
  /** The Claude Code config dir (CLAUDE_CONFIG_DIR) of every session. */
  readonly configDir: string;
  readonly sessionsDir: string;
  readonly binary: string;
  /** The environment claude runs in here (for running other claude commands yourself). */
  readonly env: NodeJS.ProcessEnv;
  /** Starts sessions in parallel; resolves once each has written its record. */
  start(...specs: Array<SessionSpec | string>): Promise<Session[]>;
  /** `claude -p PROMPT`, which registers while it runs (kind interactive, entrypoint sdk-cli). */
  print(prompt: string, kind?: 'bg'): Promise<Session>;
  /**
   * `claude --bg PROMPT`: a background job run by Claude Code's daemon (kind bg, with a `jobId`);
   * resolves once its record exists. `close()` stops the daemon.
   */
  background(prompt: string): Promise<Session>;
  /** `claude agents --json`, the official reader, on this config dir. */
  agents(): AgentEntry[];
  /** Runs `claude agents --json` once and returns its wall time in ms (for the speed comparison). */
  timeAgents(): number;
  /**
   * Sets (or, with null, removes) the `statusLine` command of every session in the config dir's
   * settings.json, as the claude-lab's `--statusline` does; sessions started afterwards render it.
   */
  statusLine(command: string | null, extra?: { refreshInterval?: number }): void;
  /** Every process this lab started that is still running (marker in its environment). */
  processes(): number[];
  /** Ends everything by PID (SIGTERM, then SIGKILL), stops tmux and the mock, removes `root`. */
  close(): Promise<void>;
}

/** One entry of `claude agents --json` (2.1.332). */
export interface AgentEntry {
  pid: number;
  cwd?: string;
  kind?: string;
  startedAt?: number;
  sessionId?: string;
  name?: string;
  status?: string;
  waitingFor?: string;
  id?: string;
  state?: string;
  [key: string]: unknown;
}

export interface LabOptions {
  /**
   * Let Claude Code sweep dead records itself where it would (not in a container; default false: the
   * lab sets IS_SANDBOX=yes, so phantoms stay whatever machine runs the suite).
   */
  claudeSweeps?: boolean;
}
