/**
 * watch (docs/watch.md): a live view of the registry for pollers, reported as events.
 *
 * - File events come from the OS (watch-dirs.ts); they only mark files or folders to look at. A short
 *   debounce later the marked files are re-read (one batch per folder) and diffed.
 * - Every `interval`, liveness of every record is re-probed in ONE batch (judgeVerdicts): no file I/O.
 *   Dead records are probed too, so the view stays what readRecords would say (a reaped zombie turns
 *   `gone`, a reused PID `recycled`: `changed` events, since neither is a new death).
 *   Every `rescanEvery`-th interval, and every interval for a folder the OS does not watch, a rescan
 *   (readdir + one lstat per candidate) re-reads only files whose inode, size or mtime changed.
 *
 * What is guaranteed, per file path: the events form a well-formed sequence (added, then changed/died
 * any number of times, then removed, then possibly added again); an event is emitted only when the
 * record differs from the last one reported for that path (never twice for the same state); and once
 * the files stop changing, the last state (content and verdict) is reported within one interval (a
 * rescan interval if the OS reported nothing). Intermediate states of a file rewritten faster than it
 * is read are coalesced: a watcher sees states, not writes.
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { isCandidateName, resolveSessionsDirs } from '../config.js';
import { listCandidates } from '../read/candidates.js';
import { snapshotOf, type Snapshot } from '../snapshot.js';
import { DEAD_VERDICTS, type ConfigDirs, type ReadOptions, type SessionRecord, type Verdict } from '../types.js';
import { judgeClaims, judgeVerdicts } from '../verdict.js';
import { DirWatch } from './dirs.js';
import { transition, type WatchEvent } from './diff.js';
import { checkFiles, sameStamp, type FileState, type ReadOutcome } from './files.js';
import { EventQueue } from './queue.js';
import { SnapshotKeeper } from './snapshot-file.js';

export interface WatchOptions extends ReadOptions {
  /** Liveness re-probe period in ms (default 1000). */
  interval?: number;
  /** A full rescan every this many intervals, as a safety net under OS file events (default 10). */
  rescanEvery?: number;
  /** Report the records present at the start as `added` (default true). */
  initial?: boolean;
  /** Keep this snapshot file up to date: written at the start, then on every change, at most once per interval. */
  snapshotFile?: string;
}

/** After an OS file event, wait this long for the writer (Claude Code writes non-atomically) before reading. */
const DEBOUNCE_MS = 10;

function positive(value: unknown, name: string, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new TypeError(`watch: ${name} must be a positive ${integer ? 'integer' : 'number'} (got ${String(value)})`);
  }
  return value;
}

function withVerdict(record: SessionRecord, verdict: Verdict): SessionRecord {
  return Object.freeze({ ...record, verdict, live: !DEAD_VERDICTS.has(verdict) });
}

export class Watcher extends EventEmitter implements AsyncIterable<WatchEvent> {
  readonly interval: number;
  private readonly rescanEvery: number;
  private readonly retryDelayMs: number;
  private readonly keeper: SnapshotKeeper | undefined;
  private readonly dirs: DirWatch[];
  private readonly unwatched = new Set<DirWatch>();
  private readonly files = new Map<string, FileState>();
  private readonly dirty = new Set<string>();
  private readonly rescan = new Set<DirWatch>();
  private readonly queues = new Set<EventQueue<WatchEvent>>();
  private ticks = 0;
  private tickTimer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(configDirs: ConfigDirs, options: WatchOptions = {}) {
    super();
    if (options === null || typeof options !== 'object') throw new TypeError('watch: options must be an object');
    this.interval = positive(options.interval, 'interval', 1000);
    this.rescanEvery = positive(options.rescanEvery, 'rescanEvery', 10, true);
    this.retryDelayMs = options.retryDelayMs === undefined ? 25 : Math.max(0, Number(options.retryDelayMs) || 0);
    this.dirs = resolveSessionsDirs(configDirs, options.env).map((dir) => {
      const own: DirWatch = new DirWatch(dir, { onFile: (name) => this.onFile(own, name), onFolder: () => this.mark(own) });
      return own;
    });
    // The first view is read now, so records() and snapshot() answer at once; its `added` events are
    // emitted on the next turn, after the caller has attached listeners or started iterating.
    for (const d of this.dirs) this.rescan.add(d);
    let initial: WatchEvent[];
    try {
      initial = this.collect();
    } catch (err) {
      this.close(); // a folder that cannot be listed (RegistryUnreadableError): release the OS watches
      throw err;
    }
    if (options.initial !== false && initial.length > 0) {
      setImmediate(() => {
        if (!this.closed) this.emitAll(initial);
      });
    }
    if (options.snapshotFile !== undefined) {
      this.keeper = new SnapshotKeeper(options.snapshotFile, this.interval, () => this.snapshot(), (e) => this.fail(e));
      // The first write throws (a folder that does not exist, no permission): a usage error is loud at once.
      try {
        this.keeper.writeNow();
      } catch (err) {
        this.close();
        throw err;
      }
    }
    this.tickTimer = setInterval(() => this.tick(), this.interval);
  }

