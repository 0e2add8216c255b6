/**
 * What a rescan of one `sessions/` folder looks at: the one place the watcher lists a folder, so that
 * whatever else the registry read counts as a claim (docs/registry.md) is added here once.
 */
import { join } from 'node:path';
import { listCandidates } from '../read/candidates.js';

/** The paths of the folder's candidates now (a missing or unreadable folder has none). */
export function listFolder(dir: string): string[] {
  return listCandidates(dir).map((name) => join(dir, name));
}

/** Whether `path` lies directly in `dir` (a path the table knows there, to notice its removal). */
export function isIn(dir: string, path: string): boolean {
  return path.length > dir.length + 1 && path.startsWith(dir) && (path[dir.length] === '/' || path[dir.length] === '\\');
}
