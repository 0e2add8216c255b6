/**
 * The executable's V8 code cache on a Node without a compile cache of its own (Node 20; lib/cli/launch.ts,
 * docs/architecture.md "Start-up"): one file per package version, Node, architecture and flags in
 * `$XDG_CACHE_HOME/claude-ps/`, written once, atomically, by a run that found none it could use; never
 * into the package; anything wrong with it (corrupt, foreign, stale, a FIFO, a symlink, a folder that
 * cannot be written) only means a run without it. "Accepted" is observable without timing anything: a
 * run whose cache V8 rejected writes a fresh file, so a file left as it was (same inode, same mtime) was used.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cacheFolder, cacheKeys, fileIdentity } from '../helpers/cache-folder.js';
import { fileTree } from '../helpers/file-tree.js';
import { hasSetpriv, isRoot } from '../helpers/processes.js';
import { builtCli, cliEnv, removeCopy, runCli } from './run-cli.js';

const hasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const version = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')).version as string;

let cli = '';
let work = '';
let xdg = '';
const folder = cacheFolder(() => xdg);
const cacheDir = folder.dir;
const cacheFiles = folder.files;
const theFile = folder.only;
const identity = fileIdentity;
const env = (extra: NodeJS.ProcessEnv = {}) => cliEnv({ XDG_CACHE_HOME: xdg, ...extra });
/** `count` on an empty config dir, checked: the answer never depends on the cache. */
const count = (extra: NodeJS.ProcessEnv = {}) => {
  const ran = runCli(cli, ['count', '--config-dir', join(work, 'no-config')], { env: env(extra) });
  expect(ran).toMatchObject({ status: 0, stdout: '0\n', stderr: '' });
};

beforeAll(async () => {
  cli = await builtCli();
  work = mkdtempSync(join(tmpdir(), 'cps-code-cache-'));
});
afterAll(() => {
  removeCopy(cli);
  if (work) rmSync(work, { recursive: true, force: true });
});
beforeEach(() => {
  xdg = mkdtempSync(join(work, 'xdg-'));
});