  /** The current view: every record, live or not, sorted by PID. */
  records(): SessionRecord[] {
    const out: SessionRecord[] = [];
    for (const state of this.files.values()) if (state.record) out.push(state.record);
    return out.sort((a, b) => a.pid - b.pid || (a.path < b.path ? -1 : 1));
  }

  /** The snapshot (docs/watch.md) of the current view, without touching the files. */
  snapshot(): Snapshot {
    return snapshotOf(this.records());
  }

  /** Re-probes liveness now (what every interval does): one batch probe, no file I/O. */
  poll(): void {
    if (this.closed) return;
    this.emitAll(this.probe());
  }

  /** Rescans every folder now (what every `rescanEvery`-th interval does): readdir, one lstat per candidate. */
  rescanNow(): void {
    if (this.closed) return;
    for (const d of this.dirs) this.rescan.add(d);
    this.guard(() => this.emitAll(this.collect()));
  }

  /** Releases everything: OS watches, timers, iterators (they end after what they already hold). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.tickTimer);
    clearTimeout(this.flushTimer);
    this.keeper?.close();
    for (const d of this.dirs) d.close();
    for (const q of this.queues) q.end();
    this.queues.clear();
    this.files.clear();
    this.dirty.clear();
    this.rescan.clear();
    this.emit('close');
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Each iterator sees the events emitted after it was created. Leaving the loop early closes the watcher. */
  [Symbol.asyncIterator](): AsyncIterableIterator<WatchEvent> {
    const queue = new EventQueue<WatchEvent>(() => this.close());
    if (this.closed) queue.end();
    else this.queues.add(queue);
    return queue;
  }

  private onFile(dir: DirWatch, name: string | null): void {
    if (name === null) this.rescan.add(dir);
    else if (isCandidateName(name)) this.dirty.add(join(dir.dir, name));
    else return;
    this.scheduleFlush(DEBOUNCE_MS);
  }

  private mark(dir: DirWatch): void {
    this.rescan.add(dir);
    this.scheduleFlush(DEBOUNCE_MS);
  }

