/**
 * Which records the kernel watches for the watcher (docs/watch.md): a live, local record gets an exit
 * handle while fewer than `budget` are held; the others are re-probed every interval. A handle is
 * released when its record dies, is removed or names another process, and on close(). Opening a handle
 * proves nothing by itself (the PID may have been recycled just before): the caller re-probes every
 * path `sync` returns, and a handle counts only while that probe still finds the recorded process.
 */
import { descriptorsFree, exitWatch, openFileLimit, type ExitWatch, type FileLimit } from '../../backend/exits.js';
import { PID_MAX } from '../verdict.js';
import type { SessionRecord } from '../types.js';
import type { FileState } from './files.js';

/** Open failures that say nothing of the process: descriptors or memory ran out for now. */
const TRANSIENT = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'EAGAIN']);

/** Handles the ceiling grows back by per interval after descriptors ran out. */
const GROWTH = 4;

/** Descriptors the host process keeps whatever its limit: its own files, sockets, the registry reads. */
export const DESCRIPTOR_RESERVE = 32;

/**
 * How many exit handles may be held: `requested`, but at most half of what the soft RLIMIT_NOFILE
 * leaves after DESCRIPTOR_RESERVE (64 → 16, 1024 → 496), so that handles never take the descriptors
 * the host needs to read a file (docs/watch.md). An unknown limit leaves `requested`.
 */
export function exitHandleBudget(requested: number, limit: FileLimit | undefined): number {
  if (limit === undefined || !Number.isFinite(limit.soft)) return requested;
  return Math.min(requested, Math.max(0, Math.floor((limit.soft - DESCRIPTOR_RESERVE) / 2)));
}

interface Held {
  key: number;
  /** The recorded start token the handle was opened for: another token is another process. */
  token: string | undefined;
}

function wantsHandle(record: SessionRecord | undefined): record is SessionRecord {
  // Foreign records are never probed, dead ones have nothing left to report.
  return record !== undefined && record.live && record.verdict !== 'foreign' && record.pid <= PID_MAX;
}

export class ExitTracker {
  private kernel: ExitWatch | undefined | null = null; // null: not asked yet
  private readonly held = new Map<string, Held>();
  private readonly byKey = new Map<number, string>();
  private readonly unsure = new Set<string>();
  /** Paths whose open failed (EPERM, ESRCH...), with the token tried: not tried again until it changes. */
  private readonly refused = new Map<string, string | undefined>();
  /** An open failed for want of descriptors or memory: passing, so sync tries again at the next tick. */
  private starved = false;
  /** Lowered when descriptors ran out (half of what was held then); Infinity once grown back to the budget. */
  private ceiling = Infinity;
  private closed = false;

  /** `onExit(path)`: the process recorded at `path` has exited (re-probe it now). */
  constructor(
    private readonly budget: number,
    private readonly onExit: (path: string) => void,
  ) {}

  /** True when the record at `path` is watched by the kernel (so the interval probe skips it). */
  has(path: string): boolean {
    return this.held.has(path);
  }

  /** True when records may wait for a handle only because descriptors ran out: the next tick should sync. */
  get wantsRetry(): boolean {
    return (this.starved || this.ceiling !== Infinity) && !this.closed;
  }

  get size(): number {
    return this.held.size;
  }

  /**
   * Held records whose last probe could not verify them (it ran out of descriptors, say, right as the
   * handle was opened): the kernel would report their exit, but not their return to `alive`, so the
   * interval probe looks at them too.
   */
  get unverified(): ReadonlySet<string> {
    return this.unsure;
  }

  /** Descriptors open now, including ones still being closed (tests: nothing leaks). */
  get descriptors(): number {
    return this.kernel ? this.kernel.size : 0;
  }

  /**
   * Releases the handles of records that died, went or changed process; opens handles for live records
   * that lack one, within the budget. Returns the paths opened now, for the caller's re-probe.
   */
  sync(files: ReadonlyMap<string, FileState>): string[] {
    if (this.closed) return [];
    for (const [path, held] of this.held) {
      const record = files.get(path)?.record;
      if (!wantsHandle(record) || record.token !== held.token) this.release(path);
      else if (record.verdict === 'unverified') this.unsure.add(path);
      else this.unsure.delete(path);
    }
    for (const [path, token] of this.refused) if (files.get(path)?.record?.token !== token) this.refused.delete(path);
    // After descriptors ran out, the ceiling grows back by GROWTH handles per sync (each interval),
    // and only while twice that many descriptors are free: the host's own files come first.
    if (this.ceiling !== Infinity && descriptorsFree(2 * GROWTH)) {
      this.ceiling += GROWTH;
      if (this.ceiling >= this.budget) this.ceiling = Infinity;
    }
    this.starved = false;
    if (this.budget === 0 || this.held.size >= Math.min(this.budget, this.ceiling)) return [];
    const kernel = this.kernelWatch();
    if (kernel === undefined) return [];
    // Read at every sync that may open: the host may lower its own limit while the watcher runs.
    const budget = Math.min(exitHandleBudget(this.budget, openFileLimit()), this.ceiling);
    const opened: string[] = [];
    for (const [path, state] of files) {
      if (this.held.size >= budget) break;
      const record = state.record;
      if (!wantsHandle(record) || this.held.has(path) || this.refused.has(path)) continue;
      const key = kernel.open(record.pid);
      if (typeof key === 'string' && TRANSIENT.has(key)) {
        // A descriptor limit says nothing of this record: the next opens would fail too, and a later
        // tick, once descriptors are free, tries again (it would otherwise stay on the probe for good).
        this.starved = true;
        this.giveBack();
        break;
      }
      if (typeof key === 'string') {
        // ESRCH: the process is gone; the caller's re-probe reports it now.
        this.refused.set(path, record.token);
      } else {
        this.held.set(path, { key, token: record.token });
        this.byKey.set(key, path);
      }
      opened.push(path);
    }
    return opened;
  }

  /**
   * Descriptors ran out (this process's table, or the system's): half the handles held are released
   * so the host can open its files again, and the ceiling is what is left (growing back by GROWTH
   * per interval while twice as many descriptors are free). The records released are re-probed every interval instead; nothing about them is
   * concluded.
   */
  private giveBack(): void {
    this.ceiling = Math.floor(this.held.size / 2);
    for (const path of [...this.held.keys()].slice(this.ceiling)) this.release(path);
  }

  /** The most handles this tracker will hold now (its budget, lowered under descriptor pressure). */
  get limit(): number {
    return Math.min(exitHandleBudget(this.budget, openFileLimit()), this.ceiling);
  }

  release(path: string): void {
    const held = this.held.get(path);
    if (held === undefined) return;
    this.held.delete(path);
    this.unsure.delete(path);
    this.byKey.delete(held.key);
    this.kernel?.release(held.key);
  }

  close(): void {
    this.closed = true;
    this.held.clear();
    this.unsure.clear();
    this.byKey.clear();
    this.refused.clear();
    this.kernel?.close();
  }

  private kernelWatch(): ExitWatch | undefined {
    if (this.kernel === null) {
      this.kernel = exitWatch((key) => {
        const path = this.byKey.get(key);
        if (path === undefined) return;
        this.release(path);
        this.onExit(path);
      });
    }
    return this.kernel;
  }
}
