/**
 * The watcher starts itself (docs/statusline.md, "The watcher starts itself"), as watchman, gpg-agent
 * and sccache do: a `claude-ps statusline` render that finds no watcher serving its sessions folders
 * starts an ordinary `claude-ps watch --statusline-dir DIR --idle-exit S --until-logout` process
 * (`notify …` with `--notify`, `--host …` with the render's hosts), detached (its own session, stdout
 * to /dev/null, stderr to `DIR/.watcher.log`), and answers its own render the slow way.
 * At most once per few seconds however many renders race (an exclusive stamp file), and at most one
 * watcher per folder whatever happens (the folder's lock, taken by the watcher itself).
 */
import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, realpathSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { OwnedFolder } from './owned-folder.js';
import { spawnDetached } from './spawn-detached.js';
import { AUTOSTART_STAMP, runningWatcher, WATCHER_LOG } from './watcher-info.js';

/** Renders that find no watcher start one at most this often. */
export const AUTOSTART_EVERY_MS = 5000;
/** An autostarted watcher ends after this long with no live session (CLAUDE_PS_IDLE_EXIT, --idle-exit). */
export const DEFAULT_IDLE_EXIT_S = 300;
const LOG_LIMIT = 64 * 1024;

/**
 * The default line-file folder: `$XDG_RUNTIME_DIR/claude-ps` (a login's own folder, removed when it
 * ends), else `${TMPDIR:-/tmp}/claude-ps-<uid>`. Computed as the settings snippet's shell does, so both
 * name the same folder. An XDG_RUNTIME_DIR that is not absolute is ignored, as the XDG Base Directory
 * spec says (the watcher runs in `/`, the snippet wherever Claude Code runs it).
 */
export function defaultLineDir(env: NodeJS.ProcessEnv): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime !== undefined && runtime.startsWith('/')) return join(runtime, 'claude-ps');
  const tmp = (env.TMPDIR || '/tmp').replace(/(.)\/+$/, '$1');
  return join(tmp, `claude-ps-${process.getuid?.() ?? 'user'}`);
}

export type AutostartOutcome =
  | { state: 'disabled' }
  | { state: 'running'; pid: number }
  | { state: 'started'; pid: number | undefined; notifies: boolean }
  | { state: 'throttled' }
  | { state: 'refused'; problem: string };

export interface AutostartRequest {
  env: NodeJS.ProcessEnv;
  /** The sessions folders this render read (absolute): a watcher must serve them all. */
  sessionsDirs: readonly string[];
  /** `--no-autostart`. */
  disabled?: boolean;
  /** `--idle-exit S`, else CLAUDE_PS_IDLE_EXIT, else DEFAULT_IDLE_EXIT_S. */
  idleExitSeconds?: number;
  /** `statusline --notify`: the watcher is `claude-ps notify`, so one process serves both. */
  notify?: boolean;
  /** `statusline --host NAME…` (other hosts only): the watcher is started with the same list. */
  hosts?: readonly string[];
  /** `--host-timeout S`, passed on with the hosts. */
  hostTimeoutSeconds?: number;
}

/**
 * The desktop notifier a detached watcher can use (notify-send with a desktop session, osascript),
 * chosen by notify's own rule; undefined when that rule picks a terminal escape (a detached process
 * has no terminal) or finds nothing. Loaded only when a watcher is being started.
 */
