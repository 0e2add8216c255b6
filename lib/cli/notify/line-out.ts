/**
 * notify's own lines on stdout (one per notification sent), through a non-blocking descriptor
 * (lib/cli/nonblocking.ts): a reader that stops reading (`claude-ps notify | slow`) must not park the
 * watcher, and with it every notification after. Up to LINE_BACKLOG bytes wait for the reader; past
 * that, lines are dropped and counted, and the count is said once the reader catches up.
 */
import { Drain, openNonBlocking } from '../nonblocking.js';

export const LINE_BACKLOG = 64 * 1024;

export class LineOut {
  private readonly drain: Drain;
  private dropped = 0;
  constructor(
    private readonly report: (line: string) => void,
    /** The reader went away (EPIPE): the caller ends, as `cat` would. */
    private readonly onGone: () => void,
    fd = 1,
  ) {
    this.drain = new Drain(openNonBlocking(fd, ['/dev/tty']));
    this.drain.onDrain = () => {
      if (this.dropped === 0) return;
      this.report(`stdout was not read: ${this.dropped} line${this.dropped === 1 ? '' : 's'} dropped (the notifications were sent)`);
      this.dropped = 0;
    };
  }

  write(line: string): void {
    if (this.drain.behind > LINE_BACKLOG) {
      if (this.dropped++ === 0) this.report('stdout is not being read: its lines are dropped until it is (notifications go on)');
      return;
    }
    this.drain.write(line);
    if (this.drain.failed) this.onGone();
  }

  /** At the end: what waits gets a moment to go out. */
  close(): void {
    this.drain.flushFor(500);
  }
}
