/**
 * The terminal while `top` runs: the alternate screen, no cursor, no autowrap (a line one column too
 * wide is cut, not wrapped over the next), raw keys. `restore()` undoes all of it, once, and is called
 * on every way out: `q`, SIGINT, SIGTERM, SIGHUP, an uncaught error, and process exit as a backstop.
 * Ctrl-Z hands the normal screen back before stopping, and takes the alternate one again on SIGCONT.
 * Writes never throw and never wait: after a hangup the terminal is gone, and a failed write must not
 * turn an orderly exit into a crash. A terminal that stops reading (a stalled ssh, a paused emulator)
 * fills the kernel's buffer, and a write to fd 1 (blocking: Node makes a tty's stdout synchronous)
 * would wait on the main thread, where no signal handler can run. So the view writes through a file
 * description of its own on the same terminal, opened O_NONBLOCK (the shell's fd 1 keeps its mode):
 * a write comes back short or with EAGAIN. The rest of that write is kept and sent first when
 * the terminal drains (an escape sequence is never cut), frames meanwhile are skipped, and the screen
 * is repainted whole once it drains. Only restore() waits, and at most RESTORE_WAIT_MS.
 */
import type { ReadStream, WriteStream } from 'node:tty';
import { Drain, openNonBlocking } from '../nonblocking.js';

const ENTER = '\x1b[?1049h\x1b[?25l\x1b[?7l\x1b[H\x1b[2J';
const LEAVE = '\x1b[0m\x1b[?7h\x1b[?25h\x1b[?1049l';
/** How long restore() waits for a terminal that does not drain before it gives up. */
export const RESTORE_WAIT_MS = 1500;

export class Terminal {
  private active = false;
  private lines: string[] = [];
  private readonly out: Drain;
  constructor(
    private readonly input: ReadStream,
    private readonly output: WriteStream,
  ) {
    this.out = new Drain(openNonBlocking(1, ['/dev/tty']));
  }

  /** Called when a terminal that stopped reading has drained: the caller repaints. */
  set onDrain(f: (() => void) | undefined) {
    this.out.onDrain = f;
  }

  get size(): { width: number; height: number } {
    return { width: this.output.columns || 80, height: this.output.rows || 24 };
  }

  /** Whether the terminal is behind: the last write is not all out yet. */
  get stalled(): boolean {
    return this.out.behind > 0;
  }

  write(text: string): void {
    // Behind: this text is dropped, and the screen is repainted whole once the terminal drains.
    // After a hangup (EIO) what is on screen is unknown: the same.
    if (this.stalled || !this.out.write(text)) this.lines = [];
  }

  /** Text that must reach the terminal (a mode change): queued behind a cut write, never dropped. */
  private must(text: string): void {
    if (!this.out.write(text)) this.lines = [];
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
    this.must(ENTER);
  }

  restore(): void {
    if (!this.active) return;
    this.active = false;
    // The rest of a cut write first (its escape sequence ends), then the way back; a terminal that
    // does not drain within RESTORE_WAIT_MS is given up on rather than hang the exit.
    this.out.flushFor(RESTORE_WAIT_MS, LEAVE);
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
