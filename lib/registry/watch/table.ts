/**
 * The watcher's view: per path, the record last reported, and the rules that turn read outcomes and
 * probe answers into events. Updates its state before it returns the events, so nothing a listener
 * does (or throws) can leave the view behind what was reported. No timers, no OS watches.
 */
import { DEAD_VERDICTS, type SessionRecord, type Verdict } from '../types.js';
import { judgeClaims, judgeVerdicts } from '../verdict.js';
import { transition, type WatchEvent } from './diff.js';
import { needsLook, sameStamp, type FileState, type ReadOutcome } from './files.js';

function withVerdict(record: SessionRecord, verdict: Verdict): SessionRecord {
  return Object.freeze({ ...record, verdict, live: !DEAD_VERDICTS.has(verdict) });
}

export class RecordTable {
  readonly files = new Map<string, FileState>();
  /** Paths whose last read proves nothing yet (needsLook): all a cheap rescan looks at. */
  readonly suspects = new Set<string>();
  private withClaim = 0;

  /**
   * `retry(path, delay)`: a reported record's file now reads as a non-record (a write in progress?):
   * read it again after `delay` ms.
   */
  constructor(
    private readonly retryDelayMs: number,
    private readonly retry: (path: string, delay: number) => void,
  ) {}

  /** How many records a full probe would look at. */
  get claims(): number {
    return this.withClaim;
  }

  private put(state: FileState): void {
    const before = this.files.get(state.path);
    if (before?.claim) this.withClaim--;
    if (state.claim) this.withClaim++;
    this.files.set(state.path, state);
    this.suspect(state);
  }

  private suspect(state: FileState): void {
    if (needsLook(state)) this.suspects.add(state.path);
    else this.suspects.delete(state.path);
  }

  private drop(path: string): void {
    if (this.files.get(path)?.claim) this.withClaim--;
    this.files.delete(path);
    this.suspects.delete(path);
  }

  /** Every record, live or not, sorted by PID. */
  records(): SessionRecord[] {
    const out: SessionRecord[] = [];
    for (const state of this.files.values()) if (state.record) out.push(state.record);
    return out.sort((a, b) => a.pid - b.pid || (a.path < b.path ? -1 : 1));
  }

  apply(outcomes: readonly ReadOutcome[]): WatchEvent[] {
    const events: WatchEvent[] = [];
    const claims = outcomes.filter((o) => o.kind === 'claim');
    const records = judgeClaims(claims.map((o) => o.claim)); // one batch probe for every file read
    claims.forEach((o, i) => {
      const previous = this.files.get(o.path)?.record;
      const record = records[i]!;
      const event = transition(previous, record);
      this.put({ path: o.path, stamp: o.stamp, readAt: o.readAt, claim: o.claim, record: event || !previous ? record : previous });
      if (event) events.push(event);
    });
    const now = Date.now();
    for (const o of outcomes) {
      if (o.kind === 'gone') {
        const previous = this.files.get(o.path)?.record;
        this.drop(o.path);
        if (previous) events.push({ type: 'removed', record: previous });
      } else if (o.kind === 'skip') {
        const state = this.files.get(o.path);
        const unreadable = o.reason === 'unreadable' ? true : undefined;
        if (state?.record === undefined) {
          this.put({ path: o.path, stamp: o.stamp, readAt: o.readAt, record: undefined, claim: undefined, unreadable });
        } else if (unreadable) {
          // The file is there but could not be read: no permission, or descriptors ran out (EMFILE,
          // ENFILE). That says nothing of its record: kept as last read, and read again at every
          // rescan (needsLook) until it can be; never `removed` on it.
          state.unreadable = true;
          this.suspect(state);
        } else if (state.pending && sameStamp(state.pending.stamp, o.stamp) && now - state.pending.since >= this.retryDelayMs) {
          // Unchanged across the re-read pause: not a write in progress, the record is gone.
          this.put({ path: o.path, stamp: o.stamp, readAt: o.readAt, record: undefined, claim: undefined });
          events.push({ type: 'removed', record: state.record });
        } else {
          // Claude Code writes in place: an empty or half-written file is usually a write in progress.
          // Keep the record and look again after the pause (and again while the file keeps changing).
          if (!state.pending || !sameStamp(state.pending.stamp, o.stamp)) state.pending = { stamp: o.stamp, since: now };
          this.suspect(state);
          this.retry(o.path, this.retryDelayMs);
        }
      }
    }
    return events;
  }

  /**
   * One batch probe of the records at `paths` (default: every record for which `skip` is false);
   * records whose verdict changed become events.
   */
  probe(skip: (path: string) => boolean, paths?: Iterable<string>): WatchEvent[] {
    const states: FileState[] = [];
    if (paths === undefined) {
      // values(), not entries(): an idle interval walks every record, and must allocate nothing per record.
      for (const state of this.files.values()) if (state.record && state.claim && !skip(state.path)) states.push(state);
    } else {
      for (const path of paths) {
        const state = this.files.get(path);
        if (state?.record && state.claim) states.push(state);
      }
    }
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

  clear(): void {
    this.files.clear();
    this.suspects.clear();
    this.withClaim = 0;
  }
}
