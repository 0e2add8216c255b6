/**
 * The pure-JS twin of native/probe_linux.cc (and its decisions, native/linux_state.h): same order of
 * work, same answers. `kill(pid, 0)` first (kill.ts: the public process.kill, without capturing a
 * stack for the Error a dead PID throws), then `/proc/<pid>/stat` for the state and the start token.
 * One stat buffer is reused for every PID.
 *
 * A /proc of another PID namespace (`unshare --pid` without remounting it), or none, numbers other
 * processes than kill does: no token is read from it, so such PIDs are `unverified`, never `recycled`.
 */
import { closeSync, openSync, readlinkSync, readSync } from 'node:fs';
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

let procOurs: boolean | undefined;

/**
 * True when /proc is of our PID namespace: /proc/self names our PID as our own namespace numbers it
 * only in a /proc mounted for that namespace. Decided once per process, on the first probe.
 */
export function procIsOurs(): boolean {
  if (procOurs === undefined) {
    try {
      procOurs = readlinkSync('/proc/self') === String(process.pid);
    } catch {
      procOurs = false;
    }
  }
  return procOurs;
}

function readStat(pid: number, buf: Buffer): number {
  if (!procIsOurs()) return -1;
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
/** Where /proc/<pid>/stat is read: made at the first JS probe (a process the addon serves never needs it, nor Node's buffer pool). */
let statBuf: Buffer | undefined;

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
    const buf = (statBuf ??= Buffer.allocUnsafe(1024));
    const length = calls.readStat(pid, buf);
    const fields = length > 0 ? parseStatBytes(buf, length) : undefined;
    if (!fields) {
      // kill said it exists, yet its stat cannot be read: hidepid or EPERM (it still exists), another
      // namespace's /proc, or it exited and was reaped in between. Asking kill again tells them apart.
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
