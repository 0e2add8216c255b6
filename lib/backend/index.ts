/**
 * The backend facade: picks the native addon, the JS twin or `ps`, says which and why, and answers
 * the single-claim questions. The only importer of load.ts.
 */
import { formatLstart } from '../proc/lstart.js';
import { jsReadFiles, nativeReadFiles, type FileBatch, type ReadFiles } from './files.js';
import { nativeListFolder, type ListFolder } from './list-folder.js';
import { loadNativeAddon, type NativeAddon } from './load.js';
import { nativeBackend } from './native.js';
import { jsLinuxBackend } from './js-linux.js';
import { killOnlyBackend } from './kill-only.js';
import { psBackend } from './ps.js';
import {
  STATE_GONE,
  STATE_INVALID,
  STATE_NAMES,
  type BackendName,
  type ProbeBackend,
  type ProbeState,
} from './types.js';

export interface BackendInfo {
  name: BackendName;
  /** Why the native addon is not the one serving (absent when it is). */
  reason?: string;
}

export interface ProbeResult {
  pid: number;
  state: ProbeState;
  /** The current start token as Claude Code would record it, or null when unknown (always present). */
  token: string | null;
}

interface Selection {
  probe: ProbeBackend;
  /** The batch file reader that goes with it: the addon's, or the JS twin. */
  read: ReadFiles;
  /** The addon's one-call folder listing, when it serves and has one (else the registry lists in JS). */
  list?: ListFolder | undefined;
  info: BackendInfo;
  /** The addon, when it serves (kernel exit notification rides on it: lib/backend/exits.ts). */
  addon?: NativeAddon;
  /** The file the addon was loaded from, relative to the package root. */
  addonFile?: string;
}

let current: Selection | undefined;

function fallback(reason: string): Selection {
  if (process.platform === 'linux') return { probe: jsLinuxBackend, read: jsReadFiles, info: { name: 'js', reason } };
  // macOS has no procfs: without the addon, one `ps` spawn per batch gives the start times.
  if (process.platform === 'darwin') return { probe: psBackend, read: jsReadFiles, info: { name: 'ps', reason } };
  return {
    probe: killOnlyBackend,
    read: jsReadFiles,
    info: { name: 'js', reason: `${reason}; no start tokens on ${process.platform}` },
  };
}

function select(): Selection {
  const forced = process.env.CLAUDE_PS_BACKEND?.trim() ?? '';
  if (forced === 'js') {
    return process.platform === 'darwin'
      ? fallback('CLAUDE_PS_BACKEND=js (macOS has no procfs: ps serves)')
      : fallback('CLAUDE_PS_BACKEND=js');
  }
  if (forced === 'ps') return { probe: psBackend, read: jsReadFiles, info: { name: 'ps', reason: 'CLAUDE_PS_BACKEND=ps' } };
  if (forced !== '' && forced !== 'native') {
    throw new Error(`CLAUDE_PS_BACKEND must be one of native, js, ps (got ${JSON.stringify(forced)})`);
  }
  const loaded = loadNativeAddon();
  if (loaded.addon) {
    return {
      probe: nativeBackend(loaded.addon),
      read: nativeReadFiles(loaded.addon),
      list: nativeListFolder(loaded.addon),
      info: { name: 'native' },
      addon: loaded.addon,
      addonFile: loaded.file,
    };
  }
  if (forced === 'native') throw new Error(`CLAUDE_PS_BACKEND=native, but the addon cannot load: ${loaded.reason}`);
  return fallback(loaded.reason);
}

function selected(): Selection {
  return (current ??= select());
}

/** The backend that serves probes, and why it is not the native one when it is not. */
export function backend(): BackendInfo {
  return { ...selected().info };
}

/** The ProbeBackend in use (internal: the registry probes through it in one batch). */
export function probeBackend(): ProbeBackend {
  return selected().probe;
}

