// Bundles the library (ESM + CommonJS) and the CLI. Bundling matters for start-up: a statusline starts
// the CLI on every render, and one file with tree-shaken zod/mini loads far faster than a module graph.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // node-gyp-build is required at run time by path (the addon location), and the zod schema is a
  // file of its own, required on first use (lib/registry/read/schema.ts): both stay outside.
  external: ['node-gyp-build', './lenient-zod.cjs'],
  legalComments: 'none',
  logLevel: 'warning',
  // load.ts falls back to __filename where import.meta is empty (the CommonJS builds).
  logOverride: { 'empty-import-meta': 'silent' },
  // Tells lib/registry/read/schema.ts to require dist/lenient-zod.cjs instead of importing zod eagerly,
  // and gives the CLI its version without reading package.json at run time.
  define: {
    __CCS_BUNDLED__: 'true',
    __CCS_VERSION__: JSON.stringify(JSON.parse(readFileSync('package.json', 'utf8')).version),
  },
};

// The library keeps its names (readable stack traces) but loses whitespace: less to parse at start-up.
const library = { ...common, entryPoints: ['lib/index.ts'], minifyWhitespace: true, minifySyntax: true };

await Promise.all([
  build({ ...library, format: 'esm', outfile: 'dist/index.js' }),
  build({ ...library, format: 'cjs', outfile: 'dist/index.cjs' }),
  build({ ...common, entryPoints: ['lib/registry/read/lenient-zod.ts'], format: 'cjs', minify: true, outfile: 'dist/lenient-zod.cjs' }),
  // The CLI: the bundle, and the small executable that runs it through V8's code cache.
  build({
    ...common,
    entryPoints: ['lib/cli/main.ts'],
    format: 'cjs',
    outfile: 'dist/cli-main.cjs',
    minify: true,
  }),
  build({
    ...common,
    entryPoints: ['lib/cli/launch.ts'],
    format: 'cjs',
    outfile: 'dist/cli.cjs',
    minify: true,
    banner: { js: '#!/usr/bin/env node' },
  }),
]);

// A code cache for this Node, so the first run after a build is fast too (lib/cli/launch.ts). It holds
// the functions the priming run compiled: a statusline render over one live record (this process's),
// the hottest path, measured at 1.12x -> 1.04x a bare `node -e 0` against priming with --version.
rmSync('dist/cli-main.cache', { force: true });
const primer = mkdtempSync(join(tmpdir(), 'ccs-bundle-prime-'));
try {
  mkdirSync(join(primer, 'sessions'));
  writeFileSync(join(primer, 'sessions', `${process.pid}.json`), JSON.stringify({ pid: process.pid, sessionId: 'prime', status: 'busy' }));
  execFileSync(process.execPath, ['dist/cli.cjs', 'statusline', '--config-dir', primer], { stdio: 'ignore', env: { ...process.env, CLAUDE_PID: '' } });
} finally {
  rmSync(primer, { recursive: true, force: true });
}
