/** "Does this PID exist" through Node's own kill, and the argument checks every backend shares. */
import { getSystemErrorMap } from 'node:util';

/** `process._kill`: what process.kill calls; it returns the libuv error code instead of throwing. */
type RawKill = (pid: number, signal: number) => number;

let rawKill: RawKill | undefined | null = null;
let esrchCode = 0;

/**
 * Node's raw kill and libuv's ESRCH code (-3 on Linux and macOS, another number on Windows), looked up
 * once. undefined where either is missing (a runtime without it): then the public process.kill serves.
 */
function rawKillOf(): RawKill | undefined {
  if (rawKill === null) {
    rawKill = undefined;
    const raw = (process as unknown as { _kill?: unknown })._kill;
    try {
      for (const [code, [name]] of getSystemErrorMap()) if (name === 'ESRCH') esrchCode = code;
    } catch {
      esrchCode = 0;
    }
    if (typeof raw === 'function' && esrchCode < 0) rawKill = raw.bind(process) as RawKill;
  }
  return rawKill;
}

/**
 * True when a process (or thread) with this PID exists: `kill(pid, 0)` succeeded or failed with
 * EPERM. Only ESRCH means it does not exist. The caller guarantees 0 < pid ≤ 2^31-1.
 *
 * `process.kill` throws an Error for every dead PID: 5–30 µs with its stack, ~2 µs without. So the
 * raw `process._kill` it is built on (undocumented, there since Node's first releases) is asked
 * first: it returns the libuv code, and a dead PID costs no Error at all (10–16 % of a JS-backend
 * scan at every N, bench/ab-scan.mjs). Where it is missing, the public call serves, without a stack.
 * Every JS backend asks here (js-linux.ts, ps.ts, kill-only.ts); the native one never does (the
 * addon calls kill itself).
 */
export function killZero(pid: number): boolean {
  const raw = rawKillOf();
  // The raw call answers a dead PID with a number: no Error built, thrown and caught per dead PID
  // (~4 µs, paid for the 70 % of a registry that is dead). Only ESRCH is "gone"; any other answer,
  // EPERM above all, says it exists, exactly as below.
  if (raw !== undefined) {
    const err = raw(pid, 0);
    if (typeof err === 'number') return err !== esrchCode;
  }
  return killZeroPublic(pid);
}

/** killZero through the public process.kill: where the runtime has no raw kill (and in the tests). */
export function killZeroPublic(pid: number): boolean {
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
