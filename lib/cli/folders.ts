/**
 * A registry folder the CLI could not read. The library reads a missing or unreadable `sessions/`
 * as an empty registry; for `count`, `summary`, `list` and `snapshot` that would print 0, "no
 * sessions" or an empty document when the truth is unknown, so these commands check the folders that
 * gave no record and fail instead.
 */
import { opendirSync } from 'node:fs';
import { sep } from 'node:path';
import { sessionsDir } from '../registry/config.js';

/** Why a folder cannot be read, or undefined when it can be, or simply is not there. */
export function folderError(dir: string): string | undefined {
  try {
    opendirSync(dir).closeSync();
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return code ?? String(error);
  }
}

/**
 * Throws (a runtime error: exit 1) when a config dir's `sessions/` exists but cannot be read. Only
 * the folders no record came from are opened again, so a statusline's usual call costs nothing more.
 */
export function assertReadable(configDirs: readonly string[], records: readonly { path: string }[]): void {
  for (const dir of configDirs) {
    const sessions = sessionsDir(dir);
    if (records.some((r) => r.path.startsWith(sessions + sep))) continue;
    const code = folderError(sessions);
    if (code !== undefined) throw new Error(`cannot read ${sessions} (${code}): the answer would be a guess`);
  }
}
