/**
 * The one error a registry read throws for the folder itself: a `sessions/` folder that exists but
 * cannot be listed. Its contents are unknown, so no answer about them — above all the guard's "no
 * human here" — may be given (docs/guard.md). A folder that does not exist is an empty registry.
 */

/** `error.code` of a RegistryUnreadableError: stable, for `catch` blocks and scripts. */
export const REGISTRY_UNREADABLE = 'ERR_REGISTRY_UNREADABLE';

export class RegistryUnreadableError extends Error {
  override name = 'RegistryUnreadableError';
  readonly code: typeof REGISTRY_UNREADABLE = REGISTRY_UNREADABLE;
  /** The `sessions/` folder that could not be listed. */
  readonly path: string;
  /** Why, as the system said it: `EACCES`, `ENOTDIR`, `ELOOP`, `EMFILE`, … */
  readonly reason: string;

  constructor(path: string, cause: unknown) {
    const reason = (cause as NodeJS.ErrnoException | undefined)?.code ?? 'UNKNOWN';
    super(`cannot list ${path} (${reason}): the sessions it holds are unknown`, { cause });
    this.path = path;
    this.reason = reason;
  }
}

/**
 * Turns a failed listing into its meaning: ENOENT (no such folder, or a dangling link to one) is an
 * empty registry; every other failure is a RegistryUnreadableError, never a guessed "empty".
 */
export function listingFailure(path: string, error: unknown): [] {
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return [];
  throw new RegistryUnreadableError(path, error);
}
