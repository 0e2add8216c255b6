/**
 * The contract every backend (native addon, pure JS, `ps`) fulfils. Backends only measure: they say
 * whether a PID exists, whether it is a zombie, and what its start token is, as plain numbers in
 * caller-allocated typed arrays. Every decision (verdicts, policy) lives in lib/registry.
 */

/** Probe states as stored in the `states` array. The numbering is shared with native/probe.h. */
export const STATE_INVALID = 0;
export const STATE_GONE = 1;
export const STATE_ALIVE = 2;
export const STATE_UNVERIFIED = 3;
export const STATE_ZOMBIE = 4;

export type ProbeStateCode = 0 | 1 | 2 | 3 | 4;
export type ProbeState = 'invalid' | 'gone' | 'alive' | 'unverified' | 'zombie';

export const STATE_NAMES: readonly ProbeState[] = ['invalid', 'gone', 'alive', 'unverified', 'zombie'];

/**
 * How a backend's numeric tokens become the strings Claude Code records:
 * - `ticks`: Linux `/proc/<pid>/stat` field 22, clock ticks since boot, written as a decimal integer;
 * - `lstart`: the start time in whole epoch seconds, written as `ps -o lstart=` text in UTC;
 * - `filetime`: Windows, the creation FILETIME; the slot holds its 64 bits (read through a
 *   BigUint64Array over the same memory, since a FILETIME is past 2^53), 0 when unknown.
 */
export type NumericTokenForm = 'ticks' | 'lstart' | 'filetime';

export type BackendName = 'native' | 'js' | 'ps';

export interface ProbeBackend {
  readonly name: BackendName;
  readonly tokenForm: NumericTokenForm;
  /**
   * For each `pids[i]`, writes `states[i]` (a STATE_* code) and `tokens[i]` (the start token as a
   * number, NaN when there is none). Arrays must be at least `pids.length` long. Never throws for
   * any PID value; throws only for programmer errors (wrong array types or lengths).
   */
  probeInto(pids: Int32Array, states: Uint8Array, tokens: Float64Array): void;
}

/** Result of reading candidate files in one batch (see ReadBackend). */
export const READ_OK = 0;
export const READ_MISSING = 1;
export const READ_SYMLINK = 2;
export const READ_NOT_REGULAR = 3;
export const READ_TOO_LARGE = 4;
export const READ_UNREADABLE = 5;
