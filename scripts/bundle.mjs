// Bundles the library (ESM + CommonJS) and the CLI into dist/. Bundling matters for start-up: a
// statusline starts the CLI on every render, and one file loads far faster than a module graph.
// What dist/ holds depends only on the sources: every build removes the files it did not write
// (dist/types is scripts/types.mjs's), and nothing is written there at run time (lib/cli/launch.ts).
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { LIBRARY_ROOTS, lazyBuilds, mutableExports, valueExports } from './lazy-parts.mjs';

const require = createRequire(import.meta.url);

/**
 * The library's core and extras take each Node built-in from process.getBuiltinModule (Node >= 20.16),
 * else a plain require: an app that bundles the ES module entry into ESM brings them in as CommonJS,
 * where esbuild's stand-in for `require` throws "Dynamic require of node:... is not supported". The
 * stand-in module is an ES module of the built-in's own export names, so each import binds a name
 * once, as a require would, instead of esbuild's interop copying the whole built-in at every import
 * site. Each export is copied once at load, so a later module.syncBuiltinESMExports() (a test's mock
 * of fs) does not reach the library, as it does not reach a CommonJS one. Getters are left out, as
 * reading one can load more (fs.promises loads node:fs/promises): importing one is a build error, not
 * a slow start.
 */
const builtinsFromProcess = {
  name: 'builtins-from-process',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) =>
      args.namespace === 'builtin' ? { path: args.path, external: true } : { path: args.path, namespace: 'builtin' },
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
      const id = JSON.stringify(args.path);
      const mod = require(args.path);
      const names = Object.keys(mod).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && !Object.getOwnPropertyDescriptor(mod, n)?.get);
      // One pure read per name, so esbuild drops the names no module imports: one destructuring of
      // every export (fs alone has ~100) cost a cold import a load and an inline-cache miss per name
      // at the core's top level, and a context slot each.
      return {
        loader: 'js',
        contents: [
          `const m = typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule(${id}) : require(${id});`,
          'export default m;',
          'const pick = (name) => m[name];',
          ...names.map((n) => `export const ${n} = /* @__PURE__ */ pick(${JSON.stringify(n)});`),
        ].join('\n'),
      };
    });
  },
};

/**
 * node:module in the CommonJS cores, loaded on first call: a CommonJS program has not loaded it (an
 * ES module or `node -e` has), and loading it brings Node's ES module loader, ~0.7 ms of every
 * render, for a createRequire that only a Node without process.getBuiltinModule (< 20.16) and the
 * addon loader's last fallback ever call. Any other import from node:module fails the build.
 */
const nodeModuleOnFirstCall = {
  name: 'node-module-on-first-call',
  setup(b) {
    const namespace = 'node-module-on-first-call';
    b.onResolve({ filter: /^node:module$/ }, (args) =>
      args.namespace === namespace ? { path: args.path, external: true } : { path: args.path, namespace },
    );
    b.onLoad({ filter: /.*/, namespace }, () => ({
      loader: 'js',
      contents:
        "export function createRequire(from) { return (typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('node:module') : require('node:module')).createRequire(from); }",
    }));
  },
};

// The CLI's rarely run parts: the dynamic imports of lib/cli but the five commands above.
const CLI_ROOTS = [
  ...['prune', 'snapshot', 'watch', 'probe', 'doctor', 'demo', 'top', 'notify', 'service'].map((c) => `lib/cli/commands/${c}.ts`),
  'lib/cli/hosts/commands.ts',
  'lib/cli/hosts/watch.ts',
  'lib/cli/hosts/prune.ts',
  'lib/cli/top/app.ts',
  'lib/cli/notify/hosts.ts',
  'lib/cli/notify/senders.ts',
  // Reached at start-up only by name (lib/cli/hosts/options.ts: a statusline or a count checks its
  // --host flags): the remote reader, its answer parser and ssh come with the first host read.
  'lib/hosts/read.ts',
  'lib/hosts/transport.ts',
];


const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // node-gyp-build is required at run time by path (the addon location) and stays a dependency.
  external: ['node-gyp-build'],
  legalComments: 'none',
  logLevel: 'warning',
  // Maps with the sources inside (lib/ is not shipped): `node --enable-source-maps`, or
  // CLAUDE_PS_DEBUG=1 for the CLI, prints stacks in lib/*.ts lines.
  sourcemap: 'linked',
  // load.ts falls back to __filename where import.meta is empty (the CommonJS builds).
  logOverride: { 'empty-import-meta': 'silent' },
  // Gives the CLI its version without reading package.json at run time.
  define: {
    __CLAUDE_PS_VERSION__: JSON.stringify(JSON.parse(readFileSync('package.json', 'utf8')).version),
    // The remote reader other hosts run (lib/hosts/reader-text.ts): no file lookup at run time.
    __CLAUDE_PS_READER__: JSON.stringify(readFileSync('lib/hosts/reader.sh', 'utf8')),
  },
};

