/** Records of live processes of our own, written as Claude Code writes them, for the `top` and `notify` tests. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { procStartTicks, spawnSleep, until, type Spawned } from '../helpers/processes.js';
import { sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import type { Tmux } from './tmux.js';

/** A record that reads `alive`: the PID of a sleep of ours, with its real start token. */
export function liveRecord(pid: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return sessionRecord(pid, { procStart: procStartTicks(pid), statusUpdatedAt: Date.now(), ...fields });
}

export interface Session {
  proc: Spawned;
  pid: number;
  file: string;
  /** Rewrites the record with these fields on top of the first ones (as Claude Code rewrites in place). */
  update(fields: Record<string, unknown>): void;
}

export function startSession(reg: RegistryFixture, fields: Record<string, unknown> = {}, proc: Spawned = spawnSleep()): Session {
  const base = liveRecord(proc.pid, fields);
  const file = reg.write(proc.pid, base);
  return {
    proc,
    pid: proc.pid,
    file,
    update(more) {
      reg.write(proc.pid, { ...base, statusUpdatedAt: Date.now(), ...more });
    },
  };
}

/**
 * A "session" in another window of the test's tmux server: a sleep whose controlling terminal is that
 * window's pane (what the jump key looks for). Resolves with its PID once it runs `sleep`.
 */
export async function sleeperInWindow(tmux: Tmux, target: string): Promise<number> {
  const pidFile = join(tmux.dir, 'other-pid');
  tmux.run('new-window', '-d', '-t', target, `sh -c 'echo $$ > ${pidFile}; exec sleep 300'`);
  await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 'the other pane');
  const pid = Number(readFileSync(pidFile, 'utf8'));
  await until(() => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep', 'the exec');
  return pid;
}
