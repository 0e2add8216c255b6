/**
 * Where OpenSSH keeps the shared connections' sockets: a folder of ours in the user's runtime folder
 * ($XDG_RUNTIME_DIR, else the temp folder), mode 0700, owned by us and no symlink. A socket there lets
 * whoever can reach it run commands as us on the remote, so when such a folder cannot be had the
 * reads go without multiplexing (slower, never less safe).
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { lazyBuiltin } from '../runtime.js';

// node:os when a control folder is chosen (a host read), not at every library load.
const os = lazyBuiltin<typeof import('node:os')>('node:os');

// A socket path is at most 104 bytes (macOS; 108 on Linux). ssh writes `<ControlPath>.<16 random>`
// first, and %C is 40 hex digits: the folder must leave room for both. Bytes, not characters: an
// `é` is one UTF-16 unit but two bytes of sun_path.
const MAX_DIR_BYTES = 104 - 1 - 40 - 17;

function ownedPrivateDir(dir: string): boolean {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  try {
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The ControlPath folder, or undefined: no multiplexing. */
export function controlDir(env: NodeJS.ProcessEnv): string | undefined {
  const runtime = env.XDG_RUNTIME_DIR;
  const uid = process.getuid?.() ?? 'user';
  const choices = [
    runtime && isAbsolute(runtime) ? join(runtime, 'claude-ps-ssh') : undefined,
    join(os().tmpdir(), `claude-ps-ssh-${uid}`),
  ];
  for (const dir of choices) {
    if (dir !== undefined && Buffer.byteLength(dir) <= MAX_DIR_BYTES && ownedPrivateDir(dir)) return dir;
  }
  return undefined;
}
