// Rarely used parts of a bundle in a file of their own, loaded on first use. The library's
// (prune, snapshots, reading other hosts) are dist/extras.cjs: a cold `import` + `liveRecords()`
// compiles less of what a read never runs. The CLI's bundle is split the same way (dist/cli-extras.cjs:
// every command but the five a statusline, a poller or a guard runs), so its code cache and its source
// hold only those (scripts/bundle.mjs).
//
// A lazy root's functions are synchronous (prune()), so the extras file is CommonJS, which the
// (CommonJS) core can load at once. It must share every module with the core that loaded it (one
// backend, one parse memo, one class per error for instanceof), so it bundles none of them: the file
// is a factory, `module.exports = function (__core) { … }`, and each import of a module the core
// holds reads that module's live namespace from `__core`. The build fails if a module ends up in both.
//
// What the core imports from a lazy root is a stub module of the same names, by the kind the
// TypeScript checker gives each export: a function forwards its call (`this`, arguments, its
// declared length; an async one rejects if the extras cannot load), a literal constant is copied.
// Classes and other values are left out of the stub, so a core module importing one fails the build
// ("No matching export"): their modules belong in the core. A root reached only by `import()` (the
// CLI's commands) becomes a module initialised at that call, where the extras load, so every export
// there is the real one. Enums, namespaces and default exports fail the build.
//
// Three passes: the core with stubs (which files it holds), the extras (which of those they import),
// then the core again with exactly those namespaces handed over and the extras' build id.
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The library's lazy roots: their exports become stubs in the core, their code lives in dist/extras.cjs. */
export const LIBRARY_ROOTS = [
  'lib/registry/prune/prune.ts',
  'lib/registry/prune/legacy.ts',
  'lib/registry/snapshot.ts',
  'lib/registry/watch/engine.ts',
  'lib/hosts/read.ts',
  // The host watchers' engines: their classes stay in the core (lib/hosts/watch.ts, watch-api.ts),
  // as the registry Watcher's does, and the ssh transport and the event diff come with the engines.
  'lib/hosts/watch-engine.ts',
  'lib/hosts/watch-api-engine.ts',
];

const rel = (abs) => relative(process.cwd(), abs).split('\\').join('/');

