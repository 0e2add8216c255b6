/** The per-user code cache folder of a test's own XDG_CACHE_HOME (lib/code-cache.ts), as the cache tests look at it. */
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

export function cacheFolder(xdg: () => string) {
  const dir = () => join(xdg(), 'claude-ps');
  const files = () => (existsSync(dir()) ? readdirSync(dir()) : []);
  return {
    dir,
    files,
    /** The one file in the folder (the test fails if there is not exactly one). */
    only(): string {
      const names = files();
      expect(names).toHaveLength(1);
      return join(dir(), names[0]!);
    },
  };
}

/** Inode, mtime and size: an unchanged identity proves a file was not rewritten. */
export function fileIdentity(path: string): string {
  const s = lstatSync(path);
  return `${s.ino} ${s.mtimeMs} ${s.size}`;
}
