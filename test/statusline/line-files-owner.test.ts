/**
 * `watch --statusline-dir DIR` holds DIR by identity, not by a check made once (issue 20, point 7):
 * a folder above DIR that others may write (0777 without the sticky bit) or that another user owns
 * is refused at the start, and before each write the whole chain and DIR's device and inode are
 * checked again. Otherwise another user could move DIR away after the start and put a folder of
 * their own there, and the watcher would go on writing into it (and the snippet print their files).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupsAfterEach, textOf, until } from './helpers.js';
import { builtCli, removeCopy, startCli } from '../cli/run-cli.js';
import { endAll, hasSetpriv, isRoot, procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';

const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
let cli: string;
let a: Spawned;
let b: Spawned;
const cleanups = cleanupsAfterEach();

beforeAll(async () => {
  cli = await builtCli();
  [a, b] = [spawnSleep(), spawnSleep()];
});
afterAll(async () => {
  for (const s of [a, b]) await s?.end();
  await endAll();
  if (cli) removeCopy(cli);
});

/** A registry with a and b live, and `parent/lines` as DIR (parent made 0755, in a fresh 0700 folder). */
function setup(): { reg: RegistryFixture; parent: string; dir: string; status(s: Spawned, status: string): void } {
  const reg = makeRegistry('cps-owner-reg-');
  const top = mkdtempSync(join(tmpdir(), 'cps-owner-'));
  const parent = join(top, 'parent');
  mkdirSync(parent, { mode: 0o755 });
  cleanups.push(() => {
    reg.remove();
    rmSync(top, { recursive: true, force: true });
  });
  const status = (s: Spawned, value: string) => reg.write(s.pid, sessionRecord(s.pid, { sessionId: `s-${s.pid}`, procStart: procStartTicks(s.pid), status: value, name: `n${s.pid}` }));
  status(a, 'idle');
  status(b, 'busy');
  return { reg, parent, dir: join(parent, 'lines'), status };
}

function watch(reg: RegistryFixture, dir: string): { child: ChildProcess; stderr(): string } {
  const child = startCli(cli, ['watch', '--interval', '100', '--config-dir', reg.configDir, '--statusline-dir', dir]);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.resume();
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  });
  return { child, stderr: () => stderr };
}

const start = (reg: RegistryFixture, dir: string) =>
  spawnSync(process.execPath, [cli, 'watch', '--config-dir', reg.configDir, '--statusline-dir', dir], { encoding: 'utf8', timeout: 10_000 });

describe('the --statusline-dir folder and the folders above it', () => {
  it('refuses a parent others may write without the sticky bit, and creates nothing in it', () => {
    const { reg, parent, dir } = setup();
    chmodSync(parent, 0o777);
    const r = start(reg, dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`--statusline-dir: ${parent}, above ${dir}, may be written by others (mode 777, not sticky)`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('accepts a sticky parent others may write (as /tmp is)', async () => {
    const { reg, parent, dir } = setup();
    chmodSync(parent, 0o1777);
    const w = watch(reg, dir);
    await until(() => textOf(join(dir, String(a.pid))) !== '', 'the line file');
    expect(w.stderr()).toBe('');
  });

  it.skipIf(!isRoot)('refuses a parent another user owns', () => {
    const { reg, parent, dir } = setup();
    chownSync(parent, 65534, 65534);
    const r = start(reg, dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${parent}, above ${dir}, belongs to another user (uid 65534)`);
  });

  it('stops writing into DIR once it is another folder, says so once, and leaves that folder alone', async () => {
    const { reg, parent, dir, status } = setup();
    const w = watch(reg, dir);
    await until(() => textOf(join(dir, String(a.pid))) !== '', 'the line file');
    renameSync(dir, join(parent, 'moved'));
    mkdirSync(dir, { mode: 0o700 });
    for (const s of ['waiting', 'busy', 'idle']) {
      status(b, s);
      await new Promise((r) => setTimeout(r, 300));
    }
    await until(() => w.stderr() !== '', 'the report');
    expect(w.stderr()).toBe(`claude-ps watch: --statusline-dir: ${dir} is no longer the folder it was at the start (it was moved or replaced); nothing more is written there\n`);
    expect(readdirSync(dir)).toEqual([]);
    // It ends cleanly, and removes nothing from the folder now at DIR.
    w.child.kill('SIGTERM');
    await new Promise((r) => w.child.once('exit', r));
    expect(w.child.exitCode).toBe(0);
  });

  it.skipIf(!isRoot || !hasSetpriv)('as root, writes nothing into the folder another user swapped in after the start', async () => {
    const { reg, parent, dir, status } = setup();
    const w = watch(reg, dir);
    await until(() => textOf(join(dir, String(a.pid))) !== '', 'the line file');
    // The parent becomes writable by all (a mistaken chmod); nobody moves DIR away and plants its own.
    chmodSync(join(parent, '..'), 0o755);
    chmodSync(parent, 0o777);
    const planted = join(dir, String(a.pid));
    const swap = `mv '${dir}' '${parent}/stolen' && mkdir -m 755 '${dir}' && printf '\\033]0;planted\\007' > '${planted}'`;
    const r = spawnSync('setpriv', [...NOBODY, '/bin/sh', '-c', swap], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const before = lstatSync(planted);
    expect(before.uid).toBe(65534);
    for (const s of ['waiting', 'busy', 'idle']) {
      status(a, s);
      status(b, s);
      await new Promise((r) => setTimeout(r, 300));
    }
    await until(() => w.stderr() !== '', 'the report');
    // One line per problem seen: the parent opened to all, then (once swapped) DIR not ours.
    const lines = w.stderr().trimEnd().split('\n');
    expect(new Set(lines).size).toBe(lines.length);
    for (const line of lines) {
      expect([
        `claude-ps watch: --statusline-dir: ${parent}, above ${dir}, may be written by others (mode 777, not sticky), who could replace ${dir}; chmod go-w it`,
        `claude-ps watch: --statusline-dir: ${dir} is not this user's; give it a folder of your own`,
        // The watcher's lifetime check (lifetime.ts) then ends it: its folder is not the one it took.
        `claude-ps watch: ending: ${dir} was replaced`,
      ]).toContain(line);
    }
    // Nothing of ours is in nobody's folder, and its file is as it planted it.
    expect(readdirSync(dir)).toEqual([String(a.pid)]);
    expect(lstatSync(planted).ino).toBe(before.ino);
    expect(readFileSync(planted, 'utf8')).toBe('\x1b]0;planted\x07');
    if (w.child.exitCode === null && w.child.signalCode === null) {
      const exited = new Promise((r) => w.child.once('exit', r));
      w.child.kill('SIGTERM');
      await exited;
    }
    expect(existsSync(planted)).toBe(true);
  });
});