async function desktopNotifier(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const { chooseSender } = await import('../notify/senders.js');
  try {
    const sender = chooseSender(undefined, env, () => {});
    sender.close();
    return sender.name === 'notify-send' || sender.name === 'osascript' ? sender.name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The watcher's environment: the render's, without what names the render's own session. A notifying
 * watcher would otherwise take that session for its own and never announce it; and no line of any
 * session depends on which one happened to start the watcher.
 */
function watcherEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { CLAUDE_PID: _pid, CLAUDE_CODE_SESSION_ID: _session, ...rest } = env;
  return rest;
}

export function autostartDisabled(env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean {
  return flag === true || (env.CLAUDE_PS_NO_AUTOSTART !== undefined && env.CLAUDE_PS_NO_AUTOSTART !== '' && env.CLAUDE_PS_NO_AUTOSTART !== '0');
}

function idleExit(request: AutostartRequest): number {
  const valid = (s: number | undefined): s is number => s !== undefined && Number.isSafeInteger(s) && s >= 1 && s <= 31_536_000;
  if (valid(request.idleExitSeconds)) return request.idleExitSeconds;
  const fromEnv = Number(request.env.CLAUDE_PS_IDLE_EXIT);
  return valid(fromEnv) ? fromEnv : DEFAULT_IDLE_EXIT_S;
}

/**
 * The folder as `--statusline-dir` would take it, created when missing: not a symlink (the snippet
 * refuses one), and the chain the watcher checks (owned-folder.ts), so no render starts a watcher
 * that would refuse the folder and exit, every few seconds.
 */
function ownFolder(dir: string): string | undefined {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') return `cannot create ${dir} (${code ?? String(error)})`;
  }
  try {
    if (!lstatSync(dir).isDirectory()) return `${dir} is not a folder`;
    new OwnedFolder(realpathSync(dir), dir);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

/** One render's claim on starting a watcher: true for exactly one of the renders racing in a window. */
function claimStart(dir: string): boolean {
  const stamp = join(dir, AUTOSTART_STAMP);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      closeSync(openSync(stamp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    let age: number;
    try {
      age = Date.now() - lstatSync(stamp).mtimeMs;
    } catch {
      continue; // removed meanwhile: try to create it
    }
    if (age >= 0 && age < AUTOSTART_EVERY_MS) return false;
    try {
      unlinkSync(stamp);
    } catch {
      // another render took it away first
    }
  }
  return false;
}

/** `DIR/.watcher.log` for the watcher's stderr (appended, cut back when it has grown), or 'ignore'. */
function logFd(dir: string): number | 'ignore' {
  try {
    const fd = openSync(join(dir, WATCHER_LOG), constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
    const st = fstatSync(fd);
    if (!st.isFile()) {
      closeSync(fd);
      return 'ignore';
    }
    if (st.size > LOG_LIMIT) ftruncateSync(fd, 0);
    return fd;
  } catch {
    return 'ignore';
  }
}

/** The command line that runs this CLI again: this Node and this script, by absolute path. */
export function selfCommand(): { node: string; script: string } {
  const script = process.argv[1] ?? '';
  return { node: process.execPath, script: isAbsolute(script) ? script : resolve(script) };
}

/** Starts the watcher when none serves `request.sessionsDirs` and no render started one just now. */
export async function autostartWatcher(request: AutostartRequest): Promise<AutostartOutcome> {
  if (autostartDisabled(request.env, request.disabled)) return { state: 'disabled' };
  // Line files need the POSIX guardian shell and a kernel-released folder lock: none on Windows, whose
  // statusline renders the slow way (docs/windows.md).
  if (process.platform === 'win32') return { state: 'disabled' };
  const dir = defaultLineDir(request.env);
  const problem = ownFolder(dir);
  if (problem !== undefined) return { state: 'refused', problem: `no watcher started: ${problem}` };
  const running = runningWatcher(dir);
  if (running !== undefined) {
    // One watcher per folder: one serving other folders is left alone, and this session renders the slow way.
    return { state: 'running', pid: running.pid };
  }
  if (!claimStart(dir)) return { state: 'throttled' };
  const { node, script } = selfCommand();
  const configDirs = request.sessionsDirs.flatMap((s) => ['--config-dir', dirname(s)]);
  // `notify` reads this machine only: with other hosts, the line (the watcher's first duty) wins.
  const notifier = request.notify === true && (request.hosts ?? []).length === 0 ? await desktopNotifier(request.env) : undefined;
  const command = notifier === undefined ? ['watch'] : ['notify', '--via', notifier];
  const hosts = (request.hosts ?? []).flatMap((h) => ['--host', h]);
  if (hosts.length > 0 && request.hostTimeoutSeconds !== undefined) hosts.push('--host-timeout', String(request.hostTimeoutSeconds));
  const args = [script, ...command, '--statusline-dir', dir, '--idle-exit', String(idleExit(request)), '--until-logout', ...hosts, ...configDirs];
  const log = logFd(dir);
  try {
    const pid = spawnDetached(node, args, { cwd: '/', stderr: log, env: watcherEnv(request.env) });
    return { state: 'started', pid, notifies: notifier !== undefined };
  } finally {
    if (typeof log === 'number') closeSync(log);
  }
}
