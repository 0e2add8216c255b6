/**
 * `top` on a terminal that stops reading (test/top/stalled-pty.py holds the pty's master and stops
 * reading it on `stall`): the kernel's buffer fills while sessions churn, and still top answers its
 * signals, gives the terminal back once it drains, and repaints the whole screen when it drains.
 * Before the fix, top waited out EAGAIN in a loop on the main thread: no signal handler could run,
 * and SIGTERM left it hung (and the terminal in the alternate screen) until a SIGKILL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cliEnv, removeCopy } from '../cli/run-cli.js';
import { endAll, until } from '../helpers/processes.js';
import { makeRegistry, type RegistryFixture } from '../helpers/registry-fixture.js';
import { startSession, type Session } from './helpers.js';

const hasPython = spawnSync('python3', ['-c', 'import pty']).status === 0;
if (!hasPython) {
  if (process.env.CI === 'true') throw new Error('python3 is missing, and CI=true: the stalled-terminal tests must run');
  console.log('test/top/stalled-terminal: skipped: python3 is not installed');
}

let cli: string;
beforeAll(async () => {
  cli = await builtCli();
});
afterAll(async () => {
  await endAll();
  if (cli) removeCopy(cli);
});

const LEAVE = '\x1b[?1049l';

interface Pty {
  child: ChildProcess;
  topPid: number;
  log: string;
  say(command: string): void;
  read(): string;
  exit: Promise<{ code: number; afterSignalS: number }>;
  end(): void;
}

async function openPty(reg: RegistryFixture, dir: string): Promise<Pty> {
  const log = join(dir, 'screen.log');
  const child = spawn('python3', [join(__dirname, 'stalled-pty.py'), '200x60', process.execPath, cli, 'top', '--config-dir', reg.configDir], {
    env: cliEnv({ CPS_PTY_LOG: log, TERM: 'xterm-256color', NO_COLOR: '1' }),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let text = '';
  child.stdout!.on('data', (b: Buffer) => (text += b.toString()));
  await until(() => /^pid \d+$/m.test(text), 'the pty', 10_000);
  const topPid = Number(/^pid (\d+)$/m.exec(text)![1]);
  const exit = new Promise<{ code: number; afterSignalS: number }>((resolve) => {
    child.stdout!.on('data', () => {
      const m = /^exit (-?\d+) (-?[\d.]+)$/m.exec(text);
      if (m) resolve({ code: Number(m[1]), afterSignalS: Number(m[2]) });
    });
  });
  const read = () => {
    try {
      return readFileSync(log, 'latin1');
    } catch {
      return '';
    }
  };
  return {
    child,
    topPid,
    log,
    say: (command) => void child.stdin!.write(command + '\n'),
    read,
    exit,
    end() {
      // Ours: the pty helper and the top it started, by PID.
      for (const pid of [topPid, child.pid!]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
}

/** Rewrites every session's status, fast, for `ms`: a frame of changed rows every few milliseconds. */
async function churn(sessions: Session[], ms: number): Promise<void> {
  const end = Date.now() + ms;
  let n = 0;
  while (Date.now() < end) {
    for (const s of sessions) s.update({ status: n % 2 ? 'busy' : 'idle', name: `churn-${s.pid}-${n}` });
    n++;
    await new Promise((r) => setTimeout(r, 15));
  }
}

describe.skipIf(!hasPython)('top on a terminal that stops reading', () => {
  let reg: RegistryFixture;
  let sessions: Session[];
  let dir: string;
  beforeAll(() => {
    reg = makeRegistry();
    dir = mkdtempSync(join(tmpdir(), 'cps-stall-'));
    sessions = Array.from({ length: 40 }, (_, i) => startSession(reg, { name: `s${i}`, status: 'idle', cwd: `/w/${'x'.repeat(120)}/${i}` }));
  });
  afterAll(() => {
    reg.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers SIGTERM while the terminal never drains (exit 143 within the restore wait)', async () => {
    const pty = await openPty(reg, dir);
    try {
      await until(() => pty.read().includes('40 sessions'), 'the first screen', 15_000);
      pty.say('stall');
      await churn(sessions, 2500);
      pty.say('signal 15');
      const exit = await Promise.race([pty.exit, new Promise<undefined>((r) => setTimeout(() => r(undefined), 15_000))]);
      // Where it waits, when it hangs: the main thread's wchan (n_tty's wait_woken was the old code's).
      if (!exit) console.log(`top hung in: ${readFileSync(`/proc/${pty.topPid}/wchan`, 'utf8')}`);
      expect(exit, 'top hung on the full terminal').toBeDefined();
      expect(exit!.code).toBe(143);
      // RESTORE_WAIT_MS (1.5 s) and a loaded machine's margin.
      expect(exit!.afterSignalS).toBeLessThan(8);
    } finally {
      pty.end();
    }
  });

  it('repaints the whole screen once the terminal drains, and q then gives the terminal back', async () => {
    const pty = await openPty(reg, dir);
    try {
      await until(() => pty.read().includes('40 sessions'), 'the first screen', 15_000);
      pty.say('stall');
      await churn(sessions, 2500);
      for (const s of sessions) s.update({ status: 'waiting', waitingFor: 'after the stall', name: `final-${s.pid}` });
      const before = pty.read().length;
      pty.say('resume');
      // The last state, drawn in full after the drain (the header with 40 waiting, and the rows).
      await until(() => {
        const after = pty.read().slice(before);
        return after.includes('40 waiting') && after.includes(`final-${sessions[0]!.pid}`);
      }, 'the repaint after the drain', 15_000);
      pty.say('type q');
      const exit = await Promise.race([pty.exit, new Promise<undefined>((r) => setTimeout(() => r(undefined), 15_000))]);
      expect(exit?.code).toBe(0);
      expect(pty.read().lastIndexOf(LEAVE)).toBeGreaterThan(before);
    } finally {
      pty.end();
    }
  });

  it('SIGTERM while stalled, the terminal draining soon after: the restore still reaches it', async () => {
    const pty = await openPty(reg, dir);
    try {
      await until(() => pty.read().includes('40 sessions'), 'the first screen', 15_000);
      pty.say('stall');
      await churn(sessions, 2500);
      const before = pty.read().length;
      pty.say('signal 15');
      await new Promise((r) => setTimeout(r, 300));
      pty.say('resume');
      const exit = await Promise.race([pty.exit, new Promise<undefined>((r) => setTimeout(() => r(undefined), 15_000))]);
      expect(exit?.code).toBe(143);
      const after = pty.read().slice(before);
      expect(after.endsWith(LEAVE) || after.includes(LEAVE)).toBe(true);
    } finally {
      pty.end();
    }
  });
});
