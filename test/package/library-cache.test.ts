/**
 * The library's ES module entry (dist/index.js, lib/library-entry.ts) runs the CommonJS core through a
 * per-user V8 code cache, as the CLI's executable does: one `lib-index-…` file in
 * `$XDG_CACHE_HOME/claude-ps/`, written once at the exit of a short run that found none it could use,
 * never into the package; anything wrong with it only means an import without it. "Used" is
 * observable without timing anything: a run whose data V8 refused (or that found none) writes a fresh
 * file, so a file left as it was (same inode, same mtime) was used. Every run is a fresh Node.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cacheFolder, cacheKeys, fileIdentity } from '../helpers/cache-folder.js';
import { fileTree } from '../helpers/file-tree.js';
import { procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';

const ROOT = join(import.meta.dirname, '../..');
const built = existsSync(join(ROOT, 'dist/index.js'));
const ENTRY = join(ROOT, 'dist/index.js');

let reg: RegistryFixture;
let session: Spawned;
let work = '';
let xdg = '';
const folder = cacheFolder(() => xdg);
const cacheDir = folder.dir;
const cacheFiles = folder.files;
const theFile = () => {
  const file = folder.only();
  expect(file).toMatch(/\/lib-index-[^/]*\.v8cache$/);
  return file;
};
const identity = fileIdentity;

/** A script for `node -e` that imports `entry`, reads the registry, and prints the live PIDs (or the error's message). */
function importScript(entry: string, before = ''): string {
  return [
    before,
    `import(${JSON.stringify(entry)})`,
    `  .then((lib) => process.stdout.write(JSON.stringify(lib.liveRecords(${JSON.stringify(reg.configDir)}).map((r) => r.pid))))`,
    '  .catch((e) => { process.stdout.write(JSON.stringify({ error: e.message })); });',
  ].join('\n');
}

function importOnce(extraEnv: NodeJS.ProcessEnv = {}, { entry = ENTRY, args = [] as string[], before = '' } = {}): unknown {
  const ran = spawnSync(process.execPath, [...args, '-e', importScript(entry, before)], {
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_PS_BACKEND: '', XDG_CACHE_HOME: xdg, ...extraEnv },
    timeout: 20_000,
  });
  expect(ran.stderr).toBe('');
  expect(ran.status).toBe(0);
  return JSON.parse(ran.stdout);
}

/** The answer the CommonJS build gives (no cache involved). */
let expected: number[] = [];

beforeAll(() => {
  reg = makeRegistry('cps-libcache-');
  session = spawnSleep();
  reg.write(session.pid, sessionRecord(session.pid, { procStart: procStartTicks(session.pid), kind: 'interactive', status: 'idle' }));
  reg.write(999_999_990, sessionRecord(999_999_990, { procStart: '1', kind: 'interactive' }));
  work = mkdtempSync(join(tmpdir(), 'cps-libcache-work-'));
  const cjs = spawnSync(
    process.execPath,
    ['-e', `process.stdout.write(JSON.stringify(require(${JSON.stringify(join(ROOT, 'dist/index.cjs'))}).liveRecords(${JSON.stringify(reg.configDir)}).map((r) => r.pid)))`],
    { encoding: 'utf8', env: { ...process.env, CLAUDE_PS_BACKEND: '' } },
  );
  expected = JSON.parse(cjs.stdout);
  expect(expected).toEqual([session.pid]);
});
afterAll(async () => {
  await session?.end();
  reg?.remove();
  rmSync(work, { recursive: true, force: true });
});
beforeEach(() => {
  xdg = mkdtempSync(join(work, 'xdg-'));
});

