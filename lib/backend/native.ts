/** The compiled addon behind the common ProbeBackend contract. */
import type { NativeAddon } from './load.js';
import type { ProbeBackend } from './types.js';

export function nativeBackend(addon: NativeAddon): ProbeBackend {
  return {
    name: 'native',
    // The addon returns ticks on Linux, epoch seconds on macOS (formatted as lstart text) and the
    // creation FILETIME's bits on Windows.
    tokenForm: process.platform === 'darwin' ? 'lstart' : process.platform === 'win32' ? 'filetime' : 'ticks',
    probeInto(pids, states, tokens) {
      addon.probe(pids, states, tokens);
    },
  };
}
