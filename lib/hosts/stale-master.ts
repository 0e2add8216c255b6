/**
 * A shared connection whose master stopped answering (SIGSTOPped, wedged) makes every read over its
 * socket wait out its whole timeout, for as long as that master lives. So after a read over one
 * timed out, the master itself is asked (`ssh -O check`, against our own ControlPath only); one that
 * does not answer within CHECK_TIMEOUT_MS has its socket renamed to `<name>.aside` in our folder,
 * and the next read starts a new master. A master that answers is left alone (the remote was slow,
 * not the connection). The old master is never signalled: we cannot prove what it is doing, and it
 * ends by itself (ControlPersist, ServerAlive) once it runs again. docs/hosts.md says the same.
 */
import { lstatSync, renameSync, type Stats } from 'node:fs';
import { basename, dirname } from 'node:path';
import { lazyBuiltin } from '../runtime.js';

const childProcess = lazyBuiltin<typeof import('node:child_process')>('node:child_process');

/** How long a master has to answer `ssh -O check` (a healthy one answers at once, whatever it carries). */
export const CHECK_TIMEOUT_MS = 2000;

/** The exit status of a short ssh run of ours, `silent` when it was killed at `ms`, undefined when it could not run. */
function runBriefly(argv: readonly string[], env: NodeJS.ProcessEnv, ms: number): Promise<{ status: number | 'silent'; stdout: string } | undefined> {
  return new Promise((resolve) => {
    try {
      childProcess().execFile(
        argv[0]!,
        argv.slice(1),
        { env: { ...env, LC_ALL: 'C' }, timeout: ms, killSignal: 'SIGKILL', maxBuffer: 1 << 20, encoding: 'utf8', windowsHide: true },
        (error, stdout) => {
          if (error === null) return resolve({ status: 0, stdout });
          if (typeof error.code === 'number') return resolve({ status: error.code, stdout });
          resolve(error.killed ? { status: 'silent', stdout } : undefined);
        },
      );
    } catch {
      resolve(undefined); // EMFILE and the like: nothing is known, so nothing is moved
    }
  });
}

function socketOfOurs(path: string): Stats | undefined {
  try {
    const st = lstatSync(path);
    return st.isSocket() && st.uid === process.getuid?.() ? st : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `args`: the read's own ssh argument list (…, `--`, host, remote command), whose ControlPath is
 * `control`/%C. Resolves with what was done (for the host's detail), or undefined: nothing.
 * `since`: when the read started (ms, this clock); a socket made after it is that read's own master.
 */
export async function setAsideSilentMaster(args: readonly string[], env: NodeJS.ProcessEnv, control: string, since: number): Promise<string | undefined> {
  if (args.at(-3) !== '--') return undefined;
  const options = args.slice(0, -3);
  const host = args.at(-2)!;
  // ssh itself says where its socket is: %C hashes the host, port and user its config resolves.
  const config = await runBriefly([...options, '-G', '--', host], env, CHECK_TIMEOUT_MS);
  if (config?.status !== 0) return undefined;
  const path = /^controlpath (.+)$/m.exec(config.stdout)?.[1];
  // Only a socket in our own folder (CLAUDE_PS_SSH may name a ControlPath of its own: not ours to move).
  if (path === undefined || dirname(path) !== control) return undefined;
  const before = socketOfOurs(path);
  if (before === undefined || before.ctimeMs >= since) return undefined;
  const check = await runBriefly([...options, '-O', 'check', '--', host], env, CHECK_TIMEOUT_MS);
  if (check === undefined || check.status === 0) return undefined;
  const now = socketOfOurs(path);
  // Still the socket that was asked: a new master may have taken the name meanwhile.
  if (now === undefined || now.ino !== before.ino || now.dev !== before.dev) return undefined;
  try {
    renameSync(path, `${path}.aside`);
  } catch {
    return undefined;
  }
  const how = check.status === 'silent' ? `did not answer within ${CHECK_TIMEOUT_MS} ms` : `answered with exit ${check.status}`;
  return `the shared connection's master ${how} to ssh -O check: its socket was set aside (${basename(path)}.aside), the next read starts a new one`;
}
