/**
 * OS file events for one `sessions/` folder: `fs.watch` on the folder for its files, and on its parent
 * so that a folder created (or deleted and re-created) later is noticed. Events only say "look here";
 * the watcher re-reads what they name. Where `fs.watch` is unavailable or fails, `watched` is false
 * and the watcher rescans the folder every interval instead.
 */
import { statSync, watch as fsWatch, type FSWatcher, type Stats } from 'node:fs';
import { basename, dirname } from 'node:path';

/** What changes when a folder gains, loses or renames an entry (or is replaced). */
export interface FolderStamp {
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

export interface DirEvents {
  /** A file in the folder may have changed (`null`: the OS did not say which: rescan the folder). */
  onFile(name: string | null): void;
  /** The folder itself may have appeared, vanished or been replaced: sync() it and rescan. */
  onFolder(): void;
}

function tryWatch(path: string, listener: (name: string | null) => void, onError: () => void): FSWatcher | undefined {
  try {
    const watcher = fsWatch(path, { persistent: true, encoding: 'utf8' }, (_type, name) => listener(name ?? null));
    // An error (e.g. the folder was removed under an inotify watch) ends this watcher; the next sync re-attaches.
    watcher.on('error', onError);
    return watcher;
  } catch {
    // ENOENT, ENOSPC (inotify limit), EACCES, or no fs.watch on this platform: the rescan serves.
    return undefined;
  }
}

export class DirWatch {
  private folder: FSWatcher | undefined;
  private folderIno: number | undefined;
  private parent: FSWatcher | undefined;
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly events: DirEvents,
  ) {}

  /**
   * Attaches (or re-attaches, when the folder was replaced) the OS watches. Returns whether the folder
   * exists, and whether OS events cover it: then a periodic rescan is only a safety net.
   */
  sync(): { exists: boolean; watched: boolean; stamp?: FolderStamp } {
    if (this.closed) return { exists: false, watched: false };
    let stat: Stats | undefined;
    try {
      stat = statSync(this.dir, { throwIfNoEntry: false });
    } catch {
      stat = undefined; // ELOOP, EACCES on a parent, ENOTDIR: no folder to watch; the listing says why
    }
    const folder = stat !== undefined && stat.isDirectory() ? stat : undefined;
    const exists = folder !== undefined;
    if (folder === undefined || folder.ino !== this.folderIno) this.closeFolder();
    if (folder !== undefined && this.folder === undefined) {
      this.folder = tryWatch(this.dir, (name) => this.events.onFile(name), () => this.broken());
      this.folderIno = this.folder ? folder.ino : undefined;
    }
    if (this.parent === undefined) {
      const name = basename(this.dir);
      this.parent = tryWatch(
        dirname(this.dir),
        (changed) => {
          if (changed === null || changed === name) this.events.onFolder();
        },
        () => this.broken(),
      );
    }
    // A missing folder is covered when its parent is watched (its creation will be reported).
    const watched = exists ? this.folder !== undefined && this.parent !== undefined : this.parent !== undefined;
    return { exists, watched, stamp: folder && { ino: folder.ino, mtimeMs: folder.mtimeMs, ctimeMs: folder.ctimeMs } };
  }

  private broken(): void {
    this.closeFolder();
    this.closeParent();
    this.events.onFolder();
  }

  private closeFolder(): void {
    this.folder?.close();
    this.folder = undefined;
    this.folderIno = undefined;
  }

  private closeParent(): void {
    this.parent?.close();
    this.parent = undefined;
  }

  close(): void {
    this.closed = true;
    this.closeFolder();
    this.closeParent();
  }
}
