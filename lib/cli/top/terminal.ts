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
import { closeSync, constants, fstatSync, openSync, readlinkSync, writeSync } from 'node:fs';
import type { ReadStream, WriteStream } from 'node:tty';

const ENTER = '\x1b[?1049h\x1b[?25l\x1b[?7l\x1b[H\x1b[2J';
const LEAVE = '\x1b[0m\x1b[?7h\x1b[?25h\x1b[?1049l';
/** How long restore() waits for a terminal that does not drain before it gives up. */
export const RESTORE_WAIT_MS = 1500;
const RETRY_MS = 50;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * A non-blocking descriptor on the terminal that fd 1 is, or 1 itself (blocking) when that terminal
 * cannot be opened again by a path that provably names it.
 */
export function openOutput(): number {
  let device: number;
  try {
    const st = fstatSync(1);
    if (!st.isCharacterDevice()) return 1;
    device = st.rdev;
  } catch {
    return 1;
  }
  const paths: string[] = [];
  try {
    if (process.platform === 'linux') paths.push(readlinkSync('/proc/self/fd/1'));
  } catch {
    // no /proc: the controlling terminal may be the same one
  }
  paths.push('/dev/tty');
  for (const path of paths) {
    let fd: number | undefined;
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
      const st = fstatSync(fd);
      if (st.isCharacterDevice() && st.rdev === device) return fd;
    } catch {
      // not openable: the next path, or fd 1
    }
    if (fd !== undefined) closeQuietly(fd);
  }
  return 1;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

export class Terminal {
  private active = false;
  private lines: string[] = [];
  /** The unwritten end of the last write: it goes out before anything else. */
  private pending: Buffer | undefined;
  private retry: NodeJS.Timeout | undefined;
  /** Called when a terminal that stopped reading has drained: the caller repaints. */
  onDrain: (() => void) | undefined;
  private readonly fd: number;
  constructor(
    private readonly input: ReadStream,
    private readonly output: WriteStream,
  ) {
    this.fd = openOutput();
  }

  get size(): { width: number; height: number } {
    return { width: this.output.columns || 80, height: this.output.rows || 24 };
  }

  /** Writes what it can now; true when everything (and what was pending) is out. */
  private push(bytes: Buffer): boolean {
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(this.fd, bytes, offset, bytes.length - offset);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK') {
          this.pending = bytes.subarray(offset);
          return false;
        }
        // EIO or EPIPE after a hangup: nothing to keep; what is on screen is unknown
        this.pending = undefined;
        this.lines = [];
        return false;
      }
    }
    this.pending = undefined;
    return true;
  }

  /** Whether the terminal is behind: the last write is not all out yet. */
  get stalled(): boolean {
    return this.pending !== undefined;
  }

  write(text: string): void {
    if (this.pending) {
      // Behind: this text is dropped, and the screen is repainted whole once the terminal drains.
      this.lines = [];
      return;
    }
    if (!this.push(Buffer.from(text, 'utf8'))) {
      this.lines = [];
      this.waitForDrain();
    }
  }

  /** Text that must reach the terminal (a mode change): queued behind a cut write, never dropped. */
  private must(text: string): void {
    if (this.pending) {
      this.pending = Buffer.concat([this.pending, Buffer.from(text, 'utf8')]);
      this.lines = [];
    } else this.write(text);
  }

  private waitForDrain(): void {
    if (this.retry || !this.pending) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.pending) return;
      if (this.push(this.pending)) this.onDrain?.();
      else this.waitForDrain();
    }, RETRY_MS);
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
    clearTimeout(this.retry);
    this.retry = undefined;
    // The rest of a cut write first (its escape sequence ends), then the way back; a terminal that
    // does not drain within RESTORE_WAIT_MS is given up on rather than hang the exit.
    let bytes: Buffer = Buffer.concat([this.pending ?? Buffer.alloc(0), Buffer.from(LEAVE)]);
    const deadline = Date.now() + RESTORE_WAIT_MS;
    while (!this.push(bytes) && this.pending && Date.now() < deadline) {
      bytes = this.pending;
      Atomics.wait(pause, 0, 0, 10);
    }
    this.pending = undefined;
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
