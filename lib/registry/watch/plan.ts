/**
 * Which paths the watcher's next read checks: the files OS events named, and the folders marked for a
 * rescan, each `full` (list the folder, lstat every candidate) or `cheap`. A cheap rescan is the
 * periodic safety net under working OS events (docs/watch.md): it stats the folder and lists it only
 * if the folder changed since its last listing (an entry added, removed or renamed), and otherwise
 * looks only at the table's suspects: files whose last read proves nothing yet (racily clean, or
 * caught mid-write). So an idle watcher of many records costs about what one of an empty folder does.
 */
import type { DirWatch, FolderStamp } from './dirs.js';
import { RACY_WINDOW_MS, type FileState } from './files.js';
import { isIn, listFolder } from './listing.js';
import type { RegistryUnreadableError } from '../read/unreadable-folder.js';

export type Depth = 'full' | 'cheap';

/** Rescans in a row whose listing kept changing before the watcher says the folder cannot be listed. */
export const BUSY_RESCANS = 10;

interface Listed extends FolderStamp {
  /** Date.now() just before the stat the listing was made after. */
  listedAt: number;
}

function sameFolder(a: FolderStamp, b: FolderStamp | undefined): boolean {
  return b !== undefined && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

export class ScanPlan {
  private readonly folders = new Map<DirWatch, Depth>();
  private readonly files = new Set<string>();
  private readonly unwatched = new Set<DirWatch>();
  private readonly listed = new Map<DirWatch, Listed>();
  /** Folders that could not be listed last time: said once, not at every rescan. */
  private readonly unlistable = new Set<DirWatch>();
  /** Folders whose listings kept changing, with how many rescans in a row; `again`: list at the next one. */
  private readonly busy = new Map<DirWatch, number>();
  private readonly again = new Set<DirWatch>();

  /** An OS event named this file: it is read even if its stamp looks unchanged. */
  markFile(path: string): void {
    this.files.add(path);
  }

  markFolder(dir: DirWatch, depth: Depth): void {
    if (this.folders.get(dir) !== 'full') this.folders.set(dir, depth);
  }

  /** True when the OS does not watch this folder (its files are then swept every interval). */
  isUnwatched(dir: DirWatch): boolean {
    return this.unwatched.has(dir);
  }

  /**
   * The paths to check now, which of them an OS event named, and the folders that have just become
   * unlistable (each reported once). Clears the marks.
   */
  take(
    table: ReadonlyMap<string, FileState>,
    suspects: ReadonlySet<string>,
    first = false,
  ): { paths: Set<string>; named: Set<string>; unlistable: RegistryUnreadableError[] } {
    // The first view has no records to keep: a folder that kept changing is the readers' error at once.
    const patience = first ? 1 : BUSY_RESCANS;
    const paths = new Set<string>();
    const unlistable: RegistryUnreadableError[] = [];
    if (this.folders.size === 0 && this.files.size === 0) return { paths, named: paths, unlistable }; // an idle interval
    for (const [d, depth] of this.folders) {
      const at = Date.now();
      const { exists, watched, stamp } = d.sync();
      if (watched) this.unwatched.delete(d);
      else this.unwatched.add(d);
      const last = this.listed.get(d);
      if (depth === 'cheap' && watched && stamp && sameFolder(stamp, last) && last!.mtimeMs < last!.listedAt - RACY_WINDOW_MS) {
        for (const path of suspects) if (isIn(d.dir, path)) paths.add(path);
        continue;
      }
      // Listed even when sync() saw no folder: a dangling link, a file, a FIFO or a socket in its place
      // is the readers' error (cannot tell), not an empty registry; only a name with nothing there is.
      const listing = listFolder(d.dir);
      if (Array.isArray(listing)) {
        for (const path of listing) paths.add(path);
        this.unlistable.delete(d);
        this.busy.delete(d);
        if (stamp) this.listed.set(d, { ...stamp, listedAt: at });
        else this.listed.delete(d);
      } else {
        // Its known records are kept as they are, never reported removed on a guess.
        // A folder that kept changing while listed (a prune at work: EAGAIN) is listed again at the
        // next interval, and said only if it stays so for BUSY_RESCANS of them.
        const busy = listing.reason === 'EAGAIN' ? (this.busy.get(d) ?? 0) + 1 : 0;
        if (busy > 0) this.busy.set(d, busy);
        if (!this.unlistable.has(d) && (busy === 0 || busy >= patience)) unlistable.push(listing);
        if (busy === 0 || busy >= patience) this.unlistable.add(d);
        else this.again.add(d);
        this.listed.delete(d);
        continue;
      }
      for (const path of table.keys()) if (isIn(d.dir, path)) paths.add(path);
    }
    this.folders.clear();
    for (const d of this.again) this.folders.set(d, 'full');
    this.again.clear();
    const named = new Set<string>();
    for (const path of this.files) {
      // A file OS events named in a folder that cannot be listed now would read as gone: it is unknown.
      if (this.inUnlistable(path)) continue;
      named.add(path);
      paths.add(path);
    }
    this.files.clear();
    return { paths, named, unlistable };
  }

  private inUnlistable(path: string): boolean {
    for (const d of this.unlistable) if (isIn(d.dir, path)) return true;
    for (const d of this.busy.keys()) if (isIn(d.dir, path)) return true;
    return false;
  }

  clear(): void {
    this.folders.clear();
    this.files.clear();
  }
}
