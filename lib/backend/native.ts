/** The compiled addon behind the common ProbeBackend contract. */
import type { NativeAddon } from './load.js';
import type { ProbeBackend } from './types.js';

export function nativeBackend(addon: NativeAddon): ProbeBackend {
  return {
    name: 'native',
    // The addon returns ticks on Linux and epoch seconds on macOS (formatted as lstart text).
    tokenForm: process.platform === 'darwin' ? 'lstart' : 'ticks',
    probeInto(pids, states, tokens) {
      addon.probe(pids, states, tokens);
    },
  };
}