/**
 * Reads `names` inside `dir` in one batch with the selected backend's reader. Never throws for file
 * errors. `borrow` (see ReadFiles): the bytes are used up before the next read.
 */
export function readFiles(dir: string, names: readonly string[], maxBytes: number, borrow = false): FileBatch {
  return selected().read(dir, names, maxBytes, borrow);
}

/** The selected backend's one-call folder listing (lib/backend/list-folder.ts), or undefined: list in JS. */
export function folderLister(): ListFolder | undefined {
  return selected().list;
}

/** The loaded addon when the native backend serves, else undefined. */
export function servingAddon(): NativeAddon | undefined {
  return selected().addon;
}

/** The file the serving addon came from, relative to the package root (`doctor` shows it), else undefined. */
export function servingAddonFile(): string | undefined {
  return selected().addonFile;
}

/** Forgets the selected backend so the next call selects again (tests switch CLAUDE_PS_BACKEND). */
export function resetBackend(): void {
  current = undefined;
}

/** A numeric token from a backend → the string Claude Code would have recorded (not `filetime`: tokenAt). */
export function tokenString(form: ProbeBackend['tokenForm'], value: number): string | undefined {
  if (Number.isNaN(value)) return undefined;
  return form === 'lstart' ? formatLstart(value) : String(value);
}

/**
 * `tokens[k]` as filled by a backend's probeInto → the string Claude Code would have recorded. A
 * `filetime` slot holds 64 bits, read exactly as an integer: Claude Code writes the FILETIME in
 * decimal (`procStartFt`), and a double would round it to a multiple of 16.
 */
export function tokenAt(form: ProbeBackend['tokenForm'], tokens: Float64Array, k: number): string | undefined {
  if (form !== 'filetime') return tokenString(form, tokens[k]!);
  const bits = new BigUint64Array(tokens.buffer, tokens.byteOffset + k * 8, 1)[0]!;
  return bits === 0n ? undefined : bits.toString();
}

const INT32_MAX = 2147483647;

/**
 * Probes many PIDs in one backend call. Non-integers and PIDs ≤ 0 are `invalid` and never reach a
 * system call; PIDs above 2^31-1 cannot exist and are `gone`.
 */
export function probe(pids: ArrayLike<number>): ProbeResult[] {
  if (pids === null || typeof pids !== 'object' || typeof pids.length !== 'number') {
    throw new TypeError('probe(pids): pids must be an array of numbers');
  }
  const count = pids.length;
  const input = new Int32Array(count);
  const states = new Uint8Array(count);
  const tokens = new Float64Array(count);
  const preset = new Uint8Array(count); // 0: ask the backend, else the state decided here
  for (let i = 0; i < count; i++) {
    const pid = pids[i];
    if (typeof pid !== 'number') throw new TypeError(`probe(pids): pids[${i}] is not a number`);
    if (!Number.isInteger(pid) || pid <= 0) preset[i] = STATE_INVALID + 1;
    else if (pid > INT32_MAX) preset[i] = STATE_GONE + 1;
    else input[i] = pid;
  }
  const { probe: backendImpl } = selected();
  if (count > 0) backendImpl.probeInto(input, states, tokens);
  const results: ProbeResult[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const decided = preset[i]! > 0;
    results[i] = {
      pid: pids[i]!,
      state: STATE_NAMES[decided ? preset[i]! - 1 : states[i]!]!,
      token: decided ? null : (tokenAt(backendImpl.tokenForm, tokens, i) ?? null),
    };
  }
  return results;
}

/** True when a process with this PID exists now (kill(pid, 0) succeeds or says EPERM; zombies too). */
export function pidExists(pid: number): boolean {
  const [result] = probe([pid]);
  return result!.state !== 'gone' && result!.state !== 'invalid';
}

/** The current start token of this PID, as Claude Code would record it, or undefined. */
export function processStartToken(pid: number): string | undefined {
  return probe([pid])[0]!.token ?? undefined;
}
