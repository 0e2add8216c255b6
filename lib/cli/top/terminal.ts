/**
 * The terminal while `top` runs: the alternate screen, no cursor, no autowrap (a line one column too
 * wide is cut, not wrapped over the next), raw keys. `restore()` undoes all of it, once, and is called
 * on every way out: `q`, SIGINT, SIGTERM, SIGHUP, an uncaught error, and process exit as a backstop.
 * Ctrl-Z hands the normal screen back before stopping, and takes the alternate one again on SIGCONT.
 * Writes are synchronous and never throw: after a hangup the terminal is gone, and a failed write
 * must not turn an orderly exit into a crash.
 */
import { out } from '../output.js';
import type { ReadStream, WriteStream } from 'node:tty';

const ENTER = '\x1b[?1049h\x1b[?25l\x1b[?7l\x1b[H\x1b[2J';
const LEAVE = '\x1b[0m\x1b[?7h\x1b[?25h\x1b[?1049l';

export class Terminal {
  private active = false;
  private lines: string[] = [];
  constructor(
    private readonly input: ReadStream,
    private readonly output: WriteStream,
  ) {}

  get size(): { width: number; height: number } {
    return { width: this.output.columns || 80, height: this.output.rows || 24 };
  }

  write(text: string): void {
    try {
      // out() writes everything, waiting out EAGAIN on a terminal Node made non-blocking.
      out(text);
    } catch {
      // EIO after a hangup: what is on screen is unknown, so the next frame repaints every line
      this.lines = [];
    }
  }

  enter(): void {
    if (this.active) return;
    this.active = true;
    try {
      this.input.setRawMode(true);
    } catch {
      // the terminal went away: restore() will find nothing to undo
    }
    this.lines = [];
    this.write(ENTER);
  }

  restore(): void {
    if (!this.active) return;
    this.active = false;
    this.write(LEAVE);
    try {
      this.input.setRawMode(false);
    } catch {
      // gone
    }
  }

  /**
   * Takes the terminal again after a stop, whether or not restore() ran: the shell that had it
   * meanwhile may have set its own modes (bash puts a stopped job's terminal back in cooked mode, and
   * `fg` does not make it raw again), so raw mode is set anew rather than assumed.
   */
  reenter(): void {
    if (this.active) {
      this.active = false;
      try {
        // libuv skips a change to the mode it believes is set: through cooked, then raw again.
        this.input.setRawMode(false);
      } catch {
        // gone
      }
    }
    this.enter();
  }

  get isActive(): boolean {
    return this.active;
  }

  /** Draws `lines`, rewriting only the lines that differ from the last frame. */
  draw(lines: readonly string[]): void {
    if (!this.active) return;
    let text = '';
    for (let i = 0; i < lines.length; i++) {
      if (this.lines[i] !== lines[i]) text += `\x1b[${i + 1};1H\x1b[0m${lines[i]}\x1b[0m`;
    }
    if (lines.length < this.lines.length) text += `\x1b[${lines.length + 1};1H\x1b[J`;
    this.lines = [...lines];
    if (text) this.write(text); // on a failed write it forgets these lines again
  }

  /** Forgets what is on screen: the next draw repaints every line (after a resize or a resume). */
  invalidate(): void {
    this.lines = [];
    this.write('\x1b[H\x1b[2J');
  }
}