let shared;
/** Each lazy root's value exports: [{ name, kind: 'function' | 'class' | 'literal' | 'value', … }]. */
function exportKinds(roots, checkerRoots = roots) {
  // One program for every build of a run (`checkerRoots`: all their roots), ~2 s each otherwise.
  if (shared?.key !== checkerRoots.join('\n')) {
    const program = ts.createProgram(
      checkerRoots.map((f) => resolve(f)),
      { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
    );
    shared = { key: checkerRoots.join('\n'), program, checker: program.getTypeChecker() };
  }
  const { checker } = shared;
  const F = ts.SymbolFlags;
  return roots.map((file) => {
    const kinds = [];
    for (const { name, symbol } of exportsOf(file)) {
      const fail = (why) => {
        throw new Error(`${file}: export ${name} ${why}, which cannot load lazily (scripts/lazy-parts.mjs)`);
      };
      if (name === 'default') fail('is a default export');
      if (symbol.flags & (F.Enum | F.ValueModule)) fail('is an enum or a namespace with values');
      if (symbol.flags & F.Class) kinds.push({ name, kind: 'class' });
      else if (symbol.flags & F.Function) {
        const declarations = (symbol.declarations ?? []).filter(ts.isFunctionDeclaration);
        const body = declarations.find((d) => d.body !== undefined) ?? declarations[0];
        if (body === undefined) fail('is a function without a declaration');
        // Function.length: the parameters before the first with a default or the rest one.
        const length = body.parameters.findIndex((p) => p.initializer !== undefined || p.dotDotDotToken !== undefined);
        const isAsync = (ts.getCombinedModifierFlags(body) & ts.ModifierFlags.Async) !== 0;
        kinds.push({ name, kind: 'function', length: length < 0 ? body.parameters.length : length, isAsync });
      } else if (symbol.flags & F.Variable) {
        const type = checker.getTypeOfSymbol(symbol);
        const declaration = symbol.valueDeclaration;
        // A literal constant only where its initializer is that literal: a cast can give a computed value a literal type.
        const literal =
          (type.isStringLiteral() || type.isNumberLiteral()) &&
          declaration !== undefined && ts.isVariableDeclaration(declaration) && declaration.initializer !== undefined &&
          (ts.isStringLiteral(declaration.initializer) || ts.isNumericLiteral(declaration.initializer)) &&
          (ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const) !== 0;
        kinds.push(literal ? { name, kind: 'literal', value: type.value } : { name, kind: 'value' });
      } else if (!(symbol.flags & (F.Type | F.Interface | F.TypeAlias))) {
        fail('has a kind the core cannot stub');
      }
    }
    return kinds;
  });
}

/**
 * The core's stand-in for lazy root `index`. Imported statically: each function forwarded and each
 * literal copied (nothing else: see the top). Imported only by `import()`: the real exports.
 */
function stubText(index, kinds, dynamic) {
  const lines = ["import { part } from 'claude-ps:lazy';"];
  if (dynamic) {
    lines.push(`const ns = part().r${index};`);
    for (const { name } of kinds) lines.push(`export const ${name} = ns.${name};`);
    return lines.join('\n');
  }
  for (const { name, kind, value, length, isAsync } of kinds) {
    const params = Array.from({ length }, (_, i) => `a${i}`).join(', ');
    if (kind === 'function') lines.push(`export ${isAsync ? 'async ' : ''}function ${name}(${params}) { return part().r${index}.${name}.apply(this, arguments); }`);
    else if (kind === 'literal') lines.push(`export const ${name} = ${JSON.stringify(value)};`);
  }
  return lines.join('\n');
}

/**
 * The core's loader: the modules handed over, the factory loaded once and checked to be of this
 * build. Every core is CommonJS (the library's ES module entry runs the CommonJS core:
 * lib/library-entry.ts); `__claudePsExtras` is a require of the extras a core's banner may hand in, one
 * an app's bundler sees and follows (scripts/bundle.mjs, coreWrap).
 *
 * Each module goes over as an object of getters made when the extras load (`names`: its value
 * exports), not as an `import * as` namespace: esbuild builds every namespace when the core loads,
 * with a defineProperty per export, ~80 KB of young garbage and ~1 ms of every cold `import`, which
 * with the first read's own pushed Node's first scavenge (~3 ms) into the run (`node --trace-gc`).
 */
function loaderText(handed, names, parts, buildId) {
  const { extrasFile, holds, advice } = parts;
  const imports = handed.map((file, i) => `import { ${names[i].map((n) => `${n} as m${i}_${n}`).join(', ')} } from ${JSON.stringify(`./${file}`)};`);
  const load = `const load = () => (typeof __claudePsExtras === 'function' ? __claudePsExtras() : require('./${extrasFile}'));`;
  const module = (file, i) => `${JSON.stringify(file)}: { ${names[i].map((n) => `get ${n}() { return m${i}_${n}; }`).join(', ')} }`;
  return [
    ...imports.filter((_, i) => names[i].length > 0),
    load,
    `const handover = () => ({ ${handed.map(module).join(', ')} });`,
    'let extras;',
    'export function part() {',
    '  if (extras !== undefined) return extras;',
    '  let factory;',
    '  try {',
    '    factory = load();',
    '  } catch (error) {',
    `    throw new Error(\`${extrasFile}, which holds ${holds}, did not load from beside the file that needs it (\${error?.message?.split('\\n')[0]}): ${advice}\`, { cause: error });`,
    '  }',
    `  if (factory?.buildId !== ${JSON.stringify(buildId)}) throw new Error('${extrasFile} is from another build than the file that loads it: reinstall claude-ps');`,
    '  return (extras = factory(handover()));',
    '}',
  ].join('\n');
}

/** Resolves an import as esbuild would, from inside a plugin (marked, so the plugin skips its own call). */
async function resolved(b, args) {
  const r = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { inner: true } });
  return r.errors.length === 0 && !r.external ? r.path : undefined;
}