describe.skipIf(!built || process.platform === 'win32')('the library entry\'s code cache', () => {
  it('is written once, beside nothing of the package, mode 0600 in a 0700 folder, and used thereafter', () => {
    const before = fileTree(join(ROOT, 'dist'));
    expect(importOnce()).toEqual(expected);
    const file = theFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
    const first = identity(file);
    for (let i = 0; i < 3; i++) expect(importOnce()).toEqual(expected);
    // Another `node -e` script is the same way of running: execArgv holds the code, the file name does not.
    expect(importOnce({}, { before: '/* another script */' })).toEqual(expected);
    expect(identity(theFile())).toBe(first);
    expect(fileTree(join(ROOT, 'dist'))).toEqual(before);
  });

  it('is replaced when corrupt, truncated or of another core, and the answer stays right', () => {
    importOnce();
    const file = theFile();
    const whole = readFileSync(file);
    const head = whole.subarray(0, whole.indexOf(10) + 1);
    for (const bad of [
      Buffer.concat([head, Buffer.from('not V8 data at all')]),
      whole.subarray(0, whole.length >> 1),
      Buffer.concat([Buffer.from('1 2 3 4\t\n'), whole.subarray(head.length)]), // another core's identity
      Buffer.alloc(0),
      // A block zeroed under an intact first line: V8 would crash in its deserializer, on every import.
      Buffer.concat([head, whole.subarray(head.length, head.length + 8192), Buffer.alloc(4096), whole.subarray(head.length + 8192 + 4096)]),
    ]) {
      writeFileSync(file, bad, { mode: 0o600 });
      const was = identity(file);
      expect(importOnce()).toEqual(expected);
      expect(identity(file)).not.toBe(was);
      const now = identity(file);
      expect(importOnce()).toEqual(expected);
      expect(identity(file)).toBe(now);
    }
  });

  it('is never followed through a symlink or read from a FIFO (no hang), and the import still answers', () => {
    importOnce();
    const file = theFile();
    rmSync(file);
    const target = join(work, `target-${process.pid}-${Date.now()}`);
    writeFileSync(target, 'keep me');
    symlinkSync(target, file);
    expect(importOnce()).toEqual(expected);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    rmSync(file, { force: true });
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    expect(importOnce()).toEqual(expected);
  });

  it('is skipped where there is no cache folder to be had, and turned off by NODE_DISABLE_COMPILE_CACHE', () => {
    expect(importOnce({ NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual(expected);
    expect(cacheFiles()).toEqual([]);
    writeFileSync(join(xdg, 'claude-ps'), 'a file where the folder would be');
    expect(importOnce()).toEqual(expected);
    rmSync(join(xdg, 'claude-ps'));
    expect(importOnce({ XDG_CACHE_HOME: 'relative/path', HOME: '' })).toEqual(expected);
    expect(cacheFiles()).toEqual([]);
  });

  it('is not written by a long run (V8 may have flushed what it compiled)', () => {
    const ran = spawnSync(
      process.execPath,
      ['-e', importScript(ENTRY).replace('.catch(', '.then(() => { const until = Date.now() + 5300; while (Date.now() < until); }).catch(')],
      { encoding: 'utf8', env: { ...process.env, CLAUDE_PS_BACKEND: '', XDG_CACHE_HOME: xdg } },
    );
    expect(ran.status).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual(expected);
    expect(cacheFiles()).toEqual([]);
  });

  it('is made again, once, by the first run that reads, when the run that made it did not', () => {
    const importOnly = [
      `import(${JSON.stringify(ENTRY)})`,
      '  .then((lib) => process.stdout.write(JSON.stringify(typeof lib.defaultConfigDir())))',
      '  .catch((e) => { process.stdout.write(JSON.stringify({ error: e.message })); });',
    ].join('\n');
    const ran = spawnSync(process.execPath, ['-e', importOnly], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: xdg } });
    expect(ran.stdout).toBe('"string"');
    const file = theFile();
    const keys = () => cacheKeys(file).join(' ');
    expect(keys()).toBe('');
    const unread = identity(file);
    expect(importOnce()).toEqual(expected);
    expect(identity(file)).not.toBe(unread);
    expect(keys()).toBe('read');
    const read = identity(file);
    expect(importOnce()).toEqual(expected);
    expect(spawnSync(process.execPath, ['-e', importOnly], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: xdg } }).stdout).toBe('"string"');
    expect(identity(file)).toBe(read);
  });

  it('keeps one file per install: two copies of one version do not replace each other\'s', () => {
    const root = mkdtempSync(join(work, 'second-install-'));
    for (const entry of ['package.json', 'binding.gyp']) cpSync(join(ROOT, entry), join(root, entry));
    cpSync(join(ROOT, 'dist'), join(root, 'dist'), { recursive: true });
    const other = join(root, 'dist/index.js');
    expect(importOnce()).toEqual(expected);
    expect(importOnce({}, { entry: other })).toEqual(expected);
    const files = cacheFiles().sort();
    expect(files).toHaveLength(2);
    const before = files.map((f) => identity(join(cacheDir(), f)));
    expect(importOnce()).toEqual(expected);
    expect(importOnce({}, { entry: other })).toEqual(expected);
    expect(cacheFiles().sort().map((f) => identity(join(cacheDir(), f)))).toEqual(before);
  });

  it('concurrent first imports all answer, and leave one whole file and no temporary one', async () => {
    const runs = Array.from({ length: 6 }, () =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ['-e', importScript(ENTRY)], { env: { ...process.env, CLAUDE_PS_BACKEND: '', XDG_CACHE_HOME: xdg } });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', () => resolve(out));
      }),
    );
    for (const out of await Promise.all(runs)) expect(JSON.parse(out)).toEqual(expected);
    const file = theFile();
    const was = identity(file);
    expect(importOnce()).toEqual(expected);
    expect(identity(file)).toBe(was);
  });
});

