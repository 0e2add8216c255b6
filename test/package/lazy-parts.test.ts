/**
 * The built library loads its rarely used parts (prune, snapshots, watch, other hosts) from
 * dist/extras.cjs on first use (scripts/lazy-parts.mjs). These tests hold the built files to the
 * sources: the same exports of the same kinds, nothing of the extras compiled by a read, the class
 * proxies behaving as the classes, and one set of modules shared by the core and the extras.
 * Each check runs in a fresh Node process, for the ESM and the CommonJS build.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as source from '../../lib/index.js';
import { spawnSleep, procStartTicks, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';

const ROOT = join(import.meta.dirname, '../..');
const built = existsSync(join(ROOT, 'dist/extras.cjs'));
const builds = [
  ['ESM', `import(${JSON.stringify(join(ROOT, 'dist/index.js'))})`],
  ['CommonJS', `Promise.resolve(require(${JSON.stringify(join(ROOT, 'dist/index.cjs'))}))`],
] as const;

/** Runs `body` (an async function body with `lib` and `extrasLoaded()`) in a fresh node; its JSON result. */
function inFreshNode(load: string, body: string): unknown {
  const script = [
    "const Module = require('node:module');",
    "const extrasLoaded = () => Object.keys(Module._cache).some((k) => k.endsWith('extras.cjs'));",
    `${load}.then(async (lib) => {`,
    body,
    '}).then((r) => process.stdout.write(JSON.stringify(r)), (e) => { console.error(e); process.exit(1); });',
  ].join('\n');
  const ran = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, CLAUDE_PS_BACKEND: '' } });
  expect(ran.stderr).toBe('');
  expect(ran.status).toBe(0);
  return JSON.parse(ran.stdout);
}

let reg: RegistryFixture;
let session: Spawned;
let work: string;

