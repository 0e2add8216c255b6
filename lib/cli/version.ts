/** The package version: written into the bundle at build time (scripts/bundle.mjs), else read from package.json. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

declare const __CLAUDE_PS_VERSION__: string | undefined;

export function readVersion(): string {
  if (typeof __CLAUDE_PS_VERSION__ === 'string') return __CLAUDE_PS_VERSION__;
  // Unbundled (the TypeScript sources): lib/cli/ is two folders below the package root.
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
