/**
 * What a rescan of one `sessions/` folder looks at: the one place the watcher lists a folder, so that
 * whatever else the registry read counts as a claim (docs/registry.md) is added here once.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isCandidateName } from '../config.js';

/** A folder that exists but cannot be listed (EACCES, EIO...): its records cannot be seen. */
export class UnlistableFolderError extends Error {
  override name = 'UnlistableFolderError';
  constructor(
    readonly dir: string,
    readonly code: string,
  ) {
    super(`cannot list ${dir} (${code}): its sessions cannot be seen`);
  }
}

/**
 * The paths of the folder's candidates now. A missing folder (or a file in its place) has none; one
 * that cannot be listed returns the error, so that the watcher can say so rather than report an
 * empty registry in silence.
 */
export function listFolder(dir: string): string[] | UnlistableFolderError {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
    return code === 'ENOENT' || code === 'ENOTDIR' ? [] : new UnlistableFolderError(dir, code);
  }
  return names.filter(isCandidateName).map((name) => join(dir, name));
}

/** Whether `path` lies directly in `dir` (a path the table knows there, to notice its removal). */
export function isIn(dir: string, path: string): boolean {
  return path.length > dir.length + 1 && path.startsWith(dir) && (path[dir.length] === '/' || path[dir.length] === '\\');
}