describe.skipIf(!built)('the library entry', () => {
  it('loads the core as a plain module where stacks are mapped (--enable-source-maps, or turned on before the import): lib/ lines in a stack', () => {
    for (const [args, before] of [
      [['--enable-source-maps'], ''],
      [[], 'process.setSourceMapsEnabled(true);'],
    ] as const) {
      const ran = spawnSync(
        process.execPath,
        [
          ...args,
          '-e',
          [
            "const Module = require('node:module');",
            before,
            `import(${JSON.stringify(ENTRY)}).then((lib) => {`,
            '  let stack = ""; try { lib.liveRecords(42); } catch (e) { stack = e.stack; }',
            "  process.stdout.write(JSON.stringify({ module: Object.keys(Module._cache).some((k) => k.endsWith('index.cjs')), mapped: /lib\\/registry\\/[\\w/-]+\\.ts:\\d+/.test(stack) }));",
            '});',
          ].join('\n'),
        ],
        { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: xdg } },
      );
      expect(ran.stderr).toBe('');
      expect(JSON.parse(ran.stdout)).toEqual({ module: true, mapped: true });
    }
    expect(cacheFiles()).toEqual([]);
  });

  it('never runs a core of another build: a stale index.cjs beside the entry is refused with what to do', () => {
    const root = mkdtempSync(join(work, 'pkg-'));
    for (const entry of ['package.json', 'binding.gyp']) cpSync(join(ROOT, entry), join(root, entry));
    cpSync(join(ROOT, 'dist'), join(root, 'dist'), { recursive: true });
    const core = join(root, 'dist/index.cjs');
    writeFileSync(core, readFileSync(core, 'utf8').replace(/^\/\* claude-ps core [0-9a-f]+ \*\//, '/* claude-ps core 0000000000000000 */'));
    const result = importOnce({}, { entry: join(root, 'dist/index.js') }) as { error: string };
    expect(result.error).toBe(`claude-ps: ${core} is from another build than file://${join(root, 'dist/index.js')}: reinstall claude-ps`);
    rmSync(core);
    const missing = importOnce({}, { entry: join(root, 'dist/index.js') }) as { error: string };
    expect(missing.error).toMatch(/^claude-ps: its core, index\.cjs, did not load from beside .*ENOENT.*ship index\.cjs and extras\.cjs beside the bundle\)$/);
  });

  it('leaves the core to Node\'s loader under a policy manifest, which then checks its integrity', () => {
    const policy = join(work, `policy-${Date.now()}.json`);
    const integrity = (path: string) => `sha384-${spawnSync('openssl', ['dgst', '-sha384', '-binary', path]).stdout.toString('base64')}`;
    const run = (core: string) => {
      const resources = {
        [`file://${ENTRY}`]: { integrity: integrity(ENTRY), dependencies: true },
        [`file://${join(ROOT, 'dist/index.cjs')}`]: { integrity: core, dependencies: true },
      };
      writeFileSync(policy, JSON.stringify({ scopes: { 'file:': { integrity: true, dependencies: true } }, resources }));
      return spawnSync(process.execPath, ['--experimental-policy', policy, '--no-warnings', '-e', importScript(ENTRY)], {
        encoding: 'utf8',
        env: { ...process.env, CLAUDE_PS_BACKEND: '', XDG_CACHE_HOME: xdg },
      });
    };
    const refused = run('sha384-AAAA');
    expect(JSON.parse(refused.stdout)).toEqual({ error: expect.stringMatching(/index\.cjs.* does not match the expected integrity/) });
    expect(cacheFiles()).toEqual([]);
    const allowed = run(integrity(join(ROOT, 'dist/index.cjs')));
    expect(allowed.stderr).toBe('');
    expect(JSON.parse(allowed.stdout)).toEqual(expected);
  });

  it('runs as a script even where a global `module` has the global object for exports (a REPL that set it)', () => {
    expect(importOnce({}, { before: 'globalThis.module = { exports: globalThis }; globalThis.exports = globalThis;' })).toEqual(expected);
  });

  it('says which Node it needs where process.getBuiltinModule is missing (before Node 20.16)', () => {
    const result = importOnce({}, { before: 'delete process.getBuiltinModule;' }) as { error: string };
    expect(result.error).toMatch(/^claude-ps: the ES module entry needs Node 20\.16 or later .* require\('claude-ps'\)$/);
  });

  it('gives the answers of the CommonJS build, cached or not', () => {
    mkdirSync(join(xdg, 'claude-ps'), { mode: 0o700 });
    expect(importOnce({ NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual(expected);
    expect(importOnce()).toEqual(expected);
    expect(importOnce()).toEqual(expected);
  });
});
