// The library's rarely used parts (prune, snapshots, watch, other hosts) in a file of their own,
// dist/extras.cjs, loaded on first use: a cold `import` + `liveRecords()` then compiles only the
// read path (~77 KB of the ~195 KB), about 5 ms less of a guard's or a poller's start-up. The CLI's
// bundle is split the same way (dist/cli-extras.cjs: every command but the five a statusline, a
// poller or a guard runs), so its code cache and its source hold only those (scripts/bundle.mjs).
//
// Most of those parts are synchronous (prune(), new Watcher()), so the file is CommonJS, which both
// library builds can load at once (ESM through createRequire). It must share every module with the
// core that loaded it (one backend, one parse memo, the same error classes for instanceof), so it
// bundles none of them: the file is a factory, `module.exports = function (__core) { … }`, and each
// import of a module the core holds reads it from `__core`, the core's own module namespaces (live
// bindings). What the core imports from a lazy root is a stub with the same names: a function
// that forwards its call, a class that is a proxy for the real one (new, extends, instanceof and
// statics reach it), a literal constant copied. The export kinds come from the TypeScript checker;
// an export that is none of these fails the build.
//
// The build runs in three passes: the core with stubs (which files it holds), the extras (which of
// those they import), then the core again with exactly those namespaces handed over.
import { build } from 'esbuild';
import { relative, resolve } from 'node:path';
import ts from 'typescript';

/** The library's lazy roots: their exports become stubs in the core, their code lives in dist/extras.cjs. */
export const LIBRARY_ROOTS = [
  'lib/registry/prune/prune.ts',
  'lib/registry/prune/legacy.ts',
  'lib/registry/snapshot.ts',
  'lib/registry/watch/watch.ts',
  'lib/hosts/read.ts',
  'lib/hosts/watch.ts',
  'lib/hosts/watch-api.ts',
];

const rel = (abs) => relative(process.cwd(), abs).split('\\').join('/');

/** Each lazy root's value exports: [{ name, kind: 'function' | 'class' | 'literal' | 'value', value }]. */
let shared;
function exportKinds(roots, checkerRoots = roots) {
  // One program for every build of a run (`checkerRoots`: all their roots), ~2 s each otherwise.
  if (shared?.key !== checkerRoots.join('\n')) {
    const program = ts.createProgram(
      checkerRoots.map((f) => resolve(f)),
      { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
    );
    shared = { key: checkerRoots.join('\n'), program, checker: program.getTypeChecker() };
  }
  const { program, checker } = shared;
  return roots.map((file) => {
    const source = program.getSourceFile(resolve(file));
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`${file}: not found by the TypeScript checker`);
    const kinds = [];
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const name = exported.getName();
      const F = ts.SymbolFlags;
      if (symbol.flags & F.Class) kinds.push({ name, kind: 'class' });
      else if (symbol.flags & F.Function) kinds.push({ name, kind: 'function' });
      else if (symbol.flags & F.Variable) {
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
        throw new Error(`${file}: export ${name} has a kind the core cannot stub`);
      }
    }
    return kinds;
  });
}

/**
 * The core's stand-in for lazy root `index`. Imported statically, each export by its kind. Imported only by
 * `import()`, which esbuild turns into a module initialised at that call: the extras load then, and
 * every export is the real one.
 */
function stubText(index, kinds, dynamic) {
  const lines = ["import { part, lazyClass } from 'claude-ps:lazy';"];
  if (dynamic) {
    lines.push(`const ns = part().r${index};`);
    for (const { name } of kinds) lines.push(`export const ${name} = ns.${name};`);
    return lines.join('\n');
  }
  for (const { name, kind, value } of kinds) {
    if (kind === 'function') lines.push(`export function ${name}(...args) { return part().r${index}.${name}(...args); }`);
    else if (kind === 'class') lines.push(`export const ${name} = /* @__PURE__ */ lazyClass(${JSON.stringify(name)}, () => part().r${index}.${name});`);
    else if (kind === 'literal') lines.push(`export const ${name} = ${JSON.stringify(value)};`);
    // Any other value would have to exist before the extras load: it is left out, so a core module
    // importing it fails the build ("No matching export"), and the rest of the root still loads lazily.
  }
  return lines.join('\n');
}

/** The core's loader: the namespaces handed over, the factory called once, the class proxies. */
function loaderText(format, handed, extrasFile) {
  const imports = handed.map((file, i) => `import * as m${i} from ${JSON.stringify(resolve(file))};`);
  const load =
    format === 'esm'
      ? `import { createRequire } from 'node:module';\nconst load = () => createRequire(import.meta.url)('./${extrasFile}');`
      : `const load = () => require('./${extrasFile}');`;
  return [
    ...imports,
    load,
    `const core = { ${handed.map((file, i) => `${JSON.stringify(file)}: m${i}`).join(', ')} };`,
    'let extras;',
    'export function part() { return (extras ??= load()(core)); }',
    // A function shell (its `prototype` is writable, so the proxy may answer the real one): every
    // use that reaches the class (new, extends, instanceof, statics, a call) reaches the real one,
    // loaded then; instances name the proxy as their constructor.
    'export function lazyClass(name, real) {',
    '  const shell = { [name]: function () {} }[name];',
    '  let cls;',
    '  const proxy = new Proxy(shell, {',
    '    get: (_, key) => Reflect.get(target(), key),',
    '    set: (_, key, value) => Reflect.set(target(), key, value),',
    '    has: (_, key) => Reflect.has(target(), key),',
    '    construct: (_, args, newTarget) => Reflect.construct(target(), args, newTarget),',
    '    apply: (_, self, args) => Reflect.apply(target(), self, args),',
    '  });',
    '  function target() {',
    '    if (cls === undefined) {',
    '      cls = real();',
    "      Object.defineProperty(cls.prototype, 'constructor', { value: proxy, writable: true, configurable: true });",
    '    }',
    '    return cls;',
    '  }',
    '  return proxy;',
    '}',
  ].join('\n');
}

