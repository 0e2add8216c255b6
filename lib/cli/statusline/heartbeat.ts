/**
 * `DIR/.beat`: the watcher's word that it is running now (docs/statusline.md, "Nothing stale that
 * looks fresh", layer 5). A line file's own freshness rule (newer than its session's record) cannot
 * see a watcher that is stopped (SIGSTOP) or wedged while the session idles: its record does not
 * change either. So the watcher dates `.beat` a little into the future every second, and the
 * settings snippet renders a line file only while `.beat` is newer than `DIR/.now`, a file the
 * snippet itself truncates just before (an open, no fork): `test` compares two mtimes, and this gives
 * it "now" without `date` arithmetic. A watcher that stops beating is no longer believed once the
 * lead runs out: within LEAD_MS (LEAD_SECONDS_MS where mtimes compare in whole seconds).
 */
import { closeSync, constants, futimesSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

export const BEAT_FILE = '.beat';
/** Truncated by the snippet on each render that finds a line file: its "now". */
export const NOW_FILE = '.now';
/** How often the watcher beats. */
export const BEAT_EVERY_MS = 1000;
/** How far ahead `.beat` is dated: a beat's lead over the next render's "now", less one period. */
export const LEAD_MS = 2000;
/** The lead where `test -nt` compares whole seconds (macOS /bin/sh): one second more, for the rounding. */
export const LEAD_SECONDS_MS = 3000;

export class Heartbeat {
  private fd: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private last = Date.now();

  /** Starts beating in `dir` (the folder already taken). Errors are reported once; the snippet then falls back. */
  constructor(
    private readonly dir: string,
    private readonly leadMs: number,
    onError: (error: unknown) => void,
  ) {
    const path = join(dir, BEAT_FILE);
    try {
      try {
        unlinkSync(path); // a predecessor's, or anything else there: never opened
      } catch {
        // none
      }
      this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    } catch (error) {
      onError(error);
      return;
    }
    this.beat(onError);
    this.timer = setInterval(() => this.tick(onError), BEAT_EVERY_MS);
    this.timer.unref();
  }

  /** Dates `.beat` `leadMs` ahead, through the descriptor (no path to swap). */
  private beat(onError: (error: unknown) => void = () => {}): void {
    if (this.fd === undefined) return;
    const now = Date.now();
    this.last = now;
    try {
      futimesSync(this.fd, new Date(now), new Date(now + this.leadMs));
    } catch (error) {
      onError(error);
    }
  }

  private tick(onError: (error: unknown) => void): void {
    // A tick long after the last one (the process was stopped or starved) waits one more period:
    // the watch catches up with what changed meanwhile before the line files are vouched for again.
    if (Date.now() - this.last > BEAT_EVERY_MS * 1.5) {
      this.last = Date.now();
      return;
    }
    this.beat(onError);
  }

  /** Stops beating and removes `.beat`, so the snippet falls back at once. */
  close(removeFile: boolean): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    if (removeFile) {
      try {
        unlinkSync(join(this.dir, BEAT_FILE));
      } catch {
        // already gone
      }
    }
  }
}
