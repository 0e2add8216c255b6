/**
 * Whether this user still has a login, where the system can tell (docs/statusline.md, "When the
 * watcher ends"), so an autostarted watcher (`--until-logout`) never outlives the login it started in.
 * - Linux with systemd-logind: logind keeps `/run/systemd/users/<uid>`, the file sd_uid_get_state(3)
 *   reads, with `STATE=` one of offline, lingering, online, active, closing (opening while logging
 *   in). A file that cannot be read, or a state not listed, is "cannot tell".
 * - macOS: launchd's `gui/<uid>` domain exists only while the user is logged in at the GUI
 *   (launchctl(1)); `launchctl print gui/<uid>` is asked, and only "could not find domain" is "out".
 * The tie is made only when the login was there at the start: a watcher started with no login (an
 * ssh command, a lingering user's tmux) rests on --idle-exit alone. "Out" needs proof; "cannot tell"
 * never ends a watcher.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { lazyBuiltin } from '../../runtime.js';

const childProcess = lazyBuiltin<typeof import('node:child_process')>('node:child_process');

export type LoginAnswer = { login: 'in' | 'out' | 'unknown'; why: string };

const IN_STATES = new Set(['active', 'online', 'opening']);
// sd_uid_get_state(3): lingering is "user not logged in, but some user services running"; closing is
// "user not logged in, and not lingering, but some processes are still around".
const OUT_STATES = new Set(['offline', 'lingering', 'closing']);

/** logind's answer from its user file's text (undefined: no such file, while logind's folder is there). */
export function logindAnswer(text: string | undefined): LoginAnswer {
  if (text === undefined) return { login: 'out', why: 'logind has no record of this user (offline)' };
  const state = /^STATE=([a-z]+)$/m.exec(text)?.[1];
  if (state === undefined) return { login: 'unknown', why: 'logind user file without STATE=' };
  if (IN_STATES.has(state)) return { login: 'in', why: `logind: STATE=${state}` };
  if (OUT_STATES.has(state)) return { login: 'out', why: `logind: STATE=${state}` };
  return { login: 'unknown', why: `logind: STATE=${state} (not a known state)` };
}

/** launchd's answer from `launchctl print gui/<uid>`: its exit status and what it said on stderr. */
export function launchdAnswer(status: number | null, stderr: string): LoginAnswer {
  if (status === 0) return { login: 'in', why: 'launchd: gui domain present' };
  if (status !== null && /could not find domain/i.test(stderr)) return { login: 'out', why: 'launchd: no gui domain (logged out)' };
  return { login: 'unknown', why: `launchctl print: exit ${status ?? 'signal'}` };
}

/**
 * Where logind keeps its user files: `/run/systemd/users`, under CLAUDE_PS_LOGIN_ROOT when set (the
 * tests give a fake root; nothing else should).
 */
export function logindUsersDir(env: NodeJS.ProcessEnv): string {
  const root = env.CLAUDE_PS_LOGIN_ROOT;
  return join(root && root.startsWith('/') ? root : '/', 'run', 'systemd', 'users');
}

/** Reads logind's file for `uid`: never follows a link, never blocks on a FIFO, never reads past 4 KiB. */
export function readLogind(usersDir: string, uid: number): LoginAnswer {
  let fd: number | undefined;
  try {
    fd = openSync(join(usersDir, String(uid)), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return { login: 'unknown', why: 'logind user file is not a file' };
    const buffer = Buffer.alloc(4096);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    return logindAnswer(buffer.subarray(0, n).toString('utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return { login: 'unknown', why: `cannot read logind user file (${code ?? String(error)})` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  // No file: "offline" only where logind keeps its folder at all (else there is no logind to ask).
  try {
    if (lstatSync(usersDir).isDirectory()) return logindAnswer(undefined);
  } catch {
    // no logind here
  }
  return { login: 'unknown', why: 'no systemd-logind here' };
}

export interface LoginTieOptions {
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** How often logind's file is read (ms, default 2000); launchctl is asked every 15 × this. */
  checkMs?: number;
  /** macOS: runs `launchctl print gui/<uid>` and hands over its exit status and stderr (tests inject answers). */
  launchctl?: (uid: number, done: (status: number | null, stderr: string) => void) => void;
}

function runLaunchctl(uid: number, done: (status: number | null, stderr: string) => void): void {
  childProcess().execFile('/bin/launchctl', ['print', `gui/${uid}`], { timeout: 5000, maxBuffer: 1 << 20 }, (error, _stdout, stderr) => {
    const code = (error as { code?: unknown } | null)?.code;
    done(error === null ? 0 : typeof code === 'number' ? code : null, String(stderr));
  });
}

/**
 * Calls `ended(why)` once the login that was there at the start is gone. Returns what the start found
 * (`tied`: whether it watches at all) and the function that stops watching.
 */
export function tieToLogin(options: LoginTieOptions, ended: (why: string) => void): { tied: boolean; why: string; stop: () => void } {
  const platform = options.platform ?? process.platform;
  const uid = process.getuid?.();
  const checkMs = options.checkMs ?? 2000;
  if (uid === undefined) return { tied: false, why: 'no user id here', stop: () => {} };
  if (platform === 'linux') {
    const dir = logindUsersDir(options.env);
    const first = readLogind(dir, uid);
    if (first.login !== 'in') return { tied: false, why: first.why, stop: () => {} };
    const timer = setInterval(() => {
      const now = readLogind(dir, uid);
      if (now.login === 'out') {
        clearInterval(timer);
        ended(`the user's login ended (${now.why})`);
      }
    }, checkMs);
    timer.unref();
    return { tied: true, why: first.why, stop: () => clearInterval(timer) };
  }
  if (platform === 'darwin') {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const launchctl = options.launchctl ?? runLaunchctl;
    const ask = (then: (answer: LoginAnswer) => void) => launchctl(uid, (status, stderr) => then(launchdAnswer(status, stderr)));
    // The first answer decides whether to watch at all; until it comes, nothing ends.
    ask((first) => {
      if (stopped || first.login !== 'in') return;
      const again = () => {
        timer = setTimeout(() => ask((now) => {
          if (stopped) return;
          if (now.login === 'out') ended(`the user's login ended (${now.why})`);
          else again();
        }), checkMs * 15);
        timer.unref();
      };
      again();
    });
    return { tied: true, why: 'launchd: asked', stop: () => { stopped = true; clearTimeout(timer); } };
  }
  return { tied: false, why: `no login record on ${platform}`, stop: () => {} };
}
