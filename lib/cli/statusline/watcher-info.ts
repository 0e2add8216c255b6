/**
 * `DIR/.watcher`: who keeps a line-file folder (docs/statusline.md, "One watcher per folder"). Only
 * information — the lock is the folder's own (lib/backend/folder-lock.ts) — written by the holder
 * after it took the lock, replaced atomically, removed by the holder or its guardian while the lock
 * is still theirs, so no successor's file is ever removed. Read as untrusted: never followed,
 * blocked on, or read past 4 KiB.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEAD_VERDICTS } from '../../registry/types.js';
import { verdict } from '../../registry/verdict.js';
import { lazyBuiltin } from '../../runtime.js';

// Loaded by the watcher when it writes, never by a render that only reads: node:crypto (and the
// streams it pulls in) is ~10 ms of a statusline render's ~60.
const crypto = lazyBuiltin<typeof import('node:crypto')>('node:crypto');

export const INFO_FILE = '.watcher';
export const INFO_TEMP = /^\.watcher\.[0-9a-f]{12}\.tmp$/;
/** What else a line-file folder may hold: autostart's stamp and the autostarted watcher's stderr. */
export const AUTOSTART_STAMP = '.autostart';
export const WATCHER_LOG = '.watcher.log';

export interface WatcherInfo {
  pid: number;
  /** Its start token, so a PID reused by another process is not taken for it. */
  token: string | null;
  /** When it took the folder (epoch ms). */
  since: number;
  /** The sessions folders it watches (absolute). */
  sessionsDirs: string[];
  /** Whether it also sends desktop notifications (`notify --statusline-dir`). */
  notifies?: boolean;
  /** The other hosts whose waiting sessions its lines name (`--host`), in the order given. */
  hosts?: string[];
}

export function writeWatcherInfo(dir: string, info: WatcherInfo): void {
  const temp = join(dir, `${INFO_FILE}.${crypto().randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, JSON.stringify(info) + '\n', { mode: 0o600, flag: 'wx' });
    renameSync(temp, join(dir, INFO_FILE));
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // never made
    }
    throw error;
  }
}

/** The information in `dir`, or undefined when there is none or it is not one a watcher writes. */
export function readWatcherInfo(dir: string): WatcherInfo | undefined {
  let fd: number | undefined;
  let text: string;
  try {
    fd = openSync(join(dir, INFO_FILE), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > 4096) return undefined;
    text = readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  try {
    const v = JSON.parse(text) as Partial<WatcherInfo>;
    if (typeof v.pid !== 'number' || !Number.isSafeInteger(v.pid) || v.pid < 1) return undefined;
    const sessionsDirs = Array.isArray(v.sessionsDirs) ? v.sessionsDirs.filter((d): d is string => typeof d === 'string') : [];
    const hosts = Array.isArray(v.hosts) ? v.hosts.filter((h): h is string => typeof h === 'string') : [];
    return {
      pid: v.pid,
      token: typeof v.token === 'string' ? v.token : null,
      since: typeof v.since === 'number' && Number.isFinite(v.since) ? v.since : 0,
      sessionsDirs,
      notifies: v.notifies === true,
      hosts,
    };
  } catch {
    return undefined;
  }
}

/** The watcher `dir`'s information names, when that process still runs (not provably dead), else undefined. */
export function runningWatcher(dir: string): WatcherInfo | undefined {
  const info = readWatcherInfo(dir);
  if (info === undefined) return undefined;
  return DEAD_VERDICTS.has(verdict(info.pid, info.token ?? undefined)) ? undefined : info;
}