  private scheduleFlush(delay: number): void {
    if (this.closed || this.flushTimer !== undefined) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.guard(() => this.emitAll(this.collect()));
    }, delay);
  }

  private tick(): void {
    this.guard(() => {
      this.ticks++;
      const full = this.ticks % this.rescanEvery === 0;
      for (const d of this.dirs) if (full || this.unwatched.has(d)) this.rescan.add(d);
      // Files first (they may add, change or remove records), then one probe of every record.
      const events = this.collect();
      events.push(...this.probe());
      this.emitAll(events);
    });
  }

  /** Runs a step; a failure is reported as 'error' when someone listens, and never stops the watcher. */
  private guard(step: () => void): void {
    if (this.closed) return;
    try {
      step();
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    if (this.listenerCount('error') > 0) this.emit('error', err);
  }

  /** Reads what was marked (dirty files, folders to rescan) and turns the outcomes into events. */
  private collect(): WatchEvent[] {
    const paths = new Set<string>();
    for (const d of this.rescan) {
      const { exists, watched } = d.sync();
      if (watched) this.unwatched.delete(d);
      else this.unwatched.add(d);
      if (exists) for (const name of listCandidates(d.dir)) paths.add(join(d.dir, name));
      for (const path of this.files.keys()) if (path.startsWith(d.dir + '/') || path.startsWith(d.dir + '\\')) paths.add(path);
    }
    this.rescan.clear();
    const forced = new Set(this.dirty);
    for (const path of this.dirty) paths.add(path);
    this.dirty.clear();
    if (paths.size === 0) return [];
    return this.apply(checkFiles(paths, this.files, (p) => forced.has(p)));
  }

  private apply(outcomes: ReadOutcome[]): WatchEvent[] {
    const events: WatchEvent[] = [];
    const claims = outcomes.filter((o) => o.kind === 'claim');
    const records = judgeClaims(claims.map((o) => o.claim)); // one batch probe for every file read
    claims.forEach((o, i) => {
      const previous = this.files.get(o.path)?.record;
      const record = records[i]!;
      const event = transition(previous, record);
      this.files.set(o.path, { stamp: o.stamp, readAt: o.readAt, claim: o.claim, record: event || !previous ? record : previous });
      if (event) events.push(event);
    });
    const now = Date.now();
    for (const o of outcomes) {
      if (o.kind === 'gone') {
        const previous = this.files.get(o.path)?.record;
        this.files.delete(o.path);
        if (previous) events.push({ type: 'removed', record: previous });
      } else if (o.kind === 'skip') {
        const state = this.files.get(o.path);
        if (state?.record === undefined) {
          this.files.set(o.path, { stamp: o.stamp, readAt: o.readAt, record: undefined, claim: undefined });
        } else if (state.pending && sameStamp(state.pending.stamp, o.stamp) && now - state.pending.since >= this.retryDelayMs) {
          // Unchanged across the re-read pause: not a write in progress, the record is gone.
          this.files.set(o.path, { stamp: o.stamp, readAt: o.readAt, record: undefined, claim: undefined });
          events.push({ type: 'removed', record: state.record });
        } else {
          // Claude Code writes in place: an empty or half-written file is usually a write in progress.
          // Keep the record and look again after the pause (and again while the file keeps changing).
          if (!state.pending || !sameStamp(state.pending.stamp, o.stamp)) state.pending = { stamp: o.stamp, since: now };
          this.dirty.add(o.path);
          this.scheduleFlush(this.retryDelayMs);
        }
      }
    }
    return events;
  }

  /** One batch probe of every record's liveness; records whose verdict changed become events. */
  private probe(): WatchEvent[] {
    const states: FileState[] = [];
    for (const state of this.files.values()) if (state.record && state.claim) states.push(state);
    if (states.length === 0) return [];
    const verdicts = judgeVerdicts(states.map((s) => s.claim!));
    const events: WatchEvent[] = [];
    states.forEach((state, i) => {
      const previous = state.record!;
      if (verdicts[i] === previous.verdict) return;
      const record = withVerdict(previous, verdicts[i]!);
      state.record = record;
      events.push(transition(previous, record)!);
    });
    return events;
  }

  private emitAll(events: readonly WatchEvent[]): void {
    if (events.length === 0 || this.closed) return;
    for (const event of events) {
      if (this.closed) return; // a listener closed the watcher
      for (const q of this.queues) q.push(event);
      this.emit(event.type, event);
      this.emit('change', event);
    }
    this.keeper?.changed();
  }
}

/**
 * Watches the registry (docs/watch.md): an EventEmitter of `added`, `changed`, `died`,
 * `removed` (and `change` for all four, `error`, `close`) and an async iterable of the same events.
 * Call `close()` when done: the watcher holds OS watches and timers until then. Failures after the
 * start (a snapshot write, an unexpected read error) are emitted as `error` when someone listens and
 * never stop the watcher; with no `error` listener they are dropped, never thrown.
 */
export function watch(configDirs?: ConfigDirs, options?: WatchOptions): Watcher {
  return new Watcher(configDirs, options);
}
