/**
 * The `cc-sessions` executable: runs the CLI bundle (dist/cli-main.cjs).
 *
 * Where Node has a compile cache (module.enableCompileCache, Node ≥ 22.1) it is turned on first, so
 * the bundle's compiled code is reused across runs: a statusline starts this process on every render.
 * The cache lives where Node keeps it (NODE_COMPILE_CACHE, else the OS temp folder), never in the
 * package, which may be read-only, shared or checked for integrity; nothing here writes a file.
 * On Node 20 the bundle is compiled each run (the README's start-up figures are measured so).
 */

// Bundled as CommonJS (dist/cli.cjs), beside the bundle it runs.
declare const require: NodeJS.Require;

(require('node:module') as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// Stack traces in lib/*.ts lines when asked for them (the maps ship beside the bundles).
if (process.env.CC_SESSIONS_DEBUG) process.setSourceMapsEnabled(true);
require('./cli-main.cjs');
