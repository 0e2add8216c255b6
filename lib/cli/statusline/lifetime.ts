/**
 * When a line-file watcher ends by itself (docs/statusline.md, "The watcher starts itself"):
 * - `--idle-exit SECONDS`: after that long with no live session in its view (a render comes from a
 *   live session, so none renders either);
 * - when its folder is gone from its path or replaced (systemd-logind removes `$XDG_RUNTIME_DIR` when
 *   the user's last login ends: the watcher does not outlive it);
 * - `--until-logout`: when the user's login it started in has ended, where systemd-logind or launchd
 *   can tell (login.ts).
 */
import type { EventEmitter } from 'node:events';
import { lstatSync } from 'node:fs';
import type { WatchEvent } from '../../index.js';
import { UsageError, type ParsedArgs } from '../args.js';
import { tieToLogin } from './login.js';

/** The flags of a watcher that ends by itself (`watch`, `notify`). */
export const LIFETIME_FLAGS = {
  'idle-exit': { type: 'integer', value: 'S', help: 'with --statusline-dir: end after S seconds with no live session' },
  'until-logout': { type: 'boolean', help: "end when the user's last login ends (where systemd-logind or launchd tells)" },
} as const;

/** Checks the lifetime flags before anything starts (a usage error, exit 2). */
export function checkLifetimeFlags(flags: ParsedArgs['flags']): void {
  const idleSeconds = flags['idle-exit'] as number | undefined;
  if (idleSeconds !== undefined && (idleSeconds < 1 || idleSeconds > 31_536_000)) throw new UsageError('--idle-exit must be 1 to 31536000 seconds');
  if (idleSeconds !== undefined && flags['statusline-dir'] === undefined) throw new UsageError('--idle-exit needs --statusline-dir');
}

/**
 * Starts every rule the flags ask for on a running watcher; `stop(why)` ends it. Returns the function
 * that takes them down again. `report` hears once whether the login tie holds and why.
 */
export function startWatcherLifetime(
  flags: ParsedArgs['flags'],
  env: NodeJS.ProcessEnv,
  watcher: EventEmitter,
  lineDir: LifetimeOptions['dir'],
  report: (line: string) => void,
  stop: (why: string) => void,
): () => void {
  const ends: Array<() => void> = [];
  if (lineDir !== undefined) ends.push(startLifetime(watcher, { idleSeconds: flags['idle-exit'] as number | undefined, dir: lineDir }, stop));
  if (flags['until-logout'] === true) {
    const checkMs = Number(env.CLAUDE_PS_LOGIN_CHECK_MS);
    const tie = tieToLogin({ env, checkMs: Number.isSafeInteger(checkMs) && checkMs >= 10 ? checkMs : undefined }, stop);
    report(tie.tied ? `ends with the login (${tie.why})` : `not tied to a login (${tie.why}): ends by --idle-exit only`);
    ends.push(tie.stop);
  }
  return () => {
    for (const end of ends.splice(0)) end();
  };
}

export interface LifetimeOptions {
  /** Seconds with no live session before `stop`; undefined or 0: never. */
  idleSeconds: number | undefined;
  /** The folder whose disappearance or replacement ends the watch, as it was taken. */
  dir: { path: string; dev: number; ino: number } | undefined;
  /** How often the folder is looked at (ms). */
  checkMs?: number;
}

export function startLifetime(watcher: EventEmitter, options: LifetimeOptions, stop: (why: string) => void): () => void {
  const live = new Set<string>();
  let idleSince = Date.now();
  const onChange = (event: WatchEvent) => {
    if (event.type === 'removed' || !event.record.live) live.delete(event.record.path);
    else live.add(event.record.path);
    if (live.size > 0) idleSince = Date.now();
  };
  watcher.on('change', onChange);
  const held = options.dir;
  const idleMs = options.idleSeconds ? options.idleSeconds * 1000 : undefined;
  const timer = setInterval(
    () => {
      if (live.size > 0) idleSince = Date.now();
      if (idleMs !== undefined && live.size === 0 && Date.now() - idleSince >= idleMs) {
        stop(`no live session for ${options.idleSeconds} s`);
        return;
      }
      if (held !== undefined) {
        let st;
        try {
          st = lstatSync(held.path);
        } catch (error) {
          // Only its absence ends the watch; a folder that cannot be looked at now may be back next time.
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') stop(`${held.path} is gone`);
          return;
        }
        if (st.dev !== held.dev || st.ino !== held.ino) stop(`${held.path} was replaced`);
      }
    },
    Math.min(options.checkMs ?? 1000, idleMs ?? Infinity),
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    watcher.off('change', onChange);
  };
}
