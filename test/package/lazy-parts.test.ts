/**
 * The built library loads its rarely used parts (prune, snapshots, watch, other hosts) from
 * dist/extras.cjs on first use (scripts/lazy-parts.mjs). These tests hold the built files to the
 * sources: the same exports of the same kinds, nothing of the extras compiled by a read, the class
 * proxies behaving as the classes, and one set of modules shared by the core and the extras.
 * Each check runs in a fresh Node process, for the ESM and the CommonJS build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
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

  it('gives classes that are the classes: new, instanceof, extends, constructor, name, a call without new', () => {
    const dir = JSON.stringify(reg.configDir);
    const result = inFreshNode(
      load,
      [
        'const before = extrasLoaded();',
        `const w = new lib.Watcher(${dir});`,
        'class Mine extends lib.Watcher { mine() { return this.records().length; } }',
        `const m = new Mine(${dir});`,
        'let called;',
        `try { lib.Watcher(${dir}); called = 'no error'; } catch (e) { called = e.constructor.name; }`,
        'const out = {',
        '  before,',
        '  instance: w instanceof lib.Watcher,',
        '  events: typeof w.on === "function",',
        '  constructor: w.constructor === lib.Watcher,',
        '  name: lib.Watcher.name,',
        '  sub: [m instanceof Mine, m instanceof lib.Watcher, m.mine()],',
        '  notOther: w instanceof lib.HostsWatcher,',
        '  called,',
        '};',
        `const f = lib.watch(${dir});`,
        'out.fromWatch = f instanceof lib.Watcher;',
        'w.close(); m.close(); f.close();',
        'return out;',
      ].join('\n'),
    );
    expect(result).toEqual({
      before: false,
      instance: true,
      events: true,
      constructor: true,
      name: 'Watcher',
      sub: [true, true, 1],
      notOther: false,
      called: 'TypeError',
      fromWatch: true,
    });
  });

  it('reaches the extras\' own use of a core error class: readHosts makes an unreadable folder an `unreadable` host', () => {
    // readHosts (extras) turns the core scan's RegistryUnreadableError into a host state by instanceof.
    const config = join(work, `dangling-${Math.random().toString(36).slice(2)}`);
    rmSync(config, { recursive: true, force: true });
    require('node:fs').mkdirSync(config);
    symlinkSync(join(work, 'nothing-here'), join(config, 'sessions'));
    const result = inFreshNode(load, `const [scan] = await lib.readHosts(['local'], { configDirs: [${JSON.stringify(config)}] }); return { state: scan.state, interactive: scan.interactive ?? null };`);
    expect(result).toEqual({ state: 'unreadable', interactive: null });
  });
  it.skipIf(process.platform !== 'linux' || source.backend().name !== 'native')(
    'shares the core\'s backend with the extras: a watcher watches exits through the backend the core selected',
    () => {
      // The core selects the JS backend (no kernel exit watch), then the environment would select the
      // addon: a watcher (extras) with a backend of its own would watch its PIDs through the kernel.
      const dir = JSON.stringify(reg.configDir);
      const result = inFreshNode(
        load,
        [
          "process.env.CLAUDE_PS_BACKEND = 'js';",
          'const chosen = lib.backend().name;',
          "process.env.CLAUDE_PS_BACKEND = '';",
          `const w = new lib.Watcher(${dir});`,
          'await new Promise((r) => setTimeout(r, 200));',
          'const watched = w.exitWatch();',
          'w.close();',
          'return { chosen, kernel: watched.kernel.length, interval: watched.interval.length };',
        ].join('\n'),
      );
      expect(result).toEqual({ chosen: 'js', kernel: 0, interval: 1 });
    },
  );
});

describe.skipIf(!built)('the built files', () => {
  it('hold each part once: the core none of the extras\' code, the extras none of the core\'s', () => {
    const extras = readFileSync(join(ROOT, 'dist/extras.cjs'), 'utf8');
    for (const core of ['dist/index.js', 'dist/index.cjs']) {
      const text = readFileSync(join(ROOT, core), 'utf8');
      expect(text).not.toMatch(/class Watcher\b|\bWatcher = class\b/);
      expect(text).not.toContain('put-back');
      expect(text.length).toBeLessThan(extras.length);
    }
    const classOf = (name: string) => new RegExp(`class ${name}\\b|\\b${name} = class\\b`);
    expect(extras).not.toMatch(classOf('RegistryUnreadableError'));
    expect(extras).not.toMatch(/function (liveRecords|scanRegistry)\(/);
    expect(extras).toMatch(classOf('Watcher'));
    for (const core of ['dist/index.js', 'dist/index.cjs']) {
      const text = readFileSync(join(ROOT, core), 'utf8');
      expect(text).toMatch(classOf('RegistryUnreadableError'));
      expect(text).toMatch(/function scanRegistry\(/);
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
