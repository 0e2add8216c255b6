/**
 * The backend for platforms with neither procfs nor a known start-time source: existence only, by
 * `kill(pid, 0)`. Every existing PID is `unverified`, so records degrade to PID existence and nothing
 * is ever called recycled.
 */
import { STATE_GONE, STATE_INVALID, STATE_UNVERIFIED, type ProbeBackend } from './types.js';
import { checkProbeArrays, killZero } from './kill.js';

export const killOnlyBackend: ProbeBackend = {
  name: 'js',
  tokenForm: 'ticks',
  probeInto(pids, states, tokens) {
    checkProbeArrays(pids, states, tokens);
    for (let k = 0; k < pids.length; k++) {
      const pid = pids[k]!;
      tokens[k] = NaN;
      states[k] = pid <= 0 ? STATE_INVALID : killZero(pid) ? STATE_UNVERIFIED : STATE_GONE;
    }
  },
};
