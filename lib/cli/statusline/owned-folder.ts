/**
 * The `--statusline-dir` folder, held by identity (docs/statusline.md, "Whose folder"). A statusline
 * prints DIR/<pid> as it is, so DIR must be this user's and stay so: a folder another user could
 * replace, or plant a file in, would reach the terminal (escapes and all). Node has no openat(2), so
 * the folder cannot be held by a descriptor; instead the path's whole chain is checked before each
 * write, as OpenSSH checks a key file's: DIR is ours and nobody else may write it, and every folder
 * above it is ours or root's and writable by nobody else unless sticky (in a sticky folder others
 * cannot rename what is not theirs). While that holds, no other user can swap any part of the path,
 * and DIR's device and inode, taken at the start, prove it is still the same folder.
 */
import { lstatSync, type BigIntStats } from 'node:fs';
import { dirname, join } from 'node:path';

const STICKY = 0o1000;

export class OwnedFolder {
  private readonly dev: bigint;
  private readonly ino: bigint;

  /** `path` is a real path (no symlink in it). Throws, naming `label`, when the chain is not safe. */
  constructor(
    readonly path: string,
    private readonly label: string,
  ) {
    const st = checkChain(path, label);
    this.dev = st.dev;
    this.ino = st.ino;
  }

  /** Throws unless the path is still the folder taken at the start, behind a chain only we (or root) can change. */
  verify(): void {
    const st = checkChain(this.path, this.label);
    if (st.dev !== this.dev || st.ino !== this.ino) {
      throw new Error(`${this.path} is no longer the folder it was at the start (it was moved or replaced); nothing more is written there`);
    }
  }

  /** Throws unless `name` in the folder, still ours, is the file `written` (fstat of what we wrote). */
  holds(name: string, written: BigIntStats): void {
    this.verify();
    const st = lstatSync(join(this.path, name), { bigint: true });
    if (st.dev !== written.dev || st.ino !== written.ino || written.dev !== this.dev) {
      throw new Error(`${join(this.path, name)} is not the file just written there`);
    }
  }
}

/** lstat of every folder from `path` up to `/`, checked; returns `path`'s own. */
function checkChain(path: string, label: string): BigIntStats {
  const uid = process.getuid?.();
  let own: BigIntStats | undefined;
  for (let p = path; ; p = dirname(p)) {
    const st = lstatSync(p, { bigint: true });
    const mode = Number(st.mode);
    const mine = own === undefined;
    if (!st.isDirectory()) {
      throw new Error(mine ? `${label} is not a folder` : `${p}, above ${path}, is no folder any more (a symlink?)`);
    }
    if (uid !== undefined) {
      const owner = Number(st.uid);
      if (mine && owner !== uid) throw new Error(`${path} is not this user's; give it a folder of your own`);
      if (mine && (mode & 0o022) !== 0) {
        throw new Error(`${path} may be written by others (mode ${(mode & 0o777).toString(8)}); chmod go-w it`);
      }
      if (!mine && owner !== uid && owner !== 0) {
        throw new Error(`${p}, above ${path}, belongs to another user (uid ${owner}), who could replace ${path}; use a folder of your own`);
      }
      if (!mine && (mode & 0o022) !== 0 && (mode & STICKY) === 0) {
        throw new Error(`${p}, above ${path}, may be written by others (mode ${(mode & 0o777).toString(8)}, not sticky), who could replace ${path}; chmod go-w it`);
      }
    }
    own ??= st;
    if (dirname(p) === p) return own;
  }
}
