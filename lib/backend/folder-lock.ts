/**
 * A lock on a folder that the kernel releases with its last holder (docs/statusline.md, "One watcher
 * per folder"): `flock(2)` on the folder itself through the addon, and on Linux an abstract Unix
 * socket bound to a name derived from the folder's device and inode. Nothing is created, read or
 * unlinked to take or give it back, so there is no check-then-unlink race and no stale lock: a holder
 * killed with -9 holds nothing. A holder keeps each lock as a descriptor it can hand to a child (the
 * line files' guardian), which then holds it too until it exits.
 *
 * Which locks are taken: every one the platform offers. With the addon, flock and (Linux) the socket;
 * without it on Linux, the socket only; without it on macOS, none, and taking fails ("cannot tell"
 * is no licence to share a folder). A watcher owns the folder only while it holds all it took, and a
 * watcher with the addon always takes the socket too, so watchers with and without the addon exclude
 * each other. (The socket's name lives in a network namespace: two addon-less watchers in different
 * namespaces sharing one folder are not excluded; with the addon, flock is.)
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, lstatSync, readFileSync } from 'node:fs';
import { lazyBuiltin } from '../runtime.js';
import { errnoName } from './exits.js';
import { servingAddon } from './index.js';

interface LockAddon {
  lockFolder(path: string): number;
}

export interface FolderLock {
  /** The descriptors that hold it (flock's folder descriptor, the socket's): a child given them holds it too. */
  readonly fds: readonly number[];
  /** Which locks are held. */
  readonly kinds: ReadonlyArray<'flock' | 'socket'>;
  /** Gives this process's hold back (a child that inherited the descriptors still holds it). */
  release(): void;
}

export type LockAttempt = { lock: FolderLock } | { busy: true } | { error: string };

function lockAddon(): LockAddon | undefined {
  const addon = servingAddon() as Partial<LockAddon> | undefined;
  return typeof addon?.lockFolder === 'function' ? (addon as LockAddon) : undefined;
}

/** The abstract socket's name for a folder: per user and per inode, so a renamed folder keeps its lock. */
export function socketName(dev: number, ino: number): string {
  const uid = process.getuid?.() ?? 0;
  const digest = createHash('sha256').update(`${dev}:${ino}`).digest('hex').slice(0, 32);
  return `\0claude-ps-lock-${uid}-${digest}`;
}

type Listening = { close(): void; _handle?: { fd?: number } };

// Loaded only by a process that takes a lock: a statusline render never does.
const net = lazyBuiltin<typeof import('node:net')>('node:net');

async function bindSocket(name: string): Promise<{ server: Listening; fd: number } | 'busy' | { error: string }> {
  const server = net().createServer();
  return new Promise((resolve) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code === 'EADDRINUSE' ? 'busy' : { error: `abstract socket: ${error.code ?? error.message}` });
    });
    server.listen({ path: name, exclusive: true }, () => {
      server.unref();
      const fd = (server as unknown as Listening)._handle?.fd;
      // Without its descriptor the guardian could not hold the lock after us: not a lock we can keep.
      if (typeof fd !== 'number' || fd < 0) {
        server.close();
        resolve({ error: 'abstract socket: no descriptor to hand on' });
      } else resolve({ server: server as unknown as Listening, fd });
    });
  });
}

/**
 * One attempt to take every lock the platform offers on `dir` (a folder the caller has checked):
 * `busy` when another holder has any of them, an `error` when none can be taken here.
 */
export async function lockFolder(dir: string): Promise<LockAttempt> {
  const addon = lockAddon();
  let flockFd: number | undefined;
  let dev: number;
  let ino: number;
  if (addon !== undefined) {
    const fd = addon.lockFolder(dir);
    if (fd < 0) return errnoName(fd) === 'EWOULDBLOCK' || errnoName(fd) === 'EAGAIN' ? { busy: true } : { error: `flock ${dir}: ${errnoName(fd)}` };
    flockFd = fd;
    const st = fstatSync(fd);
    [dev, ino] = [st.dev, st.ino];
  } else if (process.platform === 'linux') {
    try {
      const st = lstatSync(dir);
      [dev, ino] = [st.dev, st.ino];
    } catch (error) {
      return { error: `${dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
    }
  } else {
    return { error: `no lock the kernel releases on ${process.platform} without the native addon` };
  }
  const fds = flockFd === undefined ? [] : [flockFd];
  const kinds: Array<'flock' | 'socket'> = flockFd === undefined ? [] : ['flock'];
  let server: Listening | undefined;
  if (process.platform === 'linux') {
    const bound = await bindSocket(socketName(dev, ino));
    if (bound === 'busy' || 'error' in bound) {
      if (flockFd !== undefined) closeSync(flockFd);
      return bound === 'busy' ? { busy: true } : bound;
    }
    server = bound.server;
    fds.push(bound.fd);
    kinds.push('socket');
  }
  let released = false;
  return {
    lock: {
      fds,
      kinds,
      release() {
        if (released) return;
        released = true;
        if (flockFd !== undefined) closeSync(flockFd);
        server?.close();
      },
    },
  };
}

/** Tries to take the locks every `stepMs` until `timeoutMs` has passed (a guardian cleaning up holds them briefly). */
export async function lockFolderWithin(dir: string, timeoutMs: number, stepMs = 50): Promise<LockAttempt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const attempt = await lockFolder(dir);
    if (!('busy' in attempt) || Date.now() >= deadline) return attempt;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Whether the abstract socket `name` is bound in this network namespace (Linux: /proc/net/unix), or undefined. */
function socketBound(name: string): boolean | undefined {
  try {
    const table = readFileSync('/proc/net/unix', 'latin1');
    // Node binds the whole sun_path: the name shows padded with NULs, printed as `@`.
    const shown = ` @${name.slice(1)}`;
    return table.includes(shown + "\n") || table.includes(shown + "@");
  } catch {
    return undefined;
  }
}

/**
 * Whether some process holds `dir`'s lock now, without keeping it: `held`, `free`, or `unknown`
 * (it cannot be asked here). Taking flock for an instant may make a starting watcher's attempt fail
 * once; watchers retry.
 */
export function folderLockState(dir: string): 'held' | 'free' | 'unknown' {
  const addon = lockAddon();
  let st;
  try {
    st = lstatSync(dir);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'free' : 'unknown'; // no folder, no lock on it
  }
  if (addon !== undefined) {
    const fd = addon.lockFolder(dir);
    if (fd < 0) return errnoName(fd) === 'EWOULDBLOCK' || errnoName(fd) === 'EAGAIN' ? 'held' : 'unknown';
    closeSync(fd);
    if (process.platform !== 'linux') return 'free';
  }
  if (process.platform !== 'linux') return 'unknown';
  const bound = socketBound(socketName(st.dev, st.ino));
  return bound === undefined ? 'unknown' : bound ? 'held' : 'free';
}