/** Resolves an import as esbuild would, from inside a plugin (marked, so the plugin skips its own call). */
async function resolved(b, args) {
  const r = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { inner: true } });
  return r.errors.length === 0 && !r.external ? r.path : undefined;
}

/** The plugin of a core build: lazy roots become stubs; `claude-ps:lazy` is the loader. */
function corePlugin(format, parts, handed, seen) {
  const { roots, kinds, extrasFile } = parts;
  const rootIndex = new Map(roots.map((file, i) => [resolve(file), i]));
  return {
    name: 'lazy-core',
    setup(b) {
      b.onResolve({ filter: /^claude-ps:lazy$/ }, () => ({ path: 'lazy', namespace: 'lazy-loader' }));
      b.onResolve({ filter: new RegExp(`^\\./${extrasFile.replace('.', '\\.')}$`) }, () => ({ path: `./${extrasFile}`, external: true }));
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.inner || args.namespace !== 'file' || !args.importer) return undefined;
        const path = await resolved(b, args);
        if (path === undefined || !rootIndex.has(path)) return undefined;
        return { path, namespace: args.kind === 'dynamic-import' ? 'lazy-init' : 'lazy-stub' };
      });
      for (const namespace of ['lazy-stub', 'lazy-init']) {
        b.onLoad({ filter: /.*/, namespace }, (args) => {
          const i = rootIndex.get(args.path);
          return { contents: stubText(i, kinds[i], namespace === 'lazy-init'), loader: 'js', resolveDir: process.cwd() };
        });
      }
      b.onLoad({ filter: /.*/, namespace: 'lazy-loader' }, () => ({ contents: loaderText(format, handed, extrasFile), loader: 'js', resolveDir: resolve('lib') }));
      b.onLoad({ filter: /\.ts$/ }, (args) => {
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
      b.onResolve({ filter: /^claude-ps:extras$/ }, () => ({ path: 'extras', namespace: 'lazy-entry' }));
      b.onLoad({ filter: /.*/, namespace: 'lazy-entry' }, () => ({
        contents: roots.map((file, i) => `export * as r${i} from ${JSON.stringify(resolve(file))};`).join('\n'),
        loader: 'js',
        resolveDir: process.cwd(),
      }));
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.inner || args.namespace !== 'file' || !args.importer) return undefined;
        const path = await resolved(b, args);
        if (path === undefined || !coreFiles.has(rel(path))) return undefined;
        handed.add(rel(path));
        return { path: rel(path), namespace: 'core-ref' };
      });
      b.onLoad({ filter: /.*/, namespace: 'core-ref' }, (args) => ({ contents: `module.exports = __core[${JSON.stringify(args.path)}];`, loader: 'js' }));
    },
  };
}

/**
 * Builds the extras file and returns the options of the core builds. `options`: the core's build
 * options but format and outfile; `roots`: the lazy roots (`checkerRoots`: those of every build of
 * this run, for one TypeScript program); `extrasFile`: its name in dist/;
 * `extrasOptions`: more options for its build; `cores`: [{ format, outfile, plugins }].
 */
export async function lazyBuilds({ options, roots, checkerRoots, extrasFile, extrasOptions = {}, cores }) {
  const parts = { roots, kinds: exportKinds(roots, checkerRoots), extrasFile };
  // Pass 1: which files the core holds, with stubs in place of the roots.
  const coreFiles = new Set();
  const first = cores[0];
  await build({ ...options, format: first.format, write: false, outfile: first.outfile, plugins: [...(first.plugins ?? []), corePlugin(first.format, parts, [], coreFiles)] });
  for (const root of roots) coreFiles.delete(root);
  // Pass 2: the extras, taking from the core what it holds.
  const handedSet = new Set();
  const extras = {
    ...options,
    ...extrasOptions,
    entryPoints: ['claude-ps:extras'],
    format: 'cjs',
    outfile: `dist/${extrasFile}`,
    plugins: [extrasPlugin(roots, coreFiles, handedSet)],
    banner: { js: 'module.exports = function (__core) {\nvar module = { exports: {} }, exports = module.exports;' },
    footer: { js: 'return module.exports;\n};' },
  };
  await build(extras);
  const handed = [...handedSet].sort();
  // Pass 3 is the caller's: the core builds with exactly those namespaces handed over.
  return {
    extras,
    cores: cores.map(({ format, outfile, plugins = [] }) => ({ ...options, format, outfile, plugins: [...plugins, corePlugin(format, parts, handed)] })),
  };
}
