/** `kill(pid, 0)` from JS, and the argument checks every backend shares. */

type RawKill = (pid: number, signal: number) => number;

// Node's own `process.kill` is a thin wrapper that turns this errno return into a thrown Error.
// Using it directly avoids an exception per dead PID; any other Node falls back to try/catch.
const rawKill: RawKill | undefined =
  typeof (process as unknown as { _kill?: unknown })._kill === 'function'
    ? ((process as unknown as { _kill: RawKill })._kill.bind(process) as RawKill)
    : undefined;

// libuv returns negated errno values; ESRCH is 3 on Linux and macOS.
const UV_ESRCH = -3;

/**
 * True when a process (or thread) with this PID exists: kill succeeded or failed with EPERM.
 * Only ESRCH means it does not exist. The caller guarantees 0 < pid ≤ 2^31-1.
 */
export function killZero(pid: number): boolean {
  return rawKill !== undefined ? rawKill(pid, 0) !== UV_ESRCH : killZeroPortable(pid);
}

/** The same answer through the public API, for a Node without process._kill. */
export function killZeroPortable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
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
