/**
 * Which records the kernel watches for the watcher (docs/watch.md): a live, local record gets an exit
 * handle while fewer than `budget` are held; the others are re-probed every interval. A handle is
 * released when its record dies, is removed or names another process, and on close(). Opening a handle
 * proves nothing by itself (the PID may have been recycled just before): the caller re-probes every
 * path `sync` returns, and a handle counts only while that probe still finds the recorded process.
 */
import { exitWatch, type ExitWatch } from '../../backend/exits.js';
import { PID_MAX } from '../verdict.js';
import type { SessionRecord } from '../types.js';
import type { FileState } from './files.js';

/** Open failures that say nothing of the process: descriptors or memory ran out for now. */
const TRANSIENT = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'EAGAIN']);

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
  /** Paths whose open failed (EPERM, ESRCH...), with the token tried: not tried again until it changes. */
  private readonly refused = new Map<string, string | undefined>();
  /** An open failed for want of descriptors or memory: passing, so sync tries again at the next tick. */
  private starved = false;
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

  /** True when records wait for a handle only because descriptors ran out: the next tick should sync. */
  get wantsRetry(): boolean {
    return this.starved && !this.closed;
  }

  get size(): number {
    return this.held.size;
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
    }
    for (const [path, token] of this.refused) if (files.get(path)?.record?.token !== token) this.refused.delete(path);
    this.starved = false;
    if (this.budget === 0 || this.held.size >= this.budget) return [];
    const kernel = this.kernelWatch();
    if (kernel === undefined) return [];
    const opened: string[] = [];
    for (const [path, state] of files) {
      if (this.held.size >= this.budget) break;
      const record = state.record;
      if (!wantsHandle(record) || this.held.has(path) || this.refused.has(path)) continue;
      const key = kernel.open(record.pid);
      if (typeof key === 'string' && TRANSIENT.has(key)) {
        // A descriptor limit says nothing of this record: the next opens would fail too, and a later
        // tick, once descriptors are free, tries again (it would otherwise stay on the probe for good).
        this.starved = true;
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

  release(path: string): void {
    const held = this.held.get(path);
    if (held === undefined) return;
    this.held.delete(path);
    this.byKey.delete(held.key);
    this.kernel?.release(held.key);
  }

  close(): void {
    this.closed = true;
    this.held.clear();
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
