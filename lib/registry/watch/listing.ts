/**
 * What a rescan of one `sessions/` folder looks at: the one place the watcher lists a folder, so that
 * whatever else the registry read counts as a claim (docs/registry.md) is added here once.
 */
import { join } from 'node:path';
import { claimNames, shadowedCopies } from '../prune/names.js';
import { listComplete } from '../read/complete-listing.js';
import { RegistryUnreadableError } from '../read/unreadable-folder.js';

/**
 * The paths of the folder's claims now: its candidates, and the copies an interrupted prune left
 * aside (docs/prune.md), exactly as the registry read counts them, from a listing proven complete (a
 * name missed is a `removed` on a guess). A missing folder has none; one that cannot be listed, or
 * kept changing while it was listed, returns the reader's own RegistryUnreadableError, so that
 * the watcher can say so rather than report an empty registry in silence.
 */
export function listFolder(dir: string): string[] | RegistryUnreadableError {
  let names: string[];
  try {
    names = listComplete(dir);
  } catch (err) {
    if (err instanceof RegistryUnreadableError) return err;
    throw err;
  }
  // Copies beside their own <pid>.json as well: checkFiles keeps only those that are a second claim.
  return claimNames(names).concat(shadowedCopies(names)).map((name) => join(dir, name));
}

/** Whether `path` lies directly in `dir` (a path the table knows there, to notice its removal). */
export function isIn(dir: string, path: string): boolean {
  return path.length > dir.length + 1 && path.startsWith(dir) && (path[dir.length] === '/' || path[dir.length] === '\\');
}
