/**
 * Keeps a snapshot file current for a watcher (`watch --snapshot FILE`): written at the start, then
 * after every change, at most once per interval; a change inside the interval is written at its end,
 * so the file always ends up showing the last state.
 */
import { writeSnapshot, type Snapshot } from '../snapshot.js';

export class SnapshotKeeper {
  private timer: NodeJS.Timeout | undefined;
  private lastAt = 0;

  constructor(
    private readonly path: string,
    private readonly interval: number,
    private readonly take: () => Snapshot,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Writes now; throws what writeSnapshot throws (the first write: a bad path is a usage error). */
  writeNow(): void {
    this.lastAt = Date.now();
    writeSnapshot(this.path, this.take());
  }

  /** The view changed: write now, or at the end of the current interval. */
  changed(): void {
    if (this.timer !== undefined) return;
    const wait = this.lastAt + this.interval - Date.now();
    if (wait <= 0) this.tryWrite();
    else
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.tryWrite();
      }, wait);
  }

  private tryWrite(): void {
    try {
      this.writeNow();
    } catch (err) {
      this.onError(err);
    }
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
