/** "Does this PID exist" through Node's public API, and the argument checks every backend shares. */

/**
 * True when a process (or thread) with this PID exists: `kill(pid, 0)` succeeded or failed with
 * EPERM. Only ESRCH means it does not exist. The caller guarantees 0 < pid ≤ 2^31-1.
 *
 * `process.kill` throws an Error for every dead PID, and capturing its stack costs most of the
 * 5–30 µs it takes: the Error is only read for its code, so no stack is captured (~2 µs). Every JS
 * backend asks here (js-linux.ts, ps.ts, kill-only.ts); the native one never does (the addon calls
 * kill itself).
 */
export function killZero(pid: number): boolean {
  const limit = Error.stackTraceLimit;
  const unlimited = setStackTraceLimit(0);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  } finally {
    if (unlimited) setStackTraceLimit(limit);
  }
}

/** False where Error.stackTraceLimit cannot be set (a frozen Error): then stacks are captured as usual. */
function setStackTraceLimit(value: number): boolean {
  try {
    Error.stackTraceLimit = value;
    return true;
  } catch {
    return false;
  }
}

export function checkProbeArrays(pids: unknown, states: unknown, tokens: unknown): void {
  if (!(pids instanceof Int32Array) || !(states instanceof Uint8Array) || !(tokens instanceof Float64Array)) {
    throw new TypeError('probe(pids: Int32Array, states: Uint8Array, tokens: Float64Array)');
  }
  if (states.length < pids.length || tokens.length < pids.length) {
    throw new RangeError('probe: output arrays are shorter than the PID array');
  }
}
