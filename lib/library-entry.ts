/**
 * The library's ES module entry, dist/index.js: a few lines that run the CommonJS core, dist/index.cjs,
 * with its compiled code reused across processes, as the CLI's executable does (lib/cli/launch.ts).
 *
 * Why: Node 20 keeps no compiled code for an ES module, so every cold `import` parsed and compiled the
 * whole ESM core (~80 KB), then compiled each function of the read path on its first call. A
 * statusline script that imports the library pays that on every render. A vm.Script can be given V8's
 * code cache; the cache made at the exit of a first short run holds the functions that run compiled,
 * so later runs neither parse the core nor compile the read path again.
 *
 * - The core is the same file `require('claude-ps')` loads. Its first line (scripts/bundle.mjs) makes
 *   it both a CommonJS module and a script whose value is the module's function, and names its build:
 *   a file of another build is never run against this entry.
 * - The cache: lib/code-cache.ts, one `lib-index-…` file in the CLI's per-user folder, written once, at
 *   exit, by a short run that found none it could use (never into the package).
 * - A plain `require` of the core instead, as Node loads any module, under NODE_DISABLE_COMPILE_CACHE
 *   or with source maps on (--enable-source-maps; Node maps the stacks of modules, not of a vm.Script).
 * - Built-ins come from process.getBuiltinModule (Node >= 20.16, 22.3): an ES module's static import
 *   of one builds a facade of its whole export list, ~1 ms each, on every cold import.
 * - An app that bundles this entry (esbuild, webpack) gets the core bundled with it: where no core of
 *   this build sits beside the bundle, `bundled` is the footer's plain `require("./index.cjs")`, which
 *   the bundler followed.
 */
import type * as Fs from 'node:fs';
import type * as NodeModule from 'node:module';
import type * as Path from 'node:path';
import type * as Url from 'node:url';
import type * as Vm from 'node:vm';
import { cachePlace, readCache, readSource, writeCache } from './code-cache.js';

type Exports = Record<string, unknown>;

/** The platform's path separator (path.sep), without loading node:path's functions. */
const SEP = process.platform === 'win32' ? '\\' : '/';
type CoreFunction = (exports: Exports, require: (id: string) => unknown, module: { exports: Exports }, filename: string, dirname: string) => void;
type GetBuiltin = <T>(id: string) => T;

/** The first characters of a core of build `buildId` (the banner scripts/bundle.mjs gives dist/index.cjs). */
export function coreMark(buildId: string): string {
  return `/* claude-ps core ${buildId} */`;
}

/**
 * True when `options` hold `--experimental-policy` or `--policy-integrity` as a whole word (what
 * /--(experimental-policy|policy-integrity)\b/ finds), spelled out: a pattern would be compiled on
 * every cold import for this one test.
 */
export function namesPolicy(options: string): boolean {
  for (const flag of ['--experimental-policy', '--policy-integrity']) {
    for (let at = options.indexOf(flag); at >= 0; at = options.indexOf(flag, at + 1)) {
      const next = options.charCodeAt(at + flag.length);
      // \b after a letter: the end, or a character that is not [A-Za-z0-9_].
      const wordChar = (next >= 48 && next <= 57) || (next >= 65 && next <= 90) || (next >= 97 && next <= 122) || next === 95;
      if (!wordChar) return true;
    }
  }
  return false;
}

/** What the entry passes of its `import.meta`: `dirname` where Node sets it (20.11 and later), else undefined. */
export interface EntryMeta {
  url: string;
  dirname?: string | undefined;
}