// One TypeScript program for every export list of this run.
const CHECKER_ROOTS = ['lib/index.ts', ...LIBRARY_ROOTS, ...CLI_ROOTS];
const API = valueExports('lib/index.ts', CHECKER_ROOTS);
// Both entries take each export's value once (the CommonJS core's literal below, the ES module entry's
// destructuring): a `let` or `var` export would be a copy that never follows a later assignment.
const reassignable = mutableExports('lib/index.ts', CHECKER_ROOTS);
if (reassignable.length > 0) throw new Error(`lib/index.ts exports ${reassignable.join(', ')}, declared with let or var: both entries copy each export once, so export a const, a function or a class`);

/**
 * The CommonJS core's entry: lib/index.ts's exports, set as plain properties of module.exports once the
 * core has run. esbuild's own CommonJS form of an ES module entry makes a namespace at the top (a
 * defineProperty per export) and copies it into module.exports (another getter each), ~20 KB of young
 * garbage and a getter call per name the ES module entry takes. Every export is a function, a class
 * or a constant (checked above), so a plain value is the same to a caller. The literal's shape is what
 * Node's cjs-module-lexer reads, so an ES module that imports index.cjs still gets the names.
 */
const libraryEntry = {
  contents: [
    `import { ${API.join(', ')} } from './lib/index.ts';`,
    // In name order, as esbuild's namespace listed them; frozen, as its getters could not be set either:
    // no module of an app replaces hasLiveInteractive for the others.
    `module.exports = { ${[...API].sort().join(', ')} };`,
    "Object.defineProperty(module.exports, '__esModule', { value: true });",
    'Object.freeze(module.exports);',
  ].join('\n'),
  resolveDir: process.cwd(),
  sourcefile: 'lib/library-core.cjs.js',
  loader: 'js',
};

// The library keeps its names and one statement per line, so a stack trace or the source line Node
// prints for an uncaught error stays readable; syntax is still minified (less to parse at start-up).
const library = {
  ...common,
  stdin: libraryEntry,
  minifySyntax: true,
  // `module` in the entry above is the core's own (scripts/bundle.mjs, coreWrap): on purpose.
  logOverride: { ...common.logOverride, 'commonjs-variable-in-esm': 'silent' },
};

/**
 * The library's core, dist/index.cjs, is both a CommonJS module (what `require('claude-ps')` and a
 * bundler load) and a script whose value is the module's function (what the ES module entry runs
 * through V8's code cache: lib/library-entry.ts). Node calls a module with `this` = exports =
 * module.exports, a bundler's CommonJS wrapper too; a script's `this` is the global object, which a
 * REPL's or a page's global `module` and `exports` are not both. Its first characters name
 * the build, so the entry never runs a core of another. No line of the core moves: the banner is
 * one line of its own, and the source map counts it.
 */
const coreWrap = (buildId) => ({
  banner: {
    js:
      `/* claude-ps core ${buildId} */ (function (f) { return typeof module === "object" && module !== null && typeof exports === "object" && exports === this && module.exports === this ? ` +
      // As a module, the core's extras come through a require the bundler of an app sees (the core's
      // own `require` is the inner function's parameter), and an ES module bundle has no __filename.
      'f(exports, require, module, typeof __filename === "string" ? __filename : undefined, typeof __dirname === "string" ? __dirname : undefined, function () { return require("./extras.cjs"); }) : f; })' +
      '.call(this, function (exports, require, module, __filename, __dirname, __claudePsExtras) {',
  },
  footer: { js: '});' },
});

// dist/extras.cjs (prune, snapshots, reading other hosts), loaded on first use by the core
// (scripts/lazy-parts.mjs).
const lazyLibrary = lazyBuilds({
  options: library,
  roots: LIBRARY_ROOTS,
  checkerRoots: CHECKER_ROOTS,
  extrasFile: 'extras.cjs',
  holds: 'prune, snapshots, the watcher and the reading of other hosts',
  advice: 'a partial install, or a bundler that copied the entry without it (mark claude-ps as external, or ship index.cjs and extras.cjs beside the bundle)',
  extrasPlugins: [builtinsFromProcess],
  // Built-ins from process.getBuiltinModule, as the extras take them: an app's ES module bundle brings
  // the core in as CommonJS too (lib/library-entry.ts), where a plain require of one throws.
  cores: [{ outfile: 'dist/index.cjs', plugins: [nodeModuleOnFirstCall, builtinsFromProcess], wrap: coreWrap }],
});

/** Fails the build on any import of a Node built-in: the ES module entry takes them from process.getBuiltinModule. */
const noBuiltinImports = {
  name: 'no-builtin-imports',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => ({ errors: [{ text: `${args.importer} imports ${args.path}: the ES module entry must take it from process.getBuiltinModule` }] }));
  },
};

