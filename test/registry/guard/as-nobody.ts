/**
 * Runs a registry reader or the built CLI as the user nobody (setpriv), for the folders root can read
 * and nobody cannot. Only root can make those (a folder of another owner), so callers skip otherwise.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cliEnv, type Ran } from '../../cli/run-cli.js';

export const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
export const READERS = [
  'hasLiveInteractive', 'hasLiveInteractiveAsync', 'liveInteractiveRecords', 'liveInteractiveRecordsAsync',
  'liveRecords', 'liveRecordsAsync', 'readRecords', 'readRecordsAsync', 'scanRegistry', 'scanRegistryAsync',
] as const;
export type Answer = { value: unknown } | { error: { typed: boolean; name: string; code: string; reason: string; path: string; message: string } };
export type Answers = { uid: number } & Record<(typeof READERS)[number], Answer>;

const SCRIPT = fileURLToPath(new URL('./fixtures/readers-as-user.mjs', import.meta.url));

/** Every reader's answer (or error) about `configDirs`, asked as nobody under backend `backendName`. */
export function readersAsNobody(backendName: string, configDirs: string[]): Answers {
  const r = spawnSync('setpriv', [...NOBODY, process.execPath, SCRIPT, ...configDirs], {
    encoding: 'utf8',
    env: cliEnv({ CLAUDE_PS_BACKEND: backendName }),
    timeout: 30_000,
  });
  if (r.status !== 0 || r.stderr !== '') throw new Error(`readers-as-user failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The built CLI as nobody. */
export function cliAsNobody(cli: string, args: string[], env: NodeJS.ProcessEnv = cliEnv()): Ran {
  const r = spawnSync('setpriv', [...NOBODY, process.execPath, cli, ...args], { encoding: 'utf8', env, timeout: 30_000 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}
