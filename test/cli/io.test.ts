/**
 * How the built CLI behaves as part of a shell: colour only on a terminal and never with NO_COLOR,
 * no crash when its reader goes away (EPIPE), and `watch` as a stream of NDJSON events.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { endAll, procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { builtCli, cliEnv, removeCopy, startCli } from './run-cli.js';

let cli: string;
let reg: RegistryFixture;
let big: RegistryFixture;
let live: Spawned;

const hasScript = spawnSync('script', ['--version']).status === 0;
const hasBash = spawnSync('bash', ['--version']).status === 0;
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

beforeAll(async () => {
  cli = await builtCli();
  live = spawnSleep();
  reg = makeRegistry('cps-cli-io-');
  reg.write(live.pid, sessionRecord(live.pid, { procStart: procStartTicks(live.pid), status: 'waiting' }));
  reg.write(4_999_999, sessionRecord(4_999_999)); // above any pid_max: gone
  // Far more output than a pipe buffer holds (64 KiB), so the writer meets a closed pipe.
  big = makeRegistry('cps-cli-big-');
  for (let i = 0; i < 2500; i++) big.write(5_000_000 + i, sessionRecord(5_000_000 + i, { name: `dead-${i}` }));
});

afterAll(async () => {
  await live?.end();
  await endAll();
  reg?.remove();
  big?.remove();
  if (cli) removeCopy(cli);
});

describe.skipIf(!hasScript)('colour', () => {
  // `script` gives the CLI a real terminal as stdout.
  const onTty = (env: NodeJS.ProcessEnv) =>
    spawnSync('script', ['-qec', `${quote(process.execPath)} ${quote(cli)} list --all --config-dir ${quote(reg.configDir)}`, '/dev/null'], {
      encoding: 'utf8',
      env,
      timeout: 20_000,
    });

  it('colours verdicts on a terminal', () => {
    const r = onTty(cliEnv({ TERM: 'xterm' }));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('\x1b[32malive');
    expect(r.stdout).toContain('\x1b[31mgone');
  });

  it('never with NO_COLOR, even on a terminal', () => {
    const r = onTty(cliEnv({ TERM: 'xterm', NO_COLOR: '1' }));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/alive/);
    expect(r.stdout).not.toContain('\x1b[');
  });
});

describe.skipIf(!hasBash)('a reader that goes away (EPIPE)', () => {
  it('`list --all | head -1` ends quietly with exit 0', () => {
    const script = `${quote(process.execPath)} ${quote(cli)} list --all --config-dir ${quote(big.configDir)} | head -1; echo "status=\${PIPESTATUS[0]}"`;
    const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: cliEnv(), timeout: 30_000 });
    expect(r.stdout).toMatch(/^PID\s+KIND\s+STATUS\s+NAME\s+CWD\s+VERDICT\nstatus=0\n$/);
    expect(r.stderr).toBe('');
  });

  it('a reader that closed before anything was written: no crash, no stack trace', async () => {
    const child = startCli(cli, ['list', '--all', '--json', '--config-dir', big.configDir]);
    child.stdout!.destroy();
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    const status = await new Promise((r) => child.once('exit', (c) => r(c)));
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });
});

describe('a stderr that cannot be written', () => {
  // A candidate whose PID exists but that cannot be read (a FIFO) makes count and list note it on stderr.
  let noted: RegistryFixture;
  beforeAll(() => {
    noted = makeRegistry('cps-cli-noted-');
    noted.write(live.pid, sessionRecord(live.pid, { procStart: procStartTicks(live.pid) }));
    expect(spawnSync('mkfifo', [noted.path(`${process.pid}.json`)]).status).toBe(0);
  });
  afterAll(() => noted?.remove());

  it.each([
    ['count', '--json'],
    ['count', '-i'],
    ['list', '--json'],
  ])('costs neither the answer nor the exit code: %s %s', (...args) => {
    const run = (stderr: 'pipe' | number) =>
      spawnSync(process.execPath, [cli, ...args, '--config-dir', noted.configDir], { encoding: 'utf8', env: cliEnv(), stdio: ['ignore', 'pipe', stderr], timeout: 20_000 });
    const seen = run('pipe');
    expect(seen.status).toBe(0);
    expect(seen.stderr).toMatch(/could not be read/);
    for (const target of ['/dev/full', 'closed'] as const) {
      const fd = target === 'closed' ? 'ignore' : openSync(target, 'w');
      try {
        const blind = target === 'closed' ? spawnSync('bash', ['-c', `exec 2>&-; exec ${quote(process.execPath)} ${[cli, ...args, '--config-dir', noted.configDir].map(quote).join(' ')}`], { encoding: 'utf8', env: cliEnv(), timeout: 20_000 }) : run(fd as number);
        expect({ target, status: blind.status, stdout: blind.stdout }).toEqual({ target, status: 0, stdout: seen.stdout });
      } finally {
        if (typeof fd === 'number') closeSync(fd);
      }
    }
  });
});

describe('watch', () => {
  it('prints NDJSON events, keeps --snapshot up to date, and ends on SIGTERM with exit 0', async () => {
    const snap = `${reg.configDir}/snap.json`;
    const child = startCli(cli, ['watch', '--interval', '100', '--snapshot', snap, '--config-dir', reg.configDir]);
    const lines: Array<{ type: string; time: number; fields: string[]; record: { pid: number; verdict: string } }> = [];
    let buffer = '';
    let waiter: (() => void) | undefined;
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        lines.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
      waiter?.();
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    const until = async (what: string, check: () => boolean) => {
      const deadline = Date.now() + 15_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(lines)} ${stderr}`);
        await new Promise<void>((r) => {
          waiter = r;
          setTimeout(r, 100);
        });
      }
    };
    const has = (type: string, pid: number) => () => lines.some((l) => l.type === type && l.record.pid === pid);

    await until('the initial records', () => has('added', live.pid)() && has('added', 4_999_999)());
    expect(Object.keys(lines[0]!).sort()).toEqual(['fields', 'record', 'time', 'type']);
    expect(lines.find((l) => l.record.pid === 4_999_999)!.record.verdict).toBe('gone');

    const other = spawnSleep();
    try {
      reg.write(other.pid, sessionRecord(other.pid, { procStart: procStartTicks(other.pid) }));
      await until('added for a new record', has('added', other.pid));
      await other.end();
      await until('died when its process ended', has('died', other.pid));
      // With kernel exit notification `died` comes before the process is reaped: a zombie, or gone.
      expect(['gone', 'zombie']).toContain(lines.find((l) => l.type === 'died')!.record.verdict);
      unlinkSync(reg.path(`${other.pid}.json`));
      await until('removed for a deleted file', has('removed', other.pid));
    } finally {
      await other.end();
    }
    await until('the snapshot file', () => existsSync(snap));
    expect(JSON.parse(readFileSync(snap, 'utf8')).version).toBe(1);

    const exited = new Promise((r) => child.once('exit', (c) => r(c)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
    rmSync(snap, { force: true });
  });

  it('ends quietly when its reader has gone and the next event is written', async () => {
    const child = startCli(cli, ['watch', '--interval', '100', '--config-dir', reg.configDir]);
    await new Promise<void>((r) => child.stdout!.once('data', () => r()));
    child.stdout!.destroy();
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    const exited = new Promise((r) => child.once('exit', (c) => r(c)));
    const other = spawnSleep();
    try {
      reg.write(other.pid, sessionRecord(other.pid, { procStart: procStartTicks(other.pid) }));
      expect(await exited).toBe(0);
      expect(stderr).toBe('');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await other.end();
      rmSync(reg.path(`${other.pid}.json`), { force: true });
    }
  });
});
