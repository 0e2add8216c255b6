/**
 * The pure-JS twin of native/probe_linux.cc: same order of work, same answers. `kill(pid, 0)` first
 * (kill.ts: the public process.kill, without capturing a stack for the Error a dead PID throws), then
 * `/proc/<pid>/stat` for the state and the start token. One stat buffer is reused for every PID.
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

const statBuf = Buffer.allocUnsafe(1024);

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

function readStat(pid: number): number {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
  } catch {
    return -1;
  }
  try {
    return readSync(fd, statBuf, 0, statBuf.length, null);
  } catch {
    return -1;
  } finally {
    closeSync(fd);
  }
}

export const jsLinuxBackend: ProbeBackend = {
  name: 'js',
  tokenForm: 'ticks',
  probeInto(pids, states, tokens) {
    checkProbeArrays(pids, states, tokens);
    const tokensReadable = procIsOurs();
    for (let k = 0; k < pids.length; k++) {
      const pid = pids[k]!;
      tokens[k] = NaN;
      if (pid <= 0) {
        states[k] = STATE_INVALID;
        continue;
      }
      if (!killZero(pid)) {
        states[k] = STATE_GONE;
        continue;
      }
      const length = tokensReadable ? readStat(pid) : -1;
      const fields = length > 0 ? parseStatBytes(statBuf, length) : undefined;
      if (!fields) {
        states[k] = STATE_UNVERIFIED;
        continue;
      }
      tokens[k] = fields.startTicks;
      states[k] = isExitedState(fields.stateCode) ? STATE_ZOMBIE : STATE_ALIVE;
    }
  },
};