/** The exports of the core of build `buildId` beside the entry whose `import.meta` is `meta`. */
export function loadLibrary(meta: EntryMeta, buildId: string, bundled: () => Exports): Exports {
  const entryUrl = meta.url;
  const getBuiltinModule = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof getBuiltinModule !== 'function') {
    throw new Error(
      `claude-ps: the ES module entry needs Node 20.16 or later (22.3 on Node 22) for process.getBuiltinModule; ` +
        `Node ${process.versions.node} can load the CommonJS build: require('claude-ps')`,
    );
  }
  const builtin: GetBuiltin = (id) => getBuiltinModule.call(process, id) as never;
  const fs = builtin<typeof Fs>('node:fs');
  let file: string | undefined;
  let opened: { source: string; identity: string } | undefined;
  let failure: unknown;
  // Node has already made the entry's folder a path for import.meta (it does so for every file: URL):
  // a URL parsed and made a path again cost ~0.15 ms of every cold import. An app's bundle may have
  // no dirname (esbuild's CommonJS output leaves import.meta empty): the URL, which then throws.
  const dir = typeof meta.dirname === 'string' ? meta.dirname : undefined;
  try {
    // The folder and the name with the platform's separator between, as path.join would give them (the
    // folder is a normalized absolute path): each node:path function is compiled at its first call.
    file = dir !== undefined ? `${dir}${dir.endsWith(SEP) ? '' : SEP}index.cjs` : builtin<typeof Url>('node:url').fileURLToPath(new URL('./index.cjs', entryUrl));
    opened = readSource(fs, file);
  } catch (error) {
    failure = error;
  }
  if (file === undefined || opened === undefined || !opened.source.startsWith(coreMark(buildId))) {
    try {
      return bundled();
    } catch {
      if (opened !== undefined) throw new Error(`claude-ps: ${file} is from another build than ${entryUrl}: reinstall claude-ps`);
      const why = failure instanceof Error ? failure.message : String(failure);
      throw new Error(
        `claude-ps: its core, index.cjs, did not load from beside ${entryUrl} (${why}): a partial install, or a bundler ` +
          'that copied the entry without it (mark claude-ps as external, or ship index.cjs and extras.cjs beside the bundle)',
        { cause: failure },
      );
    }
  }
  // node:module (and the source-map code it brings) only when a require is made: most runs make none.
  const createRequire = (from: string): NodeJS.Require => builtin<typeof NodeModule>('node:module').createRequire(from);
  const plain = () => createRequire(file)(file) as Exports;
  // Node's own loader where it must see the file: a policy manifest holds the core to its integrity
  // (a vm.Script would skip that check), and Node maps the stacks of modules, not of a script.
  const nodeOptions = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  if (process.env.NODE_DISABLE_COMPILE_CACHE || (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled || namesPolicy(nodeOptions)) {
    return plain();
  }
  const { Script } = builtin<typeof Vm>('node:vm');
  const place = process.getuid ? cachePlace('lib-index', file) : undefined;
  const cached = place ? readCache(fs, place.file, opened.identity) : undefined;
  const script = new Script(opened.source, { filename: file, cachedData: cached?.data });
  const accepted = cached !== undefined && script.cachedDataRejected !== true;
  const keys = accepted ? cached.keys : [];
  if (place) {
    // At exit, so the functions this run compiled are in it too: written when there was none V8
    // took, and once more by the first run that reads (`read`, set by the core's scan) when the data
    // came from one that did not. Never by a long run, whose V8 may have flushed the bytecode of what
    // it has not run for a while, and never smaller than the data it replaces.
    process.once('exit', () => {
      const read = (globalThis as Record<symbol, unknown>)[Symbol.for('claude-ps.read')] === true;
      if ((accepted && (!read || keys.includes('read'))) || process.uptime() > 5) return;
      const data = script.createCachedData();
      if (accepted && data.length < cached.data.length) return;
      writeCache(fs, place, opened.identity, read ? ['read'] : [], data);
    });
  }
  const run = script.runInThisContext() as CoreFunction | undefined;
  // The script's value is the core's function unless a global `module` whose exports are the global
  // object fooled its first line into running as a module: then Node's loader, which gives it its own.
  if (typeof run !== 'function') return plain();
  // The core's requires: Node's built-ins, and its extras beside it (the same module cache as a require).
  let requireHere: NodeJS.Require | undefined;
  const requireForCore = (id: string): unknown => (id.startsWith('node:') ? builtin(id) : (requireHere ??= createRequire(file))(id));
  const module = { exports: {} as Exports };
  run(module.exports, requireForCore, module, file, dir ?? builtin<typeof Path>('node:path').dirname(file));
  return module.exports;
}
