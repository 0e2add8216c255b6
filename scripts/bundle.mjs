// Bundles the library (ESM + CommonJS) and the CLI. Bundling matters for start-up: a statusline starts
// the CLI on every render, and one file with tree-shaken zod/mini loads far faster than a module graph.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // node-gyp-build is required at run time by path (the addon location), so it stays external.
  external: ['node-gyp-build'],
  legalComments: 'none',
  logLevel: 'warning',
  // load.ts falls back to __filename where import.meta is empty (the CommonJS builds).
  logOverride: { 'empty-import-meta': 'silent' },
};

await Promise.all([
  build({ ...common, entryPoints: ['lib/index.ts'], format: 'esm', outfile: 'dist/index.js' }),
  build({ ...common, entryPoints: ['lib/index.ts'], format: 'cjs', outfile: 'dist/index.cjs' }),
  existsSync('lib/cli/main.ts') &&
    build({
      ...common,
      entryPoints: ['lib/cli/main.ts'],
      format: 'cjs',
      outfile: 'dist/cli.cjs',
      minify: true,
      banner: { js: '#!/usr/bin/env node' },
    }),
]);