beforeAll(() => {
  reg = makeRegistry('cps-lazy-');
  session = spawnSleep();
  reg.write(session.pid, sessionRecord(session.pid, { procStart: procStartTicks(session.pid), kind: 'interactive', status: 'idle' }));
  work = mkdtempSync(join(tmpdir(), 'cps-lazy-work-'));
});
afterAll(async () => {
  await session?.end();
  reg?.remove();
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!built).each(builds)('the %s build', (_, load) => {
  it('exports what the sources export, each of the same kind', () => {
    const kinds = (names: [string, string][]) => Object.fromEntries(names);
    const got = inFreshNode(load, 'return Object.keys(lib).filter((k) => k !== "default" && k !== "__esModule").sort().map((k) => [k, typeof lib[k]]);') as [string, string][];
    const want = Object.keys(source)
      .sort()
      .map((k) => [k, typeof (source as Record<string, unknown>)[k]] as [string, string]);
    expect(kinds(got)).toEqual(kinds(want));
    // The literal constants are copied into the core: the same values.
    expect(inFreshNode(load, 'return [lib.LOCAL_HOST, lib.SNAPSHOT_STRING_CAP];')).toEqual([source.LOCAL_HOST, source.SNAPSHOT_STRING_CAP]);
  });

  it('reads and guards without loading the extras, and loads them on the first prune', () => {
    const dir = JSON.stringify(reg.configDir);
    const result = inFreshNode(
      load,
      [
        `const live = lib.liveRecords(${dir}).map((r) => r.pid);`,
        `const yes = lib.hasLiveInteractive(${dir});`,
        `const asyncLive = (await lib.liveRecordsAsync(${dir})).length;`,
        'const before = extrasLoaded();',
        `const report = lib.pruneWithReport(lib.readRecords(${dir}));`,
        'return { live, yes, asyncLive, before, after: extrasLoaded(), pruned: report.removed.length };',
      ].join('\n'),
    );
    expect(result).toEqual({ live: [session.pid], yes: true, asyncLive: 1, before: false, after: true, pruned: 0 });
  });

  it('keeps its classes whole: a Watcher is a plain class, whose engine comes with the extras', () => {
    const dir = JSON.stringify(reg.configDir);
    const result = inFreshNode(
      load,
      [
        `const f = lib.watch(${dir});`,
        'const out = { constructor: f.constructor === lib.Watcher, instance: f instanceof lib.Watcher, name: lib.Watcher.name };',
        'class Mine extends lib.Watcher { mine() { return this.records().length; } }',
        `const m = new Mine(${dir});`,
        'out.sub = [m instanceof Mine, m instanceof lib.Watcher, m.mine()];',
        'out.parent = Object.getPrototypeOf(lib.Watcher) === require("node:events").EventEmitter;',
        'Object.freeze(lib.HostWatcher);',
        'out.frozen = f instanceof lib.HostWatcher;',
        'out.extras = extrasLoaded();',
        'f.close(); m.close();',
        'return out;',
      ].join('\n'),
    );
    expect(result).toEqual({ constructor: true, instance: true, name: 'Watcher', sub: [true, true, 1], parent: true, frozen: false, extras: true });
  });

  it('keeps the host watchers whole too: plain classes whose engines (and the ssh transport) come with the extras', () => {
    const dir = JSON.stringify(reg.configDir);
    const result = inFreshNode(
      load,
      [
        'const out = { before: extrasLoaded() };',
        // A programmer error still throws from the constructor, synchronously, as before the split.
        'try { new lib.HostWatcher("not an array"); out.thrown = "none"; } catch (e) { out.thrown = e.constructor.name; }',
        'const h = lib.watchHosts([]);',
        // No host to read, so only the engine's own module can have brought the extras in.
        'out.engine = extrasLoaded();',
        'out.host = [h instanceof lib.HostWatcher, h.constructor === lib.HostWatcher, Object.getPrototypeOf(lib.HostWatcher) === require("node:events").EventEmitter];',
        `const w = lib.watch(${dir}, { hosts: ["local"] });`,
        'out.hosts = [w instanceof lib.HostsWatcher, w.isClosed];',
        'await new Promise((r) => w.once("added", r));',
        'out.records = w.records().map((r) => [r.pid, r.host]);',
        'let closed = 0; w.on("close", () => closed++); w.close(); w.close(); h.close();',
        'out.closed = [w.isClosed, closed];',
        'out.after = extrasLoaded();',
        'return out;',
      ].join('\n'),
    );
    expect(result).toEqual({
      before: false,
      thrown: 'TypeError',
      engine: true,
      host: [true, true, true],
      hosts: [true, false],
      records: [[session.pid, 'local']],
      closed: [true, 1],
      after: true,
    });
  });

  it('gives forwarding functions the real ones\' length and arguments, and rejects (never throws) for an async one', () => {
    const result = inFreshNode(
      load,
      [
        'const lengths = [lib.prune.length, lib.pruneAsync.length, lib.pruneWithReport.length, lib.readHosts.length, lib.snapshot.length];',
        'let rejected;',
        'const p = lib.pruneAsync("not records");',
        'await p.catch((e) => { rejected = e.constructor.name; });',
        'return { lengths, rejected, promise: p instanceof Promise };',
      ].join('\n'),
    );
    const lengths = [source.prune.length, source.pruneAsync.length, source.pruneWithReport.length, source.readHosts.length, source.snapshot.length];
    expect(result).toEqual({ lengths, rejected: 'TypeError', promise: true });
  });

  it('shares the core\'s modules with the extras: prune judges through the backend the core selected', () => {
    // The core selects the JS backend; then the environment names no backend at all. Extras with a
    // backend of their own would select again, and throw on the bad name.
    const dir = JSON.stringify(reg.configDir);
    const result = inFreshNode(
      load,
      [
        "process.env.CLAUDE_PS_BACKEND = 'js';",
        'const chosen = lib.backend().name;',
        "process.env.CLAUDE_PS_BACKEND = 'no-such-backend';",
        `const report = lib.pruneWithReport(lib.readRecords(${dir}), { dryRun: true });`,
        'return { chosen, removed: report.removed.length, failed: report.failed?.length ?? 0, extras: extrasLoaded() };',
      ].join('\n'),
    );
    expect(result).toEqual({ chosen: 'js', removed: 0, failed: 0, extras: true });
  });
});

describe.skipIf(!built)('the CommonJS core\'s exports', () => {
  it('are a frozen object of plain values in name order, which an ES module importing index.cjs reads too', () => {
    const cjs = JSON.stringify(join(ROOT, 'dist/index.cjs'));
    const script = [
      `const lib = require(${cjs});`,
      "let replaced = false; try { 'use strict'; lib.hasLiveInteractive = () => false; replaced = lib.hasLiveInteractive.length === 0; } catch {}",
      `import(${cjs}).then((ns) => process.stdout.write(JSON.stringify({ keys: Object.keys(lib), frozen: Object.isFrozen(lib), esModule: lib.__esModule, replaced, named: Object.keys(ns).filter((k) => k !== 'default' && k !== '__esModule').sort() })));`,
    ].join('\n');
    const ran = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(ran.stderr).toBe('');
    const got = JSON.parse(ran.stdout) as { keys: string[]; frozen: boolean; esModule: boolean; replaced: boolean; named: string[] };
    const names = Object.keys(source).filter((k) => k !== 'default').sort();
    expect(got.keys).toEqual(names);
    expect(got.frozen).toBe(true);
    expect(got.esModule).toBe(true);
    expect(got.replaced).toBe(false);
    expect(got.named).toEqual(names);
  });

  it('are checked at build time to be constants, functions or classes: a `let` export would be copied once', async () => {
    const { mutableExports } = (await import(join(ROOT, 'scripts/lazy-parts.mjs'))) as { mutableExports: (file: string, roots: string[]) => string[] };
    const dir = mkdtempSync(join(tmpdir(), 'cps-mutable-'));
    try {
      writeFileSync(join(dir, 'a.ts'), 'export let counter = 0;\nexport var old = 1;\nexport const fixed = 2;\nexport function f() { counter++; }\nexport class C {}\n');
      writeFileSync(join(dir, 'index.ts'), "export { counter, fixed, f, C } from './a.js';\nexport { old as renamed } from './a.js';\nexport const own = 3;\n");
      expect(mutableExports(join(dir, 'index.ts'), [join(dir, 'index.ts')]).sort()).toEqual(['counter', 'renamed']);
      expect(mutableExports('lib/index.ts', ['lib/index.ts'])).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!built)('the extras, when they cannot serve', () => {
  /** A copy of dist/ (and what the loader looks for above it) in a temp folder, changed by `edit`. */
  function copyOfDist(edit: (dist: string) => void): string {
    const root = mkdtempSync(join(work, 'pkg-'));
    for (const entry of ['package.json', 'binding.gyp']) cpSync(join(ROOT, entry), join(root, entry));
    cpSync(join(ROOT, 'dist'), join(root, 'dist'), { recursive: true });
    edit(join(root, 'dist'));
    return root;
  }
  const dir = () => JSON.stringify(reg.configDir);

  it.each(builds.map(([name]) => name))('a missing extras file (%s): reads still work; prune says what is missing, an async one rejects', (name) => {
    const root = copyOfDist((dist) => rmSync(join(dist, 'extras.cjs')));
    const load = name === 'ESM' ? `import(${JSON.stringify(join(root, 'dist/index.js'))})` : `Promise.resolve(require(${JSON.stringify(join(root, 'dist/index.cjs'))}))`;
    const result = inFreshNode(
      load,
      [
        `const live = lib.liveRecords(${dir()}).length;`,
        'let sync; try { lib.prune([]); } catch (e) { sync = e.message; }',
        'let rejected; const p = lib.pruneAsync([]); await p.catch((e) => { rejected = e.message; });',
        'return { live, sync, rejected };',
      ].join('\n'),
    ) as { live: number; sync: string; rejected: string };
    expect(result.live).toBe(1);
    expect(result.sync).toMatch(/^extras\.cjs, which holds prune, .* did not load .*mark claude-ps as external, or ship index\.cjs and extras\.cjs beside the bundle\)$/);
    expect(result.rejected).toBe(result.sync);
  });

  it('an extras file of another build is refused, never run against this core', () => {
    const root = copyOfDist((dist) => {
      const file = join(dist, 'extras.cjs');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/module\.exports\.buildId = "[0-9a-f]+";/, 'module.exports.buildId = "0000000000000000";'));
    });
    const result = inFreshNode(`Promise.resolve(require(${JSON.stringify(join(root, 'dist/index.cjs'))}))`, 'try { lib.prune([]); return "ran"; } catch (e) { return e.message; }');
    expect(result).toBe('extras.cjs is from another build than the file that loads it: reinstall claude-ps');
  });

  it('an app that bundles the ESM build into one file (esbuild) still prunes: the bundler follows the extras in', async () => {
    const { build } = await import('esbuild');
    const app = mkdtempSync(join(work, 'app-'));
    writeFileSync(
      join(app, 'app.mjs'),
      `import { liveRecords, pruneWithReport, readRecords } from ${JSON.stringify(join(ROOT, 'dist/index.js'))};\n` +
        `const dir = ${dir()};\n` +
        'process.stdout.write(JSON.stringify({ live: liveRecords(dir).length, removed: pruneWithReport(readRecords(dir), { dryRun: true }).removed.length }));\n',
    );
    const out = join(app, 'out', 'app.mjs');
    await build({ entryPoints: [join(app, 'app.mjs')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'silent' });
    const ran = spawnSync(process.execPath, [out], { encoding: 'utf8', env: { ...process.env, CLAUDE_PS_BACKEND: '' } });
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toEqual({ live: 1, removed: 0 });
  });
});

describe.skipIf(!built)('the built files', () => {
  it('hold each module once: no `// lib/…` module of the core in the extras (the build fails on one as well)', () => {
    const modules = (file: string) => new Set(readFileSync(join(ROOT, file), 'utf8').match(/^\/\/ lib\/[\w/.-]+\.ts$/gm) ?? []);
    const extras = modules('dist/extras.cjs');
    expect(extras.has('// lib/registry/prune/prune.ts')).toBe(true);
    const held = modules('dist/index.cjs');
    expect(held.has('// lib/registry/read/scan.ts')).toBe(true);
    expect(held.has('// lib/registry/watch/watch.ts')).toBe(true);
    expect([...held].filter((m) => extras.has(m))).toEqual([]);
    // The ES module entry runs that core (lib/library-entry.ts): it holds none of it.
    expect([...modules('dist/index.js')].sort()).toEqual(['// lib/code-cache.ts', '// lib/library-entry.ts']);
  });

  it('are ASCII only: one other character, even in a kept comment, makes V8 hold the whole source as UTF-16', () => {
    for (const file of ['index.js', 'index.cjs', 'extras.cjs', 'cli.cjs', 'cli-main.cjs', 'cli-count.cjs', 'cli-statusline.cjs', 'cli-extras.cjs']) {
      const text = readFileSync(join(ROOT, 'dist', file), 'utf8');
      const at = text.search(/[^\x00-\x7f]/);
      expect(at < 0 ? '' : `${file}: ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 20))}`).toBe('');
    }
  });

  it('read import.meta only through its properties, which an app\'s bundler rewrites (a bare import.meta it makes `{}`)', () => {
    const entry = readFileSync(join(ROOT, 'dist/index.js'), 'utf8');
    expect(entry.match(/import\.meta\.\w+/g)?.sort()).toEqual(['import.meta.dirname', 'import.meta.url']);
    expect(entry.match(/import\.meta(?!\.\w)/g) ?? []).toEqual([]);
  });

  it('name nothing of the machine they were built on', () => {
    for (const file of ['index.js', 'index.cjs', 'extras.cjs', 'cli-main.cjs', 'cli-count.cjs', 'cli-statusline.cjs', 'cli-extras.cjs']) {
      for (const text of [readFileSync(join(ROOT, 'dist', file), 'utf8'), readFileSync(join(ROOT, 'dist', `${file}.map`), 'utf8')]) {
        expect(text.includes(ROOT), file).toBe(false);
      }
    }
  });
});

describe.skipIf(!existsSync(join(ROOT, 'dist/cli-extras.cjs')))('the built CLI', () => {
  // NODE_DEBUG=module names every file the CommonJS loader loads; no code cache (it is not what is tested).
  const loads = (args: string[], input = '') => {
    const ran = spawnSync(process.execPath, [join(ROOT, 'dist/cli.cjs'), ...args], {
      encoding: 'utf8',
      input,
      env: { ...process.env, NODE_DEBUG: 'module', NODE_DISABLE_COMPILE_CACHE: '1', CLAUDE_CONFIG_DIR: reg.configDir, CLAUDE_PS_BACKEND: '' },
    });
    return { status: ran.status, extras: /load "[^"]*cli-extras\.cjs"/.test(ran.stderr) };
  };

  it.each([
    [['count']],
    [['count', '--json']],
    [['list']],
    [['summary']],
    [['has-interactive']],
    [['statusline']],
  ])('runs a statusline\'s, a poller\'s and a guard\'s commands without reading the extras: %j', (args) => {
    expect(loads(args, '{}')).toEqual({ status: 0, extras: false });
  });

  it.each([[['doctor']], [['prune', '--dry-run']], [['probe', String(process.pid)]], [['--help']]])('reads them for the others: %j', (args) => {
    expect(loads(args)).toEqual({ status: 0, extras: true });
  });
});
