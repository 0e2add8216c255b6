/** The per-user code cache folder of a test's own XDG_CACHE_HOME (lib/code-cache.ts), as the cache tests look at it. */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * The command keys a cache file's first line names, read as readCache reads them, after checking that
 * the data after the line starts 8-aligned (V8 copies data that is not: lib/code-cache.ts, firstLine).
 */
export function cacheKeys(path: string): string[] {
  const whole = readFileSync(path);
  const end = whole.indexOf(10);
  expect((end + 1) % 8).toBe(0);
  return (whole.subarray(0, end).toString('latin1').split('\t')[1] ?? '').split(' ').filter(Boolean);
}
