/**
 * The pure-JS twin of native/probe_linux.cc: same order of work, same answers.
 *
 * Existence comes from procfs, not from `process.kill`: Node's public kill throws an Error for every
 * dead PID (5–30 µs each), and a registry is mostly dead PIDs. `/proc/<pid>` exists exactly when
 * `kill(pid, 0)` would not say ESRCH — for a thread ID too, which procfs resolves though it does not
 * list it, as kill does — provided this /proc belongs to our PID namespace and hides nothing. Under
 * `hidepid` an absent directory proves nothing, so kill decides (the conservative answer, at the slow
 * price). A /proc of another PID namespace (or none) numbers other processes: kill decides existence
 * and no start token is read from it, so such PIDs are `unverified`, never `recycled`.
 * One stat buffer is reused for every PID.
 */
import { closeSync, existsSync, openSync, readFileSync, readlinkSync, readSync } from 'node:fs';
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

/**
 * True when the top mount at /proc is a procfs without `hidepid` (hidepid=1/noaccess still shows the
 * directories, but 2/invisible and 4/ptraceable remove them; any value but 0/off is treated alike).
 * Exported for the tests, which feed it mountinfo text of hidepid mounts.
 */
export function procMountShowsAll(mountinfo: string): boolean {
  let showsAll = false;
  for (const line of mountinfo.split('\n')) {
    const fields = line.split(' ');
    if (fields[4] !== '/proc') continue;
    // Fields after the " - " separator: filesystem type, source, super options (where hidepid is).
    const dash = fields.indexOf('-', 6);
    const type = fields[dash + 1];
    const options = `${fields[5] ?? ''},${fields[dash + 3] ?? ''}`.split(',');
    // Mounts over /proc stack: the last one listed is the one paths resolve in.
    showsAll =
      dash > 0 && type === 'proc' && !options.some((o) => o.startsWith('hidepid=') && o !== 'hidepid=0' && o !== 'hidepid=off');
  }
  return showsAll;
}

/** What this process's /proc can answer: `all`, `tokens` (hidepid: not absence) or `nothing`. */
export type ProcfsTrust = 'all' | 'tokens' | 'nothing';

function readProcfsTrust(): ProcfsTrust {
  try {
    // /proc/self names our PID as our own namespace numbers it only in a /proc of that namespace.
    if (readlinkSync('/proc/self') !== String(process.pid)) return 'nothing';
  } catch {
    return 'nothing';
  }
  try {
    return procMountShowsAll(readFileSync('/proc/self/mountinfo', 'latin1')) ? 'all' : 'tokens';
  } catch {
    return 'tokens';
  }
}

let trust: ProcfsTrust | undefined;

/** Decided once per process (~0.1 ms), on the first probe. */
export function procfsTrust(): ProcfsTrust {
  return (trust ??= readProcfsTrust());
}

function readStat(dir: string): number {
  let fd: number;
  try {
    fd = openSync(`${dir}/stat`, 'r');
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
    const answers = procfsTrust();
    for (let k = 0; k < pids.length; k++) {
      const pid = pids[k]!;
      tokens[k] = NaN;
      if (pid <= 0) {
        states[k] = STATE_INVALID;
        continue;
      }
      const dir = `/proc/${pid}`;
      if (answers === 'nothing') {
        states[k] = killZero(pid) ? STATE_UNVERIFIED : STATE_GONE;
        continue;
      }
      // existsSync never throws: a dead PID costs one failed lookup, no Error object.
      if (!existsSync(dir) && (answers === 'all' || !killZero(pid))) {
        states[k] = STATE_GONE;
        continue;
      }
      const length = readStat(dir);
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
