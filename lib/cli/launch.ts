/**
 * The `claude-ps` executable: runs a CLI bundle with its compiled code reused across runs, since a
 * statusline starts this process on every render. Nothing here writes into the package, which may be
 * read-only, shared or checked for integrity (docs/architecture.md, "Start-up").
 *
 * Which bundle: dist/cli-count.cjs for `count` (the command pollers run over and over) and
 * dist/cli-statusline.cjs for `statusline` (every render without a line-file watcher) when no host
 * flag is on the command line, since they hold no host code; dist/cli-main.cjs, every command, for
 * anything else. They give the same answers: one dispatcher, one command, built from the same files.
 *
 * - Node ≥ 22.1: Node's own compile cache (module.enableCompileCache), kept where Node keeps it
 *   (NODE_COMPILE_CACHE, else the OS temp folder).
 * - Older Node (20): a V8 code cache of the bundle in a per-user cache folder
 *   (`$XDG_CACHE_HOME/claude-ps/`, else `~/.cache/claude-ps/`), one file per bundle, package version,
 *   Node version, architecture and V8 flags, tagged with the bundle's size, mtime, ctime and inode. A missing,
 *   foreign, stale, corrupt or rejected file is ignored (the bundle is compiled as usual) and, once, a
 *   fresh one is written at exit: to a temporary file, then renamed, so a reader sees a whole file or
 *   none. A folder that cannot be made or written leaves the run uncached, never failing. The data
 *   holds the code the runs that made it compiled, so it is made again, once, by the first short run
 *   of each command it does not hold (main.ts names the command): the file then serves every
 *   command its user runs.
 * NODE_DISABLE_COMPILE_CACHE=1 turns both off; so does CLAUDE_PS_DEBUG (stacks through the source maps).
 */
import type * as Fs from 'node:fs';
import { cachePlace, readCache, readSource, writeCache } from '../code-cache.js';
import { mayAskForHosts } from './hosts/flags.js';

// Bundled as CommonJS (dist/cli.cjs), beside the bundle it runs.
declare const require: NodeJS.Require;
declare const __dirname: string;
declare const __CLAUDE_PS_VERSION__: string;

// Stack traces in lib/*.ts lines when asked for them (the maps ship beside the bundles).
if (process.env.CLAUDE_PS_DEBUG) process.setSourceMapsEnabled(true);

// The commands with a bundle of their own, dist/cli-<name>.cjs (an entry in lib/cli/bin/ each, which
// scripts/bundle.mjs builds), holding no host code.
const ALONE = new Set(['count', 'statusline']);
const [, , first = '', ...rest] = process.argv;
const bundleName = ALONE.has(first) && !mayAskForHosts(rest) ? `cli-${first}` : 'cli-main';
const bundle = `${__dirname}/${bundleName}.cjs`;
// Node's compile cache came in 22.1. node:module is required only there: on Node 20 a CommonJS
// program has not loaded it, and loading it (with the ES module loader it brings) costs ~0.7 ms of
// every render.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const hasCompileCache = major > 22 || (major === 22 && minor >= 1);
// A debug run loads the bundle as a module, the way Node maps its stacks (it does not for a vm.Script).
if (hasCompileCache || process.env.NODE_DISABLE_COMPILE_CACHE || process.env.CLAUDE_PS_DEBUG) {
  if (hasCompileCache) (require('node:module') as { enableCompileCache?: () => unknown }).enableCompileCache?.(); // itself off under NODE_DISABLE_COMPILE_CACHE
  require(bundle);
} else runWithCodeCache();

/** Node's own CommonJS wrapper (Module.wrap), so the bundle runs as it would under require(). */
function wrap(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
}

function runWithCodeCache(): void {
  const fs = require('node:fs') as typeof Fs;
  const { Script } = require('node:vm') as typeof import('node:vm');
  const place = process.getuid ? cachePlace(bundleName, bundle) : undefined;
  const { source, identity } = readSource(fs, bundle);
  const cached = place && identity ? readCache(fs, place.file, identity) : undefined;
  const script = new Script(wrap(source), { filename: bundle, cachedData: cached?.data });
  const accepted = cached !== undefined && script.cachedDataRejected !== true;
  const keys = accepted ? cached.keys : [];
  if (place && identity) {
    // At exit, so the functions this run compiled are in it too. Written afresh when missing or
    // refused, and once more by the first run of each command it does not hold yet: V8's data holds
    // the functions compiled when it was made, so data made by \`--version\` or \`statusline --install\`
    // alone would leave every render compiling its own code. main.ts names the command it ran
    // (none for help, a version or a usage error), so only a run of that command marks it held.
    process.once('exit', () => {
      const ran = (globalThis as Record<symbol, unknown>)[Symbol.for('claude-ps.command')];
      if (accepted && (typeof ran !== 'string' || keys.includes(ran))) return;
      // A long run (watch, top, notify) lets V8 flush the bytecode of functions it has not run for a
      // while: its data would hold less than the cache it was given, for every later render.
      if (process.uptime() > 5) return;
      const data = script.createCachedData();
      if (accepted && data.length < cached.data.length) return;
      writeCache(fs, place, identity, [...keys, ...(typeof ran === 'string' ? [ran] : [])], data);
    });
  }
  const run = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    dirname: string,
  ) => void;
  const cliModule = { exports: {} };
  // This file's own require: the bundle sits beside it, so its relative requires (./cli-extras.cjs)
  // and package lookups (node-gyp-build) resolve as they would from the bundle.
  run(cliModule.exports, require, cliModule, bundle, __dirname);
}