/**
 * dist/index.js, the ES module entry (lib/library-entry.ts): the core's exports, named one by one from
 * lib/index.ts's. Its footer holds the one `require` esbuild must leave alone, for an app's bundler to
 * follow (see lib/library-entry.ts).
 */
const esmEntry = lazyLibrary.then(({ buildId }) => {
  const names = API;
  return build({
    ...common,
    stdin: {
      contents: [
        "import { loadLibrary } from './lib/library-entry.ts';",
        // Property reads, not import.meta itself: a bundler rewrites `import.meta.url` and `.dirname` for
        // its output (rolldown's CommonJS: __filename's URL, __dirname) but makes a bare import.meta `{}`.
        `const core = loadLibrary({ url: import.meta.url, dirname: import.meta.dirname }, ${JSON.stringify(buildId)}, () => __claudePsCore());`,
        `export const { ${names.join(', ')} } = core;`,
      ].join('\n'),
      resolveDir: process.cwd(),
      sourcefile: 'lib/library-entry.esm.js',
      loader: 'js',
    },
    format: 'esm',
    outfile: 'dist/index.js',
    minifySyntax: true,
    plugins: [noBuiltinImports],
    footer: { js: 'function __claudePsCore() {\n  return require("./index.cjs");\n}' },
  }).then(() => ['dist/index.js']);
});
// The CLI: the bundle, and the small executable that runs it (fully minified: nothing else of ours
// is on a statusline's start-up path). The bundle holds the commands a statusline, a poller or a
// guard runs (list, count, summary, has-interactive, statusline); every other command and the
// --host paths, each reached through an import() already, live in dist/cli-extras.cjs, read and
// compiled only when one runs: the code cache the executable keeps for the bundle (launch.ts) then
// covers ~100 KB instead of ~240 KB.
const lazyCli = lazyBuilds({
  options: { ...common, entryPoints: ['lib/cli/bin/all.ts'], minify: true },
  roots: CLI_ROOTS,
  checkerRoots: CHECKER_ROOTS,
  extrasFile: 'cli-extras.cjs',
  holds: 'every command but list, count, summary, has-interactive and statusline',
  advice: 'a partial install: reinstall claude-ps',
  cores: [{ outfile: 'dist/cli-main.cjs', plugins: [nodeModuleOnFirstCall] }],
});
// dist/cli-count.cjs and dist/cli-statusline.cjs: one command each (lib/cli/bin/), what the launcher
// runs for that command with no host flag (lib/cli/launch.ts): ~45 and ~70 KB to compile or to read
// from a code cache instead of ~100 KB, on the commands a poller and a statusline run over and over.
// The host code they are never asked for there (every import() of lib/hosts/ or lib/cli/hosts/: the
// sources reach it only that way) is left out: a module that throws when it loads, so a call into it
// fails loudly rather than bringing ~100 KB back.
const withoutHostCode = {
  name: 'without-host-code',
  setup(b) {
    const namespace = 'without-host-code';
    b.onResolve({ filter: /\/hosts\// }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, namespace } : undefined));
    b.onLoad({ filter: /.*/, namespace }, () => ({
      loader: 'js',
      contents: "throw new Error('a host read runs from dist/cli-main.cjs (lib/cli/launch.ts)');",
    }));
  },
};
// One per entry in lib/cli/bin/ but all.ts (the whole CLI); lib/cli/launch.ts names the same commands.
const ALONE_COMMANDS = readdirSync('lib/cli/bin').filter((f) => f.endsWith('.ts') && f !== 'all.ts').map((f) => f.slice(0, -3));
const commandAlone = (name) => ({
  ...common,
  entryPoints: [`lib/cli/bin/${name}.ts`],
  format: 'cjs',
  outfile: `dist/cli-${name}.cjs`,
  minify: true,
  plugins: [nodeModuleOnFirstCall, withoutHostCode],
});
const launcher = {
  ...common,
  entryPoints: ['lib/cli/launch.ts'],
  external: ['./cli-main.cjs', './cli-count.cjs', './cli-statusline.cjs'],
  format: 'cjs',
  outfile: 'dist/cli.cjs',
  minify: true,
  banner: { js: '#!/usr/bin/env node' },
};
const files = (
  await Promise.all([
    lazyLibrary.then((r) => r.files),
    esmEntry,
    lazyCli.then((r) => r.files),
    ...[...ALONE_COMMANDS.map(commandAlone), launcher].map((options) => build(options).then(() => [options.outfile])),
  ])
).flat();

// Files an earlier build (or an older version of this script) left behind would be packed too.
const written = new Set(files.flatMap((outfile) => [outfile, `${outfile}.map`].map((f) => f.slice('dist/'.length))));
for (const name of readdirSync('dist')) {
  if (name !== 'types' && !written.has(name)) rmSync(join('dist', name), { recursive: true, force: true });
}