/** The plugin of a core build: lazy roots become stubs; `claude-ps:lazy` is the loader. */
function corePlugin(parts, handed, buildId, seen, names = []) {
  const { roots, kinds, extrasFile } = parts;
  const rootIndex = new Map(roots.map((file, i) => [file, i]));
  return {
    name: 'lazy-core',
    setup(b) {
      b.onResolve({ filter: /^claude-ps:lazy$/ }, () => ({ path: 'loader', namespace: 'lazy' }));
      b.onResolve({ filter: new RegExp(`^\\./${extrasFile.replace('.', '\\.')}$`) }, () => ({ path: `./${extrasFile}`, external: true }));
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.inner || args.namespace !== 'file' || !args.importer) return undefined;
        const path = await resolved(b, args);
        if (path === undefined || !rootIndex.has(rel(path))) return undefined;
        // Paths relative to the package root: nothing of the build machine's in dist/.
        return { path: rel(path), namespace: args.kind === 'dynamic-import' ? 'lazy-init' : 'lazy-stub' };
      });
      for (const namespace of ['lazy-stub', 'lazy-init']) {
        b.onLoad({ filter: /.*/, namespace }, (args) => {
          const i = rootIndex.get(args.path);
          return { contents: stubText(i, kinds[i], namespace === 'lazy-init'), loader: 'js', resolveDir: process.cwd() };
        });
      }
      b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({ contents: loaderText(handed, names, parts, buildId), loader: 'js', resolveDir: process.cwd() }));
      b.onLoad({ filter: /.*/, namespace: 'file' }, (args) => {
        seen?.add(rel(args.path));
        return undefined;
      });
    },
  };
}

/** The plugin of the extras build: every module the core holds is read from `__core`. */
function extrasPlugin(roots, coreFiles, handed) {
  return {
    name: 'lazy-extras',
    setup(b) {
      b.onResolve({ filter: /^claude-ps:extras$/ }, () => ({ path: 'entry', namespace: 'extras' }));
      b.onLoad({ filter: /.*/, namespace: 'extras' }, () => ({
        contents: roots.map((file, i) => `export * as r${i} from ${JSON.stringify(`./${file}`)};`).join('\n'),
        loader: 'js',
        resolveDir: process.cwd(),
      }));
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.inner || args.namespace !== 'file' || !args.importer) return undefined;
        const path = await resolved(b, args);
        if (path === undefined || !coreFiles.has(rel(path))) return undefined;
        handed.add(rel(path));
        return { path: rel(path), namespace: 'core' };
      });
      b.onLoad({ filter: /.*/, namespace: 'core' }, (args) => ({ contents: `module.exports = __core[${JSON.stringify(args.path)}];`, loader: 'js' }));
    },
  };
}

const sourcesOf = (metafile) => new Set(Object.keys(metafile.inputs).filter((f) => f.startsWith('lib/') || f.startsWith('node_modules/')));

/**
 * Builds the extras file and the cores, and returns the files written. `options`: the cores' build
 * options but format and outfile; `roots`: the lazy roots (`checkerRoots`: those of every build of
 * this run, for one TypeScript program); `extrasFile`: its name in dist/; `holds` and `advice`: what
 * it holds and what to do when it cannot load, for the error a user sees; `extrasPlugins`: esbuild
 * plugins of its build; `cores` (CommonJS): [{ outfile, plugins, wrap? }], `wrap(buildId)` giving a core's
 * own banner and footer. Returns { files, buildId }.
 */
