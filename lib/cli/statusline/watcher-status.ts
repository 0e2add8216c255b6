/** Whether a line-file watcher keeps the default folder, since when and for which folders (doctor, service status). */
import { folderLockState } from '../../backend/folder-lock.js';
import { printable } from '../format.js';
import { autostartDisabled, defaultLineDir } from './autostart.js';
import { runningWatcher } from './watcher-info.js';

export interface WatcherStatus {
  dir: string;
  /** The folder's lock: `held` by a watcher (or its guardian finishing), `free`, or `unknown` here. */
  lock: 'held' | 'free' | 'unknown';
  /** The watcher DIR/.watcher names, when it still runs. */
  watcher: { pid: number; since: string; sessionsDirs: string[]; notifies: boolean; hosts: string[] } | null;
  autostart: boolean;
}

export function watcherStatus(env: NodeJS.ProcessEnv): WatcherStatus {
  const dir = defaultLineDir(env);
  const lock = folderLockState(dir);
  const info = runningWatcher(dir);
  return {
    dir,
    lock,
    watcher: info
      ? { pid: info.pid, since: new Date(info.since).toISOString(), sessionsDirs: info.sessionsDirs, notifies: info.notifies === true, hosts: info.hosts ?? [] }
      : null,
    autostart: !autostartDisabled(env, false),
  };
}

/** One line for a person. */
export function describeWatcher(s: WatcherStatus): string {
  const auto = s.autostart ? 'autostart on' : 'autostart off (CLAUDE_PS_NO_AUTOSTART)';
  if (s.watcher) {
    const notifies = s.watcher.notifies ? 'notifies' : 'does not notify';
    const hosts = s.watcher.hosts.length > 0 ? `, with hosts ${printable(s.watcher.hosts.join(', '))}` : '';
    return `running, pid ${s.watcher.pid} since ${s.watcher.since}, for ${printable(s.watcher.sessionsDirs.join(', ')) || '(unknown)'}${hosts}; ${notifies}; ${printable(s.dir)}; ${auto}`;
  }
  const lock = s.lock === 'held' ? ' (its lock is held: a watcher is starting or its guardian is cleaning up)' : '';
  return `none${lock}; ${printable(s.dir)}; ${auto}`;
}