describe.skipIf(hasCompileCache)('the CLI code cache (Node without module.enableCompileCache)', () => {
  it('is written once, beside nothing of the package, mode 0600 in a 0700 folder, and used thereafter', () => {
    const pkg = fileTree(join(cli, '..'));
    count();
    const file = theFile();
    // count runs from its own bundle (dist/cli-count.cjs), so its file is that bundle's.
    expect(file).toMatch(new RegExp(`/cli-count-${version.replaceAll('.', '\\.')}-node${process.versions.node}-${process.arch}-[0-9a-f]+\\.v8cache$`));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
    const first = identity(file);
    for (let i = 0; i < 3; i++) count();
    expect(identity(file)).toBe(first);
    expect(fileTree(join(cli, '..'))).toEqual(pkg);
  });

  it('is made again once by the first run of each command it does not hold, and only by a real, short run of it', async () => {
    const keysOf = cacheKeys;
    // Data made by `--version` holds none of summary's code: a statusline's every render would compile it.
    const summary = () => expect(runCli(cli, ['summary', '--config-dir', join(work, 'no-config')], { env: env() })).toMatchObject({ status: 0, stdout: 'no sessions\n' });
    expect(runCli(cli, ['--version'], { env: env() }).stdout).toBe(`${version}\n`);
    const file = theFile();
    expect(file).toMatch(/\/cli-main-[^/]*\.v8cache$/);
    expect(keysOf(file)).toEqual([]);
    const versionOnly = statSync(file).size;
    summary();
    expect(keysOf(file)).toEqual(['summary']);
    expect(statSync(file).size).toBeGreaterThan(versionOnly); // summary's compiled functions joined the data
    const withSummary = identity(file);
    summary();
    expect(runCli(cli, ['--version'], { env: env() }).stdout).toBe(`${version}\n`);
    expect(identity(file)).toBe(withSummary); // held: used, never made again
    // count has a bundle, and so a file, of its own: the whole CLI's is left as it was.
    count();
    expect(cacheFiles()).toHaveLength(2);
    const countFile = join(cacheDir(), cacheFiles().find((f) => f.startsWith('cli-count-'))!);
    expect(keysOf(countFile)).toEqual(['count']);
    expect(identity(file)).toBe(withSummary);
    // Help, a usage error or a mistyped command runs no command: nothing is marked held.
    expect(runCli(cli, ['summary', '--help'], { env: env() }).status).toBe(0);
    expect(runCli(cli, ['summary', '--no-such-flag'], { env: env() }).status).toBe(2);
    expect(runCli(cli, ['nosuchcommand'], { env: env() }).status).toBe(2);
    expect(identity(file)).toBe(withSummary);
    // A statusline install is not a render: its own key, so the renders get theirs too. statusline
    // has a bundle and a file of its own too.
    const setup = runCli(cli, ['statusline', '--uninstall', '--config-dir', join(work, 'no-config')], { env: env() });
    expect(setup.status === 0 || setup.status === 1).toBe(true);
    const statuslineFile = join(cacheDir(), cacheFiles().find((f) => f.startsWith('cli-statusline-'))!);
    expect(keysOf(statuslineFile)).toEqual(['statusline:setup']);
    expect(runCli(cli, ['statusline', '--config-dir', join(work, 'no-config')], { env: env(), input: '{}' }).status).toBe(0);
    expect(keysOf(statuslineFile)).toEqual(['statusline:setup', 'statusline']);
    expect(identity(file)).toBe(withSummary);
    // The whole CLI's file learns a command it runs: \`list\`.
    expect(runCli(cli, ['list', '--config-dir', join(work, 'no-config')], { env: env() }).status).toBe(0);
    expect(keysOf(file)).toEqual(['summary', 'list']);
    // A long run (a watcher) may have let V8 drop bytecode it had not run lately: it never rewrites.
    const held = identity(file);
    const config = mkdtempSync(join(work, 'watched-'));
    mkdirSync(join(config, 'sessions'));
    const watcher = spawn(process.execPath, [cli, 'watch', '--config-dir', config], { env: env(), stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 6000));
    watcher.kill('SIGINT'); // our own child, by its handle
    await new Promise((r) => watcher.once('exit', r));
    expect(identity(file)).toBe(held);
    expect(keysOf(file)).toEqual(['summary', 'list']);
  }, 90_000);

  it('is replaced when corrupt, truncated, of another bundle or foreign to V8, and the answer stays right', () => {
    count();
    const file = theFile();
    const good = readFileSync(file);
    const head = good.subarray(0, good.indexOf(10) + 1);
    const bad = [
      Buffer.from('garbage'),
      Buffer.alloc(0),
      Buffer.concat([head, Buffer.from('not V8 data at all')]),
      Buffer.concat([head, good.subarray(head.length, head.length + 100)]), // truncated
      Buffer.concat([head, Buffer.alloc(good.length - head.length, 0xff)]),
      Buffer.concat([Buffer.from('1 2\n'), good.subarray(head.length)]), // another bundle's
      // A block zeroed under an intact first line (a crash before the data reached the disk): a
      // release V8 does not check its data, and deserializing it crashed every later run.
      Buffer.concat([head, good.subarray(head.length, head.length + 8192), Buffer.alloc(4096), good.subarray(head.length + 8192 + 4096)]),
    ];
    for (const content of bad) {
      writeFileSync(file, content, { mode: 0o600 });
      count();
      const fresh = identity(file);
      expect(readFileSync(file).equals(content)).toBe(false);
      count();
      expect(identity(file)).toBe(fresh); // the fresh one is used
    }
  }, 90_000);

  it('is rewritten for a rebuilt bundle (another size or mtime)', () => {
    count();
    const before = identity(theFile());
    const bundle = join(cli, '..', 'cli-count.cjs');
    const later = new Date(Date.now() + 5_000);
    utimesSync(bundle, later, later);
    count();
    expect(identity(theFile())).not.toBe(before);
    const after = identity(theFile());
    count();
    expect(identity(theFile())).toBe(after);
  });

  it('is not used for a bundle rewritten with the same size and mtime (cp -p, tar, rsync -a): V8 checks only the length', () => {
    const bundle = join(cli, '..', 'cli-main.cjs');
    const original = readFileSync(bundle);
    const summary = () => runCli(cli, ['summary', '--config-dir', join(work, 'no-config')], { env: env() });
    const released = 1_700_000_000; // whole seconds: utimes restores them exactly
    try {
      utimesSync(bundle, released, released);
      expect(summary()).toMatchObject({ status: 0, stdout: 'no sessions\n' }); // cached with summary's code in it
      const patched = original.toString('latin1').replaceAll('no sessions', 'NO SESSIONS');
      expect(patched.length).toBe(original.length);
      writeFileSync(bundle, patched, 'latin1');
      utimesSync(bundle, released, released);
      expect(statSync(bundle)).toMatchObject({ size: original.length, mtimeMs: released * 1000 });
      expect(summary()).toMatchObject({ status: 0, stdout: 'NO SESSIONS\n' });
    } finally {
      writeFileSync(bundle, original);
    }
  });

  it('is never followed through a symlink or read from a FIFO (no hang), and a run still answers', () => {
    count();
    const file = theFile();
    const target = join(work, 'elsewhere');
    writeFileSync(target, readFileSync(file));
    const targetBefore = identity(target);
    rmSync(file);
    symlinkSync(target, file);
    count();
    // The link was replaced by a file of ours; what it pointed at is untouched.
    expect(lstatSync(file).isFile()).toBe(true);
    expect(identity(target)).toBe(targetBefore);
    rmSync(file);
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    count();
    expect(lstatSync(file).isFile()).toBe(true);
  });

  it('is ignored when another user may write it', () => {
    count();
    const file = theFile();
    chmodSync(file, 0o666);
    count();
    expect(statSync(file).mode & 0o777).toBe(0o600); // replaced by one only we may write
  });

  it('is skipped, silently, where there is no cache folder to be had', () => {
    const blocked = join(work, 'a-file');
    writeFileSync(blocked, '');
    count({ XDG_CACHE_HOME: join(blocked, 'sub') }); // under a file
    count({ XDG_CACHE_HOME: join(work, 'missing', 'deeper') }); // the parent is not there: nothing is made
    expect(existsSync(join(work, 'missing'))).toBe(false);
    writeFileSync(cacheDir(), 'a file where the folder goes');
    count();
    expect(readFileSync(cacheDir(), 'utf8')).toBe('a file where the folder goes');
    count({ XDG_CACHE_HOME: 'relative/path', HOME: join(work, 'no-home') });
    count({ XDG_CACHE_HOME: '', HOME: '' });
    expect(existsSync('relative')).toBe(false);
  });

  it('falls back to ~/.cache, and makes ~/.cache only in a home of its own', () => {
    const home = mkdtempSync(join(work, 'home-'));
    count({ XDG_CACHE_HOME: '', HOME: home });
    expect(readdirSync(join(home, '.cache', 'claude-ps'))).toHaveLength(1);
  });

  it('NODE_DISABLE_COMPILE_CACHE turns it off', () => {
    count({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(existsSync(cacheDir())).toBe(false);
  });

  it('other flags get their own file (no rewriting back and forth)', () => {
    count();
    count({ NODE_OPTIONS: '--max-old-space-size=300' });
    expect(cacheFiles()).toHaveLength(2);
    const files = cacheFiles().map((f) => identity(join(cacheDir(), f)));
    count();
    count({ NODE_OPTIONS: '--max-old-space-size=300' });
    expect(cacheFiles().map((f) => identity(join(cacheDir(), f)))).toEqual(files);
  });

  it('concurrent first runs all answer, and leave one whole file and no temporary one', async () => {
    const runs = Array.from({ length: 8 }, () => {
      const child = spawn(process.execPath, [cli, 'count', '--config-dir', join(work, 'no-config')], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      return new Promise<{ code: number | null; out: string }>((r) => child.on('close', (code) => r({ code, out })));
    });
    for (const result of await Promise.all(runs)) expect(result).toEqual({ code: 0, out: '0\n' });
    const file = theFile(); // exactly one, no .tmp
    const written = identity(file);
    count();
    expect(identity(file)).toBe(written);
  }, 90_000);

  it('removes the temporary file a run killed mid-write left, once it is a minute old', () => {
    mkdirSync(cacheDir(), { mode: 0o700 });
    const stale = join(cacheDir(), 'cli-0.0.0-x.v8cache.123.abc.tmp');
    const fresh = join(cacheDir(), 'cli-0.0.0-x.v8cache.456.def.tmp');
    writeFileSync(stale, 'half');
    writeFileSync(fresh, 'being written');
    const old = new Date(Date.now() - 120_000);
    utimesSync(stale, old, old);
    count();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });

  it.skipIf(!isRoot || !hasSetpriv)('as another user: a read-only package, a cache folder it cannot write, a cache file of root\'s', () => {
    // Root's cache in a folder nobody may read; nobody runs the same package with that XDG_CACHE_HOME.
    count();
    const rootsFile = identity(theFile());
    const ro = mkdtempSync(join(work, 'ro-'));
    for (const f of readdirSync(join(cli, '..'))) copyFileSync(join(cli, '..', f), join(ro, f));
    chmodSync(ro, 0o555);
    chmodSync(work, 0o755);
    chmodSync(xdg, 0o755);
    const pkg = fileTree(ro);
    const asNobody = (extra: NodeJS.ProcessEnv) =>
      spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, join(ro, 'cli.cjs'), 'count', '--config-dir', join(work, 'no-config')], {
        encoding: 'utf8',
        env: env(extra),
      });
    try {
      for (const extra of [{}, { XDG_CACHE_HOME: join(xdg, 'claude-ps') }, { XDG_CACHE_HOME: '', HOME: xdg }]) {
        expect(asNobody(extra)).toMatchObject({ status: 0, stdout: '0\n', stderr: '' });
      }
      expect(fileTree(ro)).toEqual(pkg);
      expect(identity(theFile())).toBe(rootsFile);
      expect(readdirSync(xdg)).toEqual(['claude-ps']); // root's HOME-style folder: nobody made no .cache in it
    } finally {
      chmodSync(ro, 0o755);
      chmodSync(work, 0o700);
    }
  });
});