export async function lazyBuilds({ options, roots, checkerRoots, extrasFile, holds, advice, extrasPlugins = [], cores }) {
  const parts = { roots, kinds: exportKinds(roots, checkerRoots), extrasFile, holds, advice };
  // Pass 1: which files the core holds, with stubs in place of the roots; its text names the build.
  const coreFiles = new Set();
  const first = cores[0];
  const probe = await build({ ...options, format: 'cjs', write: false, outfile: first.outfile, plugins: [...(first.plugins ?? []), corePlugin(parts, [], '', coreFiles)] });
  for (const root of roots) coreFiles.delete(root);
  // Pass 2: the extras, taking from the core what it holds. The build id covers both the core's text
  // and the extras' own, so an extras file of other sources is refused even where the core's did not
  // change; it is put in once the text is known.
  const handedSet = new Set();
  const PLACEHOLDER = '"claude-ps-build-id-to-come"';
  const { stdin: _coreEntry, ...extrasOptions } = options;
  const extras = await build({
    ...extrasOptions,
    entryPoints: ['claude-ps:extras'],
    format: 'cjs',
    outfile: `dist/${extrasFile}`,
    metafile: true,
    write: false,
    plugins: [...extrasPlugins, extrasPlugin(roots, coreFiles, handedSet)],
    banner: { js: 'module.exports = function (__core) {\nvar module = { exports: {} }, exports = module.exports;' },
    footer: { js: `return module.exports;\n};\nmodule.exports.buildId = ${PLACEHOLDER};` },
  });
  const hash = createHash('sha256');
  for (const f of [...probe.outputFiles, ...extras.outputFiles]) hash.update(f.text).update('\0');
  const buildId = hash.digest('hex').slice(0, 16);
  mkdirSync(dirname(resolve(`dist/${extrasFile}`)), { recursive: true });
  for (const f of extras.outputFiles) writeFileSync(f.path, f.path.endsWith('.map') ? f.text : f.text.replace(PLACEHOLDER, JSON.stringify(buildId)));
  const handed = [...handedSet].sort();
  const names = handed.map((file) => valueNames(file, checkerRoots));
  // Pass 3: the cores, with exactly those namespaces handed over.
  const built = await Promise.all(
    cores.map(({ outfile, plugins = [], wrap }) =>
      build({
        ...options,
        format: 'cjs',
        outfile,
        metafile: true,
        plugins: [...plugins, corePlugin(parts, handed, buildId, undefined, names)],
        // A core's own banner and footer, which may name the build (`wrap(buildId)`).
        ...(wrap ? wrap(buildId) : {}),
      }),
    ),
  );
  // One copy of each module: a second would be a second backend, memo or error class.
  const inExtras = sourcesOf(extras.metafile);
  for (const [i, core] of built.entries()) {
    const both = [...sourcesOf(core.metafile)].filter((f) => inExtras.has(f));
    if (both.length > 0) throw new Error(`${cores[i].outfile} and dist/${extrasFile} both hold ${both.join(', ')}`);
  }
  return { files: [`dist/${extrasFile}`, ...cores.map((c) => c.outfile)], buildId };
}

/**
 * The exports of `file`, a module of the shared program (exportKinds makes it): each name with the
 * symbol it stands for, re-exports followed to their declarations.
 */
function exportsOf(file) {
  const { program, checker } = shared;
  const source = program.getSourceFile(resolve(file));
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${file}: not found by the TypeScript checker`);
  return checker.getExportsOfModule(moduleSymbol).map((exported) => ({
    name: exported.getName(),
    symbol: exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported,
  }));
}

/**
 * Every value export of `file` (a module of `checkerRoots`' program), of any kind, by name: what a
 * module handed to the extras must offer them.
 */
function valueNames(file, checkerRoots) {
  exportKinds([], checkerRoots);
  return exportsOf(file)
    .filter(({ symbol }) => (symbol.flags & ts.SymbolFlags.Value) !== 0)
    .map(({ name }) => name)
    .sort();
}

/** The exports of `file` declared with `let` or `var` (following re-exports to their declarations). */
export function mutableExports(file, checkerRoots) {
  exportKinds([], checkerRoots);
  return exportsOf(file)
    .filter(({ symbol }) => (symbol.declarations ?? []).some((d) => ts.isVariableDeclaration(d) && (ts.getCombinedNodeFlags(d) & ts.NodeFlags.Const) === 0))
    .map(({ name }) => name);
}

/** The value exports of `file` (a module of `checkerRoots`' program), by name. */
export function valueExports(file, checkerRoots) {
  return exportKinds([file], checkerRoots)[0].map((k) => k.name);
}
