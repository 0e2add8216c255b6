/**
 * The document Claude Code pipes to a statusLine command, read without ever hanging a render
 * (docs/statusline.md): only a pipe, socket or regular file is read (never a terminal), at most
 * MAX_BYTES, for at most `timeoutMs` (a pipe that stays open and empty gives up), then parsed.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { lazyBuiltin } from '../../runtime.js';

const net = lazyBuiltin<typeof import('node:net')>('node:net');

export const STDIN_MAX_BYTES = 1024 * 1024;
export const STDIN_TIMEOUT_MS = 80;

export interface StdinDocument {
  /** The parsed object, or undefined (no input, not JSON, not an object, too large). */
  document: Record<string, unknown> | undefined;
  /** Why the input was ignored, for one stderr line; undefined when it was fine or absent. */
  problem?: string;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

type Chunks = { parts: Buffer[]; size: number; done: boolean };

function take(chunks: Chunks, buf: Buffer, n: number): void {
  chunks.parts.push(Buffer.from(buf.subarray(0, n)));
  chunks.size += n;
}

/** A regular file never blocks: read it to the end or the cap. */
function readFile(fd: number, chunks: Chunks): void {
  const buf = Buffer.allocUnsafe(64 * 1024);
  while (chunks.size <= STDIN_MAX_BYTES) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    take(chunks, buf, n);
  }
  chunks.done = true;
}

/**
 * Linux: /proc/self/fd/0 opens the pipe afresh, so this process can read it non-blocking without
 * changing the flags of the descriptor it shares with the writer. Returns false where that is not possible.
 */
function readPipeNonBlocking(stdin: number, chunks: Chunks, deadline: number): boolean {
  let fd: number;
  try {
    fd = openSync(`/proc/self/fd/${stdin}`, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    while (chunks.size <= STDIN_MAX_BYTES) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        if (Date.now() >= deadline) return true;
        Atomics.wait(pause, 0, 0, 2);
        continue;
      }
      if (n === 0) break;
      take(chunks, buf, n);
    }
    chunks.done = true;
    return true;
  } finally {
    closeSync(fd);
  }
}

/**
 * Elsewhere (a socket, or a pipe on macOS): a libuv stream, non-blocking, destroyed at the deadline.
 * (A read in the thread pool cannot be abandoned: exit would wait for it.) Loads node:net, so only here.
 */
function readStream(fd: number, chunks: Chunks, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const { Socket } = net();
    let socket: import('node:net').Socket;
    try {
      socket = new Socket({ fd, readable: true, writable: false });
    } catch {
      chunks.done = true;
      resolve();
      return;
    }
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(finish, Math.max(0, deadline - Date.now()));
    socket.on('data', (chunk: Buffer) => {
      chunks.parts.push(chunk);
      chunks.size += chunk.length;
      if (chunks.size > STDIN_MAX_BYTES) finish();
    });
    socket.on('end', () => {
      chunks.done = true;
      finish();
    });
    socket.on('error', () => {
      chunks.done = true; // an error ends the input as EOF would: what was read is all there is
      finish();
    });
  });
}

function parse(chunks: Chunks, timeoutMs: number): StdinDocument {
  if (chunks.size > STDIN_MAX_BYTES) return { document: undefined, problem: `stdin is larger than ${STDIN_MAX_BYTES} bytes; ignored` };
  if (!chunks.done && chunks.size === 0) return { document: undefined };
  if (!chunks.done) return { document: undefined, problem: `stdin did not end within ${timeoutMs} ms; ignored` };
  const text = Buffer.concat(chunks.parts).toString('utf8').trim();
  if (text === '') return { document: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { document: undefined, problem: 'stdin is not JSON; ignored' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { document: undefined, problem: 'stdin is not a JSON object; ignored' };
  }
  return { document: value as Record<string, unknown> };
}

export async function readStdinDocument(timeoutMs = STDIN_TIMEOUT_MS, fd = 0): Promise<StdinDocument> {
  const chunks: Chunks = { parts: [], size: 0, done: false };
  let kind: 'file' | 'stream' | 'none';
  try {
    const st = fstatSync(fd);
    kind = st.isFile() ? 'file' : st.isFIFO() || st.isSocket() ? 'stream' : 'none';
  } catch {
    kind = 'none'; // closed (EBADF): nothing to read
  }
  if (kind === 'none') return { document: undefined };
  const deadline = Date.now() + timeoutMs;
  try {
    if (kind === 'file') readFile(fd, chunks);
    else if (!(process.platform === 'linux' && readPipeNonBlocking(fd, chunks, deadline))) {
      await readStream(fd, chunks, deadline);
    }
  } catch (error) {
    return { document: undefined, problem: `stdin could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); ignored` };
  }
  return parse(chunks, timeoutMs);
}
