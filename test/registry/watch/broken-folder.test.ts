/**
 * docs/watch.md "a folder that cannot be listed": a `sessions` that is a symbolic link to a disk that
 * goes away, a dangling link, a file, a FIFO or a socket is what every other reader calls it (cannot
 * list: unknown), never an empty registry. A running watch says so as `error` and keeps its records;
 * a watch started on one throws the readers' own RegistryUnreadableError.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, removeCopy, runCli } from '../../cli/run-cli.js';
import { readRecords, RegistryUnreadableError, REGISTRY_UNREADABLE } from '../../../lib/index.js';
import { spawnSleep } from '../../helpers/processes.js';
import { selectBackendForSuite } from '../../helpers/backends.js';
import { cacheScratch, cleanUpEachTest, collect, tempRegistry, watch } from './helpers.js';

cleanUpEachTest();

function readersError(configDir: string): { reason: string; message: string } {
  try {
    readRecords(configDir, { retryDelayMs: 0 });
  } catch (error) {
    expect(error).toBeInstanceOf(RegistryUnreadableError);
    return { reason: (error as RegistryUnreadableError).reason, message: (error as Error).message };
  }
  throw new Error('readRecords did not throw');
}

async function listening(path: string): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return server;
}

for (const backendName of ['native', 'js'] as const) {
  describe(`watch on a broken sessions/ (${backendName} backend)`, () => {
    selectBackendForSuite(backendName);

    it('a sessions link whose disk goes away: an error, its records kept, no removed; back again: no event', async () => {
      const reg = tempRegistry(false, backendName);
      const disk = join(reg.configDir, 'disk');
      mkdirSync(disk);
      symlinkSync(disk, reg.sessions);
      const a = spawnSleep();
      const b = spawnSleep();
      reg.write(a.pid);
      reg.write(b.pid);
      const w = watch(reg.configDir, { interval: 20, rescanEvery: 1, exitHandles: 0 });
      const events = collect(w);
      const errors: unknown[] = [];
      w.on('error', (e) => errors.push(e));
      await events.next((e) => e.type === 'added', 'the first added');
      await events.next((e) => e.type === 'added', 'the second added');

      renameSync(disk, join(reg.configDir, 'unmounted')); // as an unmount would: the link now dangles
      const deadline = Date.now() + 10_000;
      while (errors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: REGISTRY_UNREADABLE, reason: 'ENOENT', path: reg.sessions });
      w.rescanNow();
      await new Promise((r) => setTimeout(r, 300)); // many rescans: still said once, nothing removed
      expect(errors).toHaveLength(1);
      expect(events.events.map((e) => e.type)).toEqual(['added', 'added']);
      expect(w.records().map((r) => r.pid).sort()).toEqual([a.pid, b.pid].sort());

      renameSync(join(reg.configDir, 'unmounted'), disk);
      w.rescanNow();
      await events.quiet(200);
      expect(events.events.map((e) => e.type)).toEqual(['added', 'added']);
      expect(w.records()).toHaveLength(2);
      await a.end();
      await events.next((e) => e.type === 'died' && e.record.pid === a.pid, 'a died, seen again after the disk came back');
      await b.end();
    });

    it('a folder replaced by a file while watched: an error, records kept', async () => {
      const reg = tempRegistry(true, backendName);
      const a = spawnSleep();
      reg.write(a.pid);
      const w = watch(reg.configDir, { interval: 20, rescanEvery: 1, exitHandles: 0 });
      const events = collect(w);
      const errors: unknown[] = [];
      w.on('error', (e) => errors.push(e));
      await events.next((e) => e.type === 'added', 'added');
      renameSync(reg.sessions, join(reg.configDir, 'elsewhere'));
      writeFileSync(reg.sessions, 'not a folder');
      const deadline = Date.now() + 10_000;
      while (errors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(errors[0]).toMatchObject({ code: REGISTRY_UNREADABLE, reason: 'ENOTDIR' });
      await events.quiet(200);
      expect(events.events.map((e) => e.type)).toEqual(['added']);
      expect(w.records().map((r) => r.pid)).toEqual([a.pid]);
      await a.end();
    });

    it('started on a dangling link, a file, a FIFO or a socket: throws the error the readers give', async () => {
      const kinds: Array<[string, (path: string) => Promise<(() => void) | void>]> = [
        ['a dangling link', async (path) => symlinkSync(join(path, '..', 'no-such-disk'), path)],
        ['a file', async (path) => writeFileSync(path, '{}')],
        ['a FIFO', async (path) => void expect(spawnSync('mkfifo', [path]).status).toBe(0)],
        [
          'a socket',
          async (path) => {
            const server = await listening(path);
            return () => server.close();
          },
        ],
      ];
      for (const [kind, make] of kinds) {
        const reg = tempRegistry(false, backendName);
        const undo = await make(reg.sessions);
        try {
          const expected = readersError(reg.configDir);
          let thrown: unknown;
          try {
            watch(reg.configDir, { interval: 1000 }).close();
          } catch (error) {
            thrown = error;
          }
          expect(thrown, kind).toBeInstanceOf(RegistryUnreadableError);
          expect({ reason: (thrown as RegistryUnreadableError).reason, message: (thrown as Error).message }, kind).toEqual(expected);
        } finally {
          undo?.();
          rmSync(reg.sessions, { force: true });
        }
      }
    });
  });
}

describe('the CLI on a broken sessions/', () => {
  let cli: string;
  beforeAll(async () => {
    cli = await builtCli();
  });
  afterAll(() => removeCopy(cli));

  it('watch (and watch --statusline-dir) exits as list does, with the same one line', () => {
    const reg = tempRegistry(false);
    expect(spawnSync('mkfifo', [reg.sessions]).status).toBe(0);
    const list = runCli(cli, ['list', '--config-dir', reg.configDir]);
    expect({ status: list.status, stdout: list.stdout }).toEqual({ status: 1, stdout: '' });
    expect(list.stderr).toBe(`claude-ps: cannot list ${reg.sessions} (ENOTDIR): the sessions it holds are unknown\n`);
    for (const extra of [[], ['--statusline-dir', join(reg.configDir, 'lines')]]) {
      const watching = runCli(cli, ['watch', '--interval', '1000', ...extra, '--config-dir', reg.configDir]);
      expect({ status: watching.status, stdout: watching.stdout, stderr: watching.stderr }, extra.join(' ')).toEqual({
        status: 1,
        stdout: '',
        stderr: list.stderr,
      });
    }
  });
});

describe('a record file that becomes unreadable (as nobody)', () => {
  const root = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
  it.runIf(root)('keeps its record: an unreadable read is never a removed', async () => {
    const { build } = await import('esbuild');
    const { spawn } = await import('node:child_process');
    const { chmodSync, utimesSync } = await import('node:fs');
    const reg = tempRegistry(true);
    chmodSync(reg.configDir, 0o755);
    chmodSync(reg.sessions, 0o755);
    const live = spawnSleep();
    reg.write(live.pid);
    chmodSync(reg.path(live.pid), 0o644);
    const cacheDir = cacheScratch('cps-unreadable-');
    chmodSync(cacheDir, 0o755);
    try {
      const script = join(cacheDir, 'child.mjs');
      await build({
        stdin: {
          contents: `import { watch } from './lib/registry/watch/watch.ts';
            const w = watch(process.argv[2], { interval: 50, rescanEvery: 1, exitHandles: 0 });
            w.on('error', () => {});
            w.on('change', (e) => console.log(JSON.stringify({ type: e.type, pid: e.record.pid })));
            setTimeout(() => { console.log(JSON.stringify({ records: w.records().length })); w.close(); }, 2500);`,
          resolveDir: process.cwd(),
          loader: 'ts',
        },
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: script,
        external: ['node-gyp-build'],
        logLevel: 'silent',
      });
      chmodSync(script, 0o644);
      const child = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, script, reg.configDir], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, CLAUDE_PS_BACKEND: 'native' },
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const deadline = Date.now() + 10_000;
      while (!out.includes('"added"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      chmodSync(reg.path(live.pid), 0o600); // root's now: nobody cannot open it
      reg.write(live.pid, { status: 'busy' }); // and rewritten, so the watcher must read it again
      utimesSync(reg.path(live.pid), new Date(), new Date(Date.now() + 5000));
      await exited;
      const lines = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toEqual([{ type: 'added', pid: live.pid }, { records: 1 }]);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
      await live.end();
    }
  }, 30_000);
});
