/**
 * When a line-file watcher ends by itself (docs/statusline.md, "The watcher starts itself"):
 * - `--idle-exit SECONDS`: after that long with no live session in its view (a render comes from a
 *   live session, so none renders either);
 * - when its folder is gone from its path or replaced (systemd-logind removes `$XDG_RUNTIME_DIR` when
 *   the user's last login ends: the watcher does not outlive it).
 */
import type { EventEmitter } from 'node:events';
import { lstatSync } from 'node:fs';
import type { WatchEvent } from '../../index.js';

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
