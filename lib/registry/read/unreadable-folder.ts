/**
 * The one error a registry read throws for the folder itself: a `sessions/` folder that exists but
 * cannot be listed. Its contents are unknown, so no answer about them — above all the guard's "no
 * human here" — may be given (docs/guard.md). A folder that does not exist is an empty registry.
 */
import { lstatSync } from 'node:fs';

/** `error.code` of a RegistryUnreadableError: stable, for `catch` blocks and scripts. */
export const REGISTRY_UNREADABLE = 'ERR_REGISTRY_UNREADABLE';

export class RegistryUnreadableError extends Error {
  override name = 'RegistryUnreadableError';
  readonly code: typeof REGISTRY_UNREADABLE = REGISTRY_UNREADABLE;
  /** The `sessions/` folder that could not be listed. */
  readonly path: string;
  /** Why, as the system said it: `EACCES`, `ENOTDIR`, `ELOOP`, `EMFILE` and the like. */
  readonly reason: string;

  constructor(path: string, cause: unknown, detail?: string) {
    const reason = (cause as NodeJS.ErrnoException | undefined)?.code ?? 'UNKNOWN';
    super(`cannot list ${path} (${reason}${detail ? `: ${detail}` : ''}): the sessions it holds are unknown`, { cause });
    this.path = path;
    this.reason = reason;
  }
}

/**
 * What a failed listing means: undefined for ENOENT (no such folder: an empty registry), else the
 * RegistryUnreadableError to throw, never a guessed "empty". A `sessions` that is a symbolic link to
 * nothing is unreadable too: it may name a folder that is only absent for now (an unmounted disk).
 */
export function unlistable(path: string, error: unknown): RegistryUnreadableError | undefined {
  const missing = (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  if (missing && !isSymlink(path)) return undefined;
  return new RegistryUnreadableError(path, error, missing ? 'a symbolic link to nothing' : undefined);
}

/** For a listing's catch block: an empty registry, or the throw. */
export function listingFailure(path: string, error: unknown): [] {
  const unreadable = unlistable(path, error);
  if (unreadable) throw unreadable;
  return [];
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false; // nothing there at all
  }
}
