/**
 * The pure-JS twin of native/probe_linux.cc (and its decisions, native/linux_state.h): same order of
 * work, same answers. Speed comes from not throwing on the hot path: Node's `process.kill` throws an
 * Error for every dead PID (5–30 µs each), so the internal `process._kill`, which returns the errno
 * instead, is used where this Node has it. One stat buffer is reused for every PID.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { isExitedState, parseStatBytes } from '../proc/stat.js';
import {
  STATE_ALIVE,
  STATE_GONE,
  STATE_INVALID,
  STATE_UNVERIFIED,
  STATE_ZOMBIE,
  type ProbeBackend,
} from './types.js';
import { checkProbeArrays, killZero } from './kill.js';

/** The two system calls the probe makes: the seam a test uses to inject the answers of a race. */
export interface LinuxCalls {
  /** kill(pid, 0): true when the PID exists (success or EPERM), false on ESRCH. */
  killZero(pid: number): boolean;
  /** Reads /proc/<pid>/stat into buf: the byte count, or -1 when it cannot be read. */
  readStat(pid: number, buf: Buffer): number;
}

function readStat(pid: number, buf: Buffer): number {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
  } catch {
    return -1;
  }
  try {
    return readSync(fd, buf, 0, buf.length, null);
  } catch {
    return -1;
  } finally {
    closeSync(fd);
  }
}

const SYSTEM: LinuxCalls = { killZero, readStat };
const statBuf = Buffer.allocUnsafe(1024);

/** probeInto over the given calls (the real ones in jsLinuxBackend). */
export function linuxProbeInto(calls: LinuxCalls, pids: Int32Array, states: Uint8Array, tokens: Float64Array): void {
  checkProbeArrays(pids, states, tokens);
  for (let k = 0; k < pids.length; k++) {
    const pid = pids[k]!;
    tokens[k] = NaN;
    if (pid <= 0) {
      states[k] = STATE_INVALID;
      continue;
    }
    if (!calls.killZero(pid)) {
      states[k] = STATE_GONE;
      continue;
    }
    const length = calls.readStat(pid, statBuf);
    const fields = length > 0 ? parseStatBytes(statBuf, length) : undefined;
    if (!fields) {
      // kill said it exists, yet its stat cannot be read: hidepid or EPERM (it still exists), or it
      // exited and was reaped in between. Asking kill again tells the two apart.
      states[k] = calls.killZero(pid) ? STATE_UNVERIFIED : STATE_GONE;
      continue;
    }
    tokens[k] = fields.startTicks;
    states[k] = isExitedState(fields.stateCode) ? STATE_ZOMBIE : STATE_ALIVE;
  }
}

export const jsLinuxBackend: ProbeBackend = {
  name: 'js',
  tokenForm: 'ticks',
  probeInto(pids, states, tokens) {
    linuxProbeInto(SYSTEM, pids, states, tokens);
  },
};
