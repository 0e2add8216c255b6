/**
 * notify writing to a reader that stops reading: its stdout a full pipe, or (--via osc) a terminal
 * that does not drain. The watcher must go on (the next notification is sent), SIGTERM must end it
 * promptly, and what waited goes out once the reader drains. Before the fix, a blocking write parked
 * the main thread: no later notification, no signal handler.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cliEnv, removeCopy, startCli } from '../cli/run-cli.js';
import { endAll, until } from '../helpers/processes.js';
import { makeRegistry } from '../helpers/registry-fixture.js';
import { startSession } from '../top/helpers.js';
import { stubNotifySend } from './stub.js';

let cli: string;
beforeAll(async () => {
  cli = await builtCli();
});
afterAll(async () => {
  await endAll();
  if (cli) removeCopy(cli);
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const exited = (child: ChildProcess, ms: number) =>
  new Promise<number | null | undefined>((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => resolve(undefined), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });

describe('notify and a stdout pipe nobody reads', () => {
  it('goes on notifying, ends on SIGTERM, and the kept lines go out when the pipe drains', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cps-notify-pipe-'));
    const reg = makeRegistry();
    const stub = stubNotifySend();
    const fifo = join(dir, 'out');
    spawnSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const filler = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    // notify's stdout: a blocking description of the same pipe, as a shell's `|` gives.
    const stdout = openSync(fifo, constants.O_WRONLY);
    let child: ChildProcess | undefined;
    try {
      const chunk = Buffer.alloc(4096, 'x');
      for (;;) {
        try {
          writeSync(filler, chunk);
        } catch {
          break; // EAGAIN: the pipe is full
        }
      }
      const a = startSession(reg, { name: 'first', status: 'busy' });
      const b = startSession(reg, { name: 'second', status: 'busy' });
      child = startCli(cli, ['notify', '--config-dir', reg.configDir, '--json', '--rate-limit', '100', '--per-session', '100'], {
        env: cliEnv({ PATH: `${stub.bin}:${process.env.PATH}`, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' }),
        stdio: ['ignore', stdout, 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      await until(() => stderr.includes('notifying via'), 'notify to start');
      a.update({ status: 'waiting', waitingFor: 'permission prompt' });
      await until(() => stub.calls().length === 1, 'the first notification');
      await pause(300);
      b.update({ status: 'waiting', waitingFor: 'permission prompt' });
      // The old code never got here: the first line's write to the full pipe held the main thread.
      await until(() => stub.calls().length === 2, 'the second notification, the pipe still full', 10_000);
      // The reader drains: the two lines kept meanwhile arrive, whole.
      let text = '';
      const buf = Buffer.alloc(65536);
      const deadline = Date.now() + 10_000;
      while (!(text.match(/"via":"notify-send"/g)?.length === 2) && Date.now() < deadline) {
        try {
          const n = readSync(reader, buf);
          text += buf.subarray(0, n).toString('latin1').replace(/x/g, '');
        } catch {
          await pause(20);
        }
      }
      const lines = text.split('\n').filter((l) => l.startsWith('{'));
      expect(lines).toHaveLength(2);
      expect(lines.map((l) => JSON.parse(l).events[0].pid)).toEqual([a.pid, b.pid]);
      child.kill('SIGTERM');
      expect(await exited(child, 5000)).toBe(0);
    } finally {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      for (const fd of [reader, filler, stdout]) closeSync(fd);
      stub.remove();
      reg.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ends on SIGTERM while its stdout pipe stays full', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cps-notify-pipe-'));
    const reg = makeRegistry();
    const stub = stubNotifySend();
    const fifo = join(dir, 'out');
    spawnSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const filler = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const stdout = openSync(fifo, constants.O_WRONLY);
    let child: ChildProcess | undefined;
    try {
      for (;;) {
        try {
          writeSync(filler, Buffer.alloc(4096, 'x'));
        } catch {
          break;
        }
      }
      const a = startSession(reg, { name: 'only', status: 'busy' });
      child = startCli(cli, ['notify', '--config-dir', reg.configDir, '--json'], {
        env: cliEnv({ PATH: `${stub.bin}:${process.env.PATH}`, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' }),
        stdio: ['ignore', stdout, 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      await until(() => stderr.includes('notifying via'), 'notify to start');
      a.update({ status: 'waiting', waitingFor: 'permission prompt' });
      await until(() => stub.calls().length === 1, 'the notification');
      await pause(200);
      child.kill('SIGTERM');
      // It waits up to 0.5 s for the pipe, then ends: the line is lost, not the process.
      expect(await exited(child, 8000)).toBe(0);
    } finally {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      for (const fd of [reader, filler, stdout]) closeSync(fd);
      stub.remove();
      reg.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const hasPython = spawnSync('python3', ['-c', 'import pty']).status === 0;

describe.skipIf(!hasPython)('notify --via osc and a terminal that does not drain', () => {
  it('drops the notification that finds the terminal behind, says so, and ends on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cps-notify-osc-'));
    const reg = makeRegistry();
    const log = join(dir, 'notify.log');
    let pty: ChildProcess | undefined;
    let notifyPid: number | undefined;
    try {
      const a = startSession(reg, { name: 'first', status: 'busy' });
      const b = startSession(reg, { name: 'second', status: 'busy' });
      // In the pty: a writer that fills the terminal's buffer, then notify, its stdout and stderr a file.
      const script =
        `head -c 400000 /dev/zero | tr '\\0' x >/dev/tty & ` +
        `exec ${process.execPath} ${cli} notify --via osc --config-dir ${reg.configDir} --rate-limit 100 --per-session 100 >${log} 2>&1`;
      pty = spawn('python3', [join(__dirname, '../top/stalled-pty.py'), '80x24', 'sh', '-c', script], {
        env: cliEnv({ CPS_PTY_LOG: join(dir, 'screen.log'), TERM: 'xterm-256color' }),
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let text = '';
      pty.stdout!.on('data', (d: Buffer) => (text += d.toString()));
      pty.stdin!.write('stall\n');
      await until(() => /^pid \d+$/m.test(text), 'the pty');
      notifyPid = Number(/^pid (\d+)$/m.exec(text)![1]);
      const logText = () => {
        try {
          return readFileSync(log, 'utf8');
        } catch {
          return '';
        }
      };
      await until(() => logText().includes('notifying via osc'), 'notify to start', 15_000);
      await pause(500);
      a.update({ status: 'waiting', waitingFor: 'permission prompt' });
      await until(() => logText().includes('first needs you'), 'the first notification', 10_000);
      await pause(300);
      b.update({ status: 'waiting', waitingFor: 'permission prompt' });
      await until(() => logText().includes('second needs you'), 'the second, the terminal still full', 10_000);
      expect(logText()).toContain('the terminal is not reading; one notification dropped');
      pty.stdin!.write('signal 15\n');
      await until(() => /^exit /m.test(text), 'notify to end', 10_000);
      expect(/^exit (-?\d+)/m.exec(text)![1]).toBe('0');
    } finally {
      pty?.stdin?.end();
      if (notifyPid) {
        try {
          process.kill(notifyPid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      if (pty && pty.exitCode === null) pty.kill('SIGKILL');
      reg.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
