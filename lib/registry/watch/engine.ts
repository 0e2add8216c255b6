/**
 * Watching the registry (docs/watch.md): the engine behind a Watcher (watch.ts), which wires the parts
 * together and keeps the clock. It emits on the Watcher it serves, and lives in the library's
 * extras (scripts/lazy-parts.mjs): a process that only reads never compiles it.
 *
 * - OS file events (dirs.ts) mark files dirty; after a short debounce the dirty files are re-read
 *   (files.ts) and the view (table.ts) turns what changed into events.
 * - Exits come from the kernel where it can tell (exits.ts: a pidfd or kqueue per live record, within
 *   a budget): such a record is not re-probed; its `died` arrives as the process ends. Every other
 *   record is re-probed in one batch per interval.
 * - Every `rescanEvery`-th interval a rescan (plan.ts) re-reads what OS events could have missed: a
 *   cheap one (the folder's stat; a listing only if it changed) and, every FULL_SWEEP_EVERY-th time
 *   and every interval for a folder the OS does not watch, a full one (readdir + one lstat per
 *   candidate). Either re-reads only files whose inode, size or mtime changed.
 * - Events reach iterators (queue.ts, bounded by coalescing) and listeners (deliver.ts) so that no
 *   listener can stop the watcher or cost another record its event.
 *
 * What is guaranteed, per file path: the events form a well-formed sequence (added, then changed/died
 * any number of times, then removed, then possibly added again); an event is emitted only when the
 * record differs from the last one reported for that path (never twice for the same state); and once
 * the files stop changing, the last state (content and verdict) is reported within one interval. If
 * the OS reported nothing, a file created, removed or racily read is found by the next rescan, an
 * in-place rewrite by the next full sweep. Intermediate states of a file rewritten faster than it
 * is read are coalesced: a watcher sees states, not writes.
 */
