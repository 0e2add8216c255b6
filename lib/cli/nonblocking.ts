/**
 * Output that never parks the main thread. A terminal or pipe whose reader stops (a stalled ssh, a
 * paused emulator, `notify | slow-consumer`) fills the kernel's buffer, and a blocking write then
 * waits where no timer, watcher or signal handler can run. `openNonBlocking` opens the same terminal
 * or pipe again as a file description of our own with O_NONBLOCK (the shell's descriptor keeps its
 * mode); `Drain` writes what the kernel takes now, keeps the rest (sent first, so that an escape
 * sequence or a line is never cut), and retries on a timer. The callers decide what to drop.
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync, writeSync } from 'node:fs';

const pause = new Int32Array(new SharedArrayBuffer(4));
const RETRY_MS = 50;

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/**
 * A non-blocking descriptor on what `fd` is (a terminal or a pipe), or `fd` itself, blocking, when
 * that cannot be opened again by a path that provably names it (a regular file never blocks).
 */
export function openNonBlocking(fd: number, extraPaths: readonly string[] = []): number {
  let st;
  try {
    st = fstatSync(fd);
  } catch {
    return fd;
  }
  if (!st.isCharacterDevice() && !st.isFIFO()) return fd;
  const paths: string[] = [];
  // Linux: /proc/self/fd/N opens the terminal or the pipe anew, a description of our own.
  if (process.platform === 'linux') paths.push(`/proc/self/fd/${fd}`);
  if (st.isCharacterDevice()) paths.push(...extraPaths);
  for (const path of paths) {
    let opened: number | undefined;
    try {
      opened = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
      const again = fstatSync(opened);
      const same = st.isFIFO() ? again.isFIFO() && again.ino === st.ino && again.dev === st.dev : again.isCharacterDevice() && again.rdev === st.rdev;
      if (same) return opened;
    } catch {
      // not openable: the next path, or `fd`
    }
    if (opened !== undefined) closeQuietly(opened);
  }
  return fd;
}

export class Drain {
  private pending: Buffer | undefined;
  private retry: NodeJS.Timeout | undefined;
  /** Set after a write failed for good (EIO, EPIPE): nothing more is written. */
  failed: NodeJS.ErrnoException | undefined;
  /** Called when what was kept has all gone out. */
  onDrain: (() => void) | undefined;
  constructor(readonly fd: number) {}

  /** Bytes kept for a reader that is behind (0 when it keeps up). */
  get behind(): number {
    return this.pending?.length ?? 0;
  }

  /** Writes `text` after what is kept; true when all of it is out now. */
  write(text: string | Buffer): boolean {
    if (this.failed) return false;
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    if (this.pending) {
      this.pending = Buffer.concat([this.pending, bytes]);
      return false;
    }
    return this.push(bytes);
  }

  private push(bytes: Buffer): boolean {
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(this.fd, bytes, offset, bytes.length - offset);
      } catch (error) {
        const e = error as NodeJS.ErrnoException;
        if (e.code === 'EAGAIN' || e.code === 'EWOULDBLOCK') {
          this.pending = bytes.subarray(offset);
          this.schedule();
          return false;
        }
        this.pending = undefined;
        this.failed = e;
        return false;
      }
    }
    this.pending = undefined;
    return true;
  }

  private schedule(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      const kept = this.pending;
      if (!kept) return;
      this.pending = undefined;
      if (this.push(kept)) this.onDrain?.();
    }, RETRY_MS);
    this.retry.unref();
  }

  /** Forgets what is kept (the next write starts clean); only where cutting it is harmless. */
  discard(): void {
    this.pending = undefined;
  }

  /** Waits (blocking) up to `ms` for what is kept and `text` to go out; true when they did. */
  flushFor(ms: number, text = ''): boolean {
    clearTimeout(this.retry);
    this.retry = undefined;
    if (text) this.write(text);
    const deadline = Date.now() + ms;
    while (this.pending && !this.failed && Date.now() < deadline) {
      Atomics.wait(pause, 0, 0, 10);
      const kept = this.pending;
      this.pending = undefined;
      this.push(kept);
      clearTimeout(this.retry);
      this.retry = undefined;
    }
    const done = !this.pending && !this.failed;
    this.pending = undefined;
    return done;
  }
}
