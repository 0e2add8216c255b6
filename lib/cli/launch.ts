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

/** This user's cache folder and, in it, the file for this package, Node and flags; undefined where there is no such place. */
function cachePlace(): { base: string; file: string } | undefined {
  const { env } = process;
  const base = env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : env.HOME?.startsWith('/') ? `${env.HOME}/.cache` : undefined;
  if (base === undefined) return undefined;
  // The flags V8 checks the data against, in a short stable form (no character a file name cannot hold).
  const flags = `${process.execArgv.join(' ')} ${env.NODE_OPTIONS ?? ''}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < flags.length; i++) h = Math.imul(h ^ flags.charCodeAt(i), 0x01000193);
  return { base, file: `${base}/claude-ps/${bundleName}-${__CLAUDE_PS_VERSION__}-node${process.versions.node}-${process.arch}-${(h >>> 0).toString(16)}.v8cache` };
}

/**
 * The cached data for this bundle and the commands whose runs it holds (its first line: the identity,
 * a tab, the command keys), or undefined when anything is off.
 */
function readCache(fs: typeof Fs, file: string, identity: string): { data: Buffer; keys: string[] } | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.uid !== process.getuid?.() || (st.mode & 0o022) !== 0 || st.size > 64 << 20) return undefined;
    const data = fs.readFileSync(fd);
    const end = data.indexOf(10);
    if (end < 0 || end > 4096) return undefined;
    const [id, keys = ''] = data.subarray(0, end).toString('latin1').split('\t');
    return id === identity ? { data: data.subarray(end + 1), keys: keys.split(' ').filter(Boolean) } : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** A folder of this user's that nobody else may write (a symlink is not one). */
function isOwnFolder(fs: typeof Fs, path: string, follow: boolean): boolean {
  try {
    const st = follow ? fs.statSync(path) : fs.lstatSync(path);
    return st.isDirectory() && st.uid === process.getuid!() && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Writes the cache for the next runs: only into a folder of this user's (never creating one in
 * somebody else's, e.g. root running with a user's HOME), to a temporary file renamed into place.
 * Temporary files of runs killed mid-write, a minute old, are removed. Every failure is silent.
 */
function writeCache(fs: typeof Fs, { base, file }: { base: string; file: string }, head: string, data: Buffer): void {
  const dir = file.slice(0, file.lastIndexOf('/'));
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    const parent = base.slice(0, base.lastIndexOf('/')) || '/';
    if (!fs.existsSync(base) && fs.statSync(parent).uid === process.getuid!()) fs.mkdirSync(base, { mode: 0o700 });
    if (fs.statSync(base).uid !== process.getuid!()) return;
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch {
      // there already, or not ours to make: checked next
    }
    if (!isOwnFolder(fs, dir, false)) return;
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.tmp')) continue;
      try {
        if (Date.now() - fs.lstatSync(`${dir}/${name}`).mtimeMs > 60_000) fs.unlinkSync(`${dir}/${name}`);
      } catch {
        // another run's, removed meanwhile
      }
    }
    fs.writeFileSync(temp, Buffer.concat([Buffer.from(head), data]), { mode: 0o600, flag: 'wx' });
    fs.renameSync(temp, file);
  } catch {
    try {
      fs.unlinkSync(temp);
    } catch {
      // nothing was written
    }
  }
}

function runWithCodeCache(): void {
  const fs = require('node:fs') as typeof Fs;
  const { Script } = require('node:vm') as typeof import('node:vm');
  const place = process.getuid ? cachePlace() : undefined;
  // The identity comes from the descriptor the source is read from, taken before the read: a bundle
  // replaced or rewritten meanwhile gets another identity next time, never this source's bytecode.
  // V8 itself checks only the source's length, and size and mtime survive a rebuild copied with
  // its mtime (cp -p, tar, rsync -a, an image layer); the inode and ctime of a rewrite never do.
  const fd = fs.openSync(bundle, 'r');
  let source: string;
  let identity = '';
  try {
    const st = fs.fstatSync(fd);
    identity = `${st.size} ${st.mtimeMs} ${st.ctimeMs} ${st.ino}`;
    source = fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
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
      writeCache(fs, place, `${identity}\t${[...keys, ...(typeof ran === 'string' ? [ran] : [])].join(' ')}\n`, data);
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
