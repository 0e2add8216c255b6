/** Records of live processes of our own, written as Claude Code writes them, for the `top` and `notify` tests. */
import { procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';

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
