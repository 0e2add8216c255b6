/**
 * The layering docs/architecture.md describes, checked on the imports of lib/: cli → registry →
 * backend → proc, nothing pointing back up, no import cycle, and the addon loader a leaf that only the
 * backend facade imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const lib = resolve(import.meta.dirname, '../../lib');
const files = readdirSync(lib, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.split('\\').join('/'));

/**
 * Relative imports of a file, as paths under lib/ (`.js` specifiers name the `.ts` sources); with
 * `runtimeOnly`, without `import type` (which loads nothing).
 */
function importsOf(file: string, runtimeOnly = false): string[] {
  const text = readFileSync(join(lib, file), 'utf8');
  const specs = [...text.matchAll(/(?:^(import|export)\s+(type\s+)?[^;]*?from|import\s*\()\s*'(\.{1,2}\/[^']+)'/gm)]
    .filter((m) => !(runtimeOnly && m[2]))
    .map((m) => m[3]!);
  return specs.map((s) => relative(lib, resolve(dirname(join(lib, file)), s)).replace(/\.js$/, '.ts').split('\\').join('/'));
}

const layerOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);

// What each layer may import. index.ts re-exports the library (never the CLI); runtime.ts is a leaf.
const MAY_IMPORT: Record<string, readonly string[]> = {
  cli: ['cli', 'registry', 'backend', 'proc', 'runtime.ts', 'index.ts', 'code-cache.ts'],
  // The ES module entry runs the built core (a file, not an import): it imports only the cache code.
  'library-entry.ts': ['code-cache.ts'],
  'code-cache.ts': [],
  registry: ['registry', 'backend', 'proc', 'runtime.ts'],
  backend: ['backend', 'proc', 'runtime.ts'],
  proc: ['proc', 'runtime.ts'],
  'runtime.ts': [],
  'index.ts': ['registry', 'backend', 'proc'],
};

/**
 * A folder this table does not know yet (a feature added beside the CLI, e.g. lib/statusline/) may use
 * the library's layers, and only the CLI and index.ts may use it.
 */
function allowed(from: string, to: string): boolean {
  if (from === to) return true;
  if (!(to in MAY_IMPORT)) return from === 'cli' || from === 'index.ts';
  return (MAY_IMPORT[from] ?? ['registry', 'backend', 'proc', 'runtime.ts']).includes(to);
}

describe('the layers of lib/', () => {
  it('has the layers the map names, and the imports are read (multi-line ones too)', () => {
    for (const layer of ['cli', 'registry', 'backend', 'proc']) expect(files.some((f) => layerOf(f) === layer), layer).toBe(true);
    expect(importsOf('index.ts')).toEqual(expect.arrayContaining(['registry/verdict.ts', 'backend/index.ts', 'hosts/api.ts']));
    expect(importsOf('backend/js-linux.ts')).toEqual(expect.arrayContaining(['proc/stat.ts', 'backend/types.ts', 'backend/kill.ts']));
  });

  it('no import points back up a layer', () => {
    const wrong = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => !allowed(layerOf(file), layerOf(target)))
        .map((target) => `${file} → ${target}`),
    );
    expect(wrong).toEqual([]);
  });

  it('every relative import names a file that exists', () => {
    expect(files.flatMap((file) => importsOf(file).filter((t) => !files.includes(t)).map((t) => `${file} → ${t}`))).toEqual([]);
  });

  it('has no import cycle', () => {
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'visiting');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('the addon loader is a leaf only the backend facade imports', () => {
    const importers = files.filter((f) => importsOf(f, true).includes('backend/load.ts'));
    expect(importers).toEqual(['backend/index.ts']);
    expect(importsOf('backend/load.ts', true).filter((t) => t !== 'runtime.ts' && t !== 'backend/files.ts')).toEqual([]);
  });
});