import type { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { isCandidateName, resolveSessionsDirs } from '../config.js';
import { strandedPid } from '../prune/names.js';
import { snapshotOf, type Snapshot } from '../snapshot.js';
import type { ConfigDirs, SessionRecord } from '../types.js';
import { deliver, surface } from './deliver.js';
import type { WatchEvent } from './diff.js';
import { DirWatch } from './dirs.js';
import { ExitTracker } from './exits.js';
import { checkFiles } from './files.js';
import { watchSettings, type WatchOptions, type WatchSettings } from './options.js';
import { ScanPlan } from './plan.js';
import { EventQueue } from './queue.js';
import { SnapshotKeeper } from './snapshot-file.js';
import { RecordTable } from './table.js';

/** After an OS file event, wait this long for the writer (Claude Code writes non-atomically) before reading. */
const DEBOUNCE_MS = 10;
/** Under working OS events, every this many-th rescan lstats every file (the others are cheap: plan.ts). */
const FULL_SWEEP_EVERY = 30;

export class WatchEngine {
  readonly interval: number;
  private readonly settings: WatchSettings;
  private readonly keeper: SnapshotKeeper | undefined;
  private readonly dirs: DirWatch[];
  private readonly table: RecordTable;
  private readonly exits: ExitTracker;
  private readonly plan = new ScanPlan();
  private readonly queues = new Set<EventQueue>();
  private ticks = 0;
  private tickTimer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /**
   * Starts watching for `emitter` (the Watcher): its events, `error` and `close` are emitted there, and
   * an iterator left early ends it through `closeWatcher` (the Watcher's own close(), which a subclass
   * may override).
   */
  constructor(
    private readonly emitter: EventEmitter,
    configDirs: ConfigDirs,
    options: WatchOptions | undefined,
    private readonly closeWatcher: () => void,
  ) {
    const settings = (this.settings = watchSettings(options));
    this.interval = settings.interval;
    this.table = new RecordTable(settings.retryDelayMs, (path, delay) => {
      this.plan.markFile(path);
      this.scheduleFlush(delay);
    });
    this.exits = new ExitTracker(settings.exitHandles, (path) => this.step(() => this.table.probe(() => false, [path])));
    this.dirs = resolveSessionsDirs(configDirs, settings.env).map((dir) => {
      const own: DirWatch = new DirWatch(dir, { onFile: (name) => this.onFile(own, name), onFolder: () => this.mark(own) });
      return own;
    });
    // The first view is read now, so records() and snapshot() answer at once; its `added` events are
    // emitted on the next turn, after the caller has attached listeners or started iterating.
    for (const d of this.dirs) this.plan.markFolder(d, 'full');
    try {
      const added = this.collect(true);
      // A death the re-probe of new handles found is news even with `initial: false`.
      const initial = [...(settings.initial ? added : []), ...this.watchExits()];
      if (initial.length > 0) setImmediate(() => this.publish(initial));
      if (settings.snapshotFile !== undefined) {
        this.keeper = new SnapshotKeeper(settings.snapshotFile, this.interval, () => this.snapshot(), (e) => surface(this.emitter, [e], true));
        // The first write throws (a folder that does not exist, no permission): a usage error is loud at once.
        this.keeper.writeNow();
      }
    } catch (err) {
      this.close(); // releases the OS watches and exit handles already taken
      throw err;
    }
    this.tickTimer = setInterval(() => this.tick(), this.interval);
  }

  /** The current view: every record, live or not, sorted by PID. */
  records(): SessionRecord[] {
    return this.table.records();
  }

  /** The snapshot (docs/watch.md) of the current view, without touching the files. */
  snapshot(): Snapshot {
    return snapshotOf(this.records());
  }

  /** Re-probes now what every interval re-probes (records without a kernel exit handle): one batch probe, no file I/O. */
  poll(): void {
    this.step(() => this.table.probe((path) => this.exits.has(path)));
  }

  /** A full sweep of every folder now (what every 30th periodic rescan is): readdir, one lstat per candidate. */
  rescanNow(): void {
    for (const d of this.dirs) this.plan.markFolder(d, 'full');
    this.step(() => this.collect());
  }

  /** How the exits of live local records are followed now, by PID: a kernel exit handle, or the interval probe. */
  exitWatch(): { kernel: number[]; interval: number[] } {
    const kernel: number[] = [];
    const interval: number[] = [];
    for (const r of this.records()) if (r.live && r.verdict !== 'foreign') (this.exits.has(r.path) ? kernel : interval).push(r.pid);
    return { kernel, interval };
  }

  /** Releases everything: OS watches, exit handles, timers, iterators (they end after what they already hold). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.tickTimer);
    clearTimeout(this.flushTimer);
    this.keeper?.close();
    this.exits.close();
    for (const d of this.dirs) d.close();
    for (const q of this.queues) q.end();
    this.queues.clear();
    this.table.clear();
    this.plan.clear();
    this.emitter.emit('close');
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Each iterator sees the events emitted after it was created. Leaving the loop early closes the watcher. */
  iterator(): AsyncIterableIterator<WatchEvent> {
    const queue = new EventQueue(() => this.closeWatcher());
    if (this.closed) queue.end();
    else this.queues.add(queue);
    return queue;
  }

  private onFile(dir: DirWatch, name: string | null): void {
    // A prune's aside copy of a record comes and goes with its `<pid>.json`: whether it is a claim
    // depends on the listing (docs/prune.md), so the folder is listed again.
    if (name === null || strandedPid(name) !== undefined) this.plan.markFolder(dir, 'full');
    else if (isCandidateName(name)) this.plan.markFile(join(dir.dir, name));
    else return;
    this.scheduleFlush(DEBOUNCE_MS);
  }

  private mark(dir: DirWatch): void {
    this.plan.markFolder(dir, 'full');
    this.scheduleFlush(DEBOUNCE_MS);
  }

  private scheduleFlush(delay: number): void {
    if (this.closed || this.flushTimer !== undefined) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.step(() => this.collect());
    }, delay);
  }

  private tick(): void {
    this.step(() => {
      this.ticks++;
      const every = this.settings.rescanEvery;
      const rescan = this.ticks % every === 0;
      const sweep = this.ticks % (every * FULL_SWEEP_EVERY) === 0;
      for (const d of this.dirs) {
        if (sweep || this.plan.isUnwatched(d)) this.plan.markFolder(d, 'full');
        else if (rescan) this.plan.markFolder(d, 'cheap');
      }
      // Files first (they may add, change or remove records), then one probe of the records the kernel does not watch.
      const events = this.collect();
      // When the kernel watches every record, there is nothing to probe (and no walk over the table).
      if (this.table.claims > this.exits.size) events.push(...this.table.probe((path) => this.exits.has(path)));
      if (this.exits.unverified.size > 0) events.push(...this.table.probe(() => false, this.exits.unverified));
      return events;
    });
  }

  /**
   * Runs one step of the watcher and publishes its events. A failure of the step itself (an
   * unexpected read error) is reported as `error` when someone listens and never stops the watcher.
   */
  private step(run: () => WatchEvent[]): void {
    if (this.closed) return;
    let events: WatchEvent[];
    try {
      events = run();
      if (events.length > 0 || this.exits.wantsRetry) events.push(...this.watchExits());
    } catch (err) {
      surface(this.emitter, [err], true);
      return;
    }
    this.publish(events);
  }

  /** Hands out and takes back exit handles after the view changed; the re-probe of new handles may add events. */
  private watchExits(): WatchEvent[] {
    const opened = this.exits.sync(this.table.files);
    if (opened.length === 0) return [];
    const events = this.table.probe(() => false, opened);
    if (events.length > 0) this.exits.sync(this.table.files); // releases what the re-probe found dead
    return events;
  }

  private publish(events: readonly WatchEvent[]): void {
    if (events.length === 0 || this.closed) return;
    const thrown = deliver(this.emitter, events, this.queues, () => this.closed);
    if (!this.closed) this.keeper?.changed();
    surface(this.emitter, thrown);
  }

  /**
   * Reads what was marked (dirty files, folders to rescan) and turns the outcomes into events. The first
   * view throws for a folder that cannot be listed, as every registry read does (docs/guard.md): no
   * first view is better than one that shows its sessions as none. Later, the folder's known records are
   * kept and the failure is said once, as `error`.
   */
  private collect(first = false): WatchEvent[] {
    const { paths, named, unlistable } = this.plan.take(this.table.files, this.table.suspects, first);
    if (first && unlistable.length > 0) throw unlistable[0];
    if (unlistable.length > 0) process.nextTick(() => this.closed || surface(this.emitter, unlistable, true));
    if (paths.size === 0) return [];
    return this.table.apply(checkFiles(paths, this.table.files, (p) => named.has(p)));
  }
}

/** A WatchEngine for `emitter`: the one entry the core's Watcher calls (a function, so it can load lazily). */
export function startWatch(emitter: EventEmitter, configDirs: ConfigDirs, options: WatchOptions | undefined, closeWatcher: () => void): WatchEngine {
  return new WatchEngine(emitter, configDirs, options, closeWatcher);
}
