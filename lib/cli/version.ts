/** The package version, read from package.json only when asked (keeps it out of the start-up path). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

declare const __filename: string | undefined;

export function readVersion(): string {
  // dist/cli.cjs → the package root is one folder up; walk a few levels to be safe.
  let dir = dirname(typeof __filename === 'string' ? __filename : process.argv[1] ?? '.');
  for (let i = 0; i < 4; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'cc-sessions' && pkg.version) return pkg.version;
    } catch {
      // not here: go up
    }
    dir = dirname(dir);
  }
  return 'unknown';
}
