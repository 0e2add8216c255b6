/**
 * What the real-Claude-Code test files share: whether Claude Code is here (from the global setup), the
 * built CLI run against a lab's config dir, the official reader's view in our terms, and a phantom
 * whose PID a process of ours now holds.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { builtCli, cliEnv, removeCopy, runCli, type Ran } from '../cli/run-cli.js';
import { spawnSleep, type Spawned } from '../helpers/processes.js';
import { openLab, type AgentEntry, type Lab } from './lab.js';

export const claudeCode = inject('claudeCode');

/** A describe that runs only where Claude Code and tmux are (the setup printed why not, else). */
export function describeWithClaude(name: string, body: () => void): void {
  if (claudeCode.ok) describe(name, body);
  else describe.skip(`${name} (skipped: ${claudeCode.reason})`, body);
}

export interface Harness {
  lab: Lab;
  /** The built CLI with `--config-dir <lab>` appended. */
  cps(...args: string[]): Ran;
  /** The built CLI on another config dir. */
  cpsIn(configDir: string, ...args: string[]): Ran;
  /** The CLI's path (for spawning `watch`). */
  cli: string;
  /** Processes of ours the test started beside the lab (ended in afterAll). */
  own: Spawned[];
}

/** Opens a lab and the CLI in beforeAll, closes both in afterAll (also when a test failed). */
export function useHarness(): Harness {
  const h = { own: [] as Spawned[] } as unknown as Harness;
  beforeAll(async () => {
    if (!claudeCode.ok) return;
    h.cli = await builtCli();
    h.lab = await openLab(claudeCode.binary);
    h.cpsIn = (configDir, ...args) => runCli(h.cli, [...args, '--config-dir', configDir], { env: cliEnv() });
    h.cps = (...args) => h.cpsIn(h.lab.configDir, ...args);
  });
  afterAll(async () => {
    for (const p of h.own) await p.end();
    await h.lab?.close();
    if (h.cli) removeCopy(h.cli);
  });
  return h;
}

/** The fields both readers report, in one shape: ours from `list --json`, theirs from `claude agents --json`. */
export interface Seen {
  pid: number;
  sessionId: string | undefined;
  cwd: string | undefined;
  kind: string | undefined;
  status: string | undefined;
  waitingFor: string | undefined;
  name: string | undefined;
  startedAt: number | undefined;
}

interface ListedRecord {
  pid: number;
  sessionId: string;
  cwd: string | null;
  kind: string;
  interactive: boolean;
  status: string | null;
  waitingFor: string | null;
  name: string | null;
  startedAt: number | null;
  verdict: string;
  live: boolean;
}

const byPid = (a: Seen, b: Seen) => a.pid - b.pid;

/** `list --json` (live records) in the official reader's terms: kind `bg` → `background`. */
export function ours(h: Harness, ...flags: string[]): Seen[] {
  const r = h.cps('list', '--json', ...flags);
  if (r.status !== 0) throw new Error(`list --json exited ${r.status}: ${r.stderr}`);
  return (JSON.parse(r.stdout).records as ListedRecord[])
    .map((x) => ({
      pid: x.pid,
      sessionId: x.sessionId,
      cwd: x.cwd ?? undefined,
      kind: x.kind === 'bg' ? 'background' : x.kind,
      status: x.status ?? undefined,
      waitingFor: x.waitingFor ?? undefined,
      name: x.name ?? undefined,
      startedAt: x.startedAt ?? undefined,
    }))
    .sort(byPid);
}

export function listedAll(h: Harness): ListedRecord[] {
  const r = h.cps('list', '--json', '--all');
  if (r.status !== 0) throw new Error(`list --json --all exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout).records as ListedRecord[];
}

export function theirs(agents: AgentEntry[]): Seen[] {
  return agents
    .map((a) => ({
      pid: a.pid,
      sessionId: a.sessionId,
      cwd: a.cwd,
      kind: a.kind,
      status: a.status,
      waitingFor: a.waitingFor,
      name: a.name,
      startedAt: a.startedAt,
    }))
    .sort(byPid);
}

/**
 * Both views at one moment: ours, theirs, ours again, until the two of ours agree (a session may change
 * state between the calls; then the comparison is retried, a bounded number of times).
 */
export function bothViews(h: Harness): { ours: Seen[]; theirs: Seen[] } {
  let last: { ours: Seen[]; theirs: Seen[] } | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = ours(h);
    const official = theirs(h.lab.agents());
    const after = ours(h);
    last = { ours: after, theirs: official };
    if (JSON.stringify(before) === JSON.stringify(after)) return last;
  }
  return last!;
}

/**
 * A phantom whose PID was reused: a real record of `from` (a session of this lab), rewritten for the
 * PID of a `sleep` of ours, so its `procStart` is another process's start token. The file is what the
 * real writer wrote, but for the `pid`.
 */
export function recycledPhantom(h: Harness, fromFile: string): { pid: number; file: string } {
  const sleeper = spawnSleep(600);
  h.own.push(sleeper);
  const record = JSON.parse(readFileSync(fromFile, 'utf8')) as Record<string, unknown>;
  const file = join(h.lab.sessionsDir, `${sleeper.pid}.json`);
  writeFileSync(file, JSON.stringify({ ...record, pid: sleeper.pid }));
  return { pid: sleeper.pid, file };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
