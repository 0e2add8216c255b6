/**
 * `claude-ps notify` with a stub notify-send that records its arguments, on real processes and
 * records: exactly the transitions expected, nothing for the state at start (unless --initial),
 * nothing for its own session, the rate limits, and text that cannot reach a terminal raw.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cliEnv, removeCopy, runCli, startCli } from '../cli/run-cli.js';
import { endAll, spawnSleep, until } from '../helpers/processes.js';
import { liveRecord } from '../top/helpers.js';
import { hasTmux, openTmux } from '../top/tmux.js';
import { makeRegistry, type RegistryFixture } from '../helpers/registry-fixture.js';
import { startSession } from '../top/helpers.js';
import { stubNotifySend, type Stub } from './stub.js';

let cli: string;
beforeAll(async () => {
  cli = await builtCli();
});
afterAll(async () => {
  await endAll();
  if (cli) removeCopy(cli);
});

let reg: RegistryFixture;
let stub: Stub;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  child = undefined;
  stub?.remove();
  reg?.remove();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startNotify(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ stdout: () => string; stderr: () => string }> {
  stub = stubNotifySend();
  child = startCli(cli, ['notify', '--config-dir', reg.configDir, '--json', ...args], {
    env: cliEnv({ PATH: `${stub.bin}:${process.env.PATH}`, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent', ...env }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await until(() => stderr.includes('notifying via'), 'notify to start');
  return { stdout: () => stdout, stderr: () => stderr };
}

const titles = () => stub.calls().map((args) => args[2]);

describe('notify', () => {
  it('announces a session that starts waiting, once; nothing for the state at start', async () => {
    reg = makeRegistry();
    const early = startSession(reg, { name: 'already-waiting', status: 'waiting', waitingFor: 'permission prompt' });
    const later = startSession(reg, { name: 'later', status: 'busy' });
    const run = await startNotify(['--rate-limit', '300', '--per-session', '60000']);
    expect(run.stderr()).toContain('notifying via notify-send');
    await pause(400);
    expect(stub.calls()).toEqual([]);
    later.update({ status: 'waiting', waitingFor: 'permission prompt' });
    await until(() => stub.calls().length === 1, 'one notification');
    expect(stub.calls()[0]).toEqual(['--app-name=claude-ps', '--', 'Claude Code: later needs you', `permission prompt · /home/user/project · pid ${later.pid}`]);
    // Still waiting (a rewrite of the same state), and the one waiting from the start: nothing.
    later.update({ status: 'waiting', waitingFor: 'permission prompt', updatedAt: Date.now() });
    early.update({ status: 'waiting', waitingFor: 'permission prompt', updatedAt: Date.now() });
    await pause(600);
    expect(stub.calls()).toHaveLength(1);
    // The early one leaves waiting and comes back: that is a transition.
    early.update({ status: 'busy' });
    await pause(150);
    early.update({ status: 'waiting', waitingFor: 'permission prompt' });
    await until(() => stub.calls().length === 2, 'a second notification');
    expect(titles()).toEqual(['Claude Code: later needs you', 'Claude Code: already-waiting needs you']);
    await until(() => run.stdout().trim().split('\n').length === 2, 'two lines on stdout');
    const lines = run.stdout().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.events.map((e: { pid: number }) => e.pid))).toEqual([[later.pid], [early.pid]]);
  });

  it('with --initial announces the sessions waiting at start', async () => {
    reg = makeRegistry();
    startSession(reg, { name: 'waiting-at-start', status: 'waiting' });
    startSession(reg, { name: 'idle-at-start', status: 'idle' });
    await startNotify(['--initial']);
    await until(() => stub.calls().length === 1, 'the initial notification');
    await pause(300);
    expect(titles()).toEqual(['Claude Code: waiting-at-start needs you']);
  });

  it('merges what arrives inside the rate limit into one notification, and drops a flapping session', async () => {
    reg = makeRegistry();
    const sessions = ['one', 'two', 'three'].map((name) => startSession(reg, { name, status: 'busy' }));
    await startNotify(['--rate-limit', '800', '--per-session', '60000']);
    for (const s of sessions) s.update({ status: 'waiting' });
    await until(() => stub.calls().length === 2, 'two notifications', 5000);
    const [first, second] = titles();
    expect(first).toMatch(/^Claude Code: (one|two|three) needs you$/);
    // The others, held back by the limit, leave together.
    expect(second).toBe('Claude Code: 2 sessions need you');
    expect(stub.calls()[1]![3]).toMatch(/^(one|two|three), (one|two|three)$/);
    // One of them flaps (waiting → busy → waiting) inside its per-session window: no new notification.
    sessions[0]!.update({ status: 'busy' });
    await pause(100);
    sessions[0]!.update({ status: 'waiting' });
    await pause(1200);
    expect(stub.calls()).toHaveLength(2);
  });

  it('never announces its own session (CLAUDE_PID), and --on adds done and died', async () => {
    reg = makeRegistry();
    const own = startSession(reg, { name: 'mine', status: 'busy' });
    const other = startSession(reg, { name: 'theirs', status: 'busy' });
    await startNotify(['--on', 'waiting,done,died', '--rate-limit', '10', '--per-session', '10'], { CLAUDE_PID: String(own.pid) });
    own.update({ status: 'waiting' });
    other.update({ status: 'idle' });
    await until(() => stub.calls().length === 1, 'the done notification');
    expect(titles()).toEqual(['Claude Code: theirs finished its turn']);
    await other.proc.end();
    await until(() => stub.calls().length === 2, 'the ended notification', 5000);
    await pause(300);
    expect(titles()).toEqual(['Claude Code: theirs finished its turn', 'Claude Code: theirs ended']);
  });

  it('keeps statusline line files too (--statusline-dir): one process serves both', async () => {
    reg = makeRegistry();
    const a = startSession(reg, { name: 'alpha', status: 'busy' });
    const b = startSession(reg, { name: 'beta', status: 'busy' });
    const lines = join(reg.configDir, 'lines');
    await startNotify(['--statusline-dir', lines, '--rate-limit', '10']);
    a.update({ status: 'waiting', waitingFor: 'permission prompt' });
    await until(() => stub.calls().length === 1, 'the notification');
    // b's line names the waiting alpha, as `watch --statusline-dir` would write it.
    await until(() => existsSync(join(lines, String(b.pid))) && readFileSync(join(lines, String(b.pid)), 'utf8').includes('alpha (permission prompt)'), "beta's line file");
    expect(titles()).toEqual(['Claude Code: alpha needs you']);
  });

  it('passes hostile text as sanitised, bounded arguments', async () => {
    reg = makeRegistry();
    const s = startSession(reg, { name: 'x', status: 'busy' });
    await startNotify([]);
    s.update({ name: '\x1b]0;pwned\x07\u202eevil\n' + 'N'.repeat(10_000), status: 'waiting', waitingFor: 'a\x1b[2Jb', cwd: '/tmp/\x07x' });
    await until(() => stub.calls().length === 1, 'the notification');
    const [, , title, body] = stub.calls()[0]!;
    expect(title!.length).toBeLessThanOrEqual(80);
    expect(body!.length).toBeLessThanOrEqual(160);
    for (const text of [title!, body!]) expect(text).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
    expect(title).toMatch(/^Claude Code: \]0,?;?pwned evil N+…/);
  });
});

describe('notify-send and markup', () => {
  it('hands notify-send a body whose markup is text: no link, image or tag from a record', async () => {
    reg = makeRegistry();
    const s = startSession(reg, { name: 'markup', status: 'busy', cwd: '/tmp/R&D' });
    const run = await startNotify([]);
    s.update({ status: 'waiting', waitingFor: '<a href="https://x.invalid/">ok</a><img src="/x">' });
    await until(() => stub.calls().length === 1, 'the notification');
    const [, , title, body] = stub.calls()[0]!;
    expect(title).toBe('Claude Code: markup needs you');
    expect(body).toBe(`&lt;a href="https://x.invalid/"&gt;ok&lt;/a&gt;&lt;img src="/x"&gt; · /tmp/R&amp;D · pid ${s.pid}`);
    // What notify prints is the plain text.
    await until(() => run.stdout().includes('\n'), 'the line on stdout');
    expect(JSON.parse(run.stdout().split('\n')[0]!).body).toContain('<a href=');
  });
});

describe('notify when the notifier cannot start', () => {
  it('reports each failure and notifies again once the notifier is back (a failed start is no child still running)', async () => {
    reg = makeRegistry();
    const sessions = [0, 1, 2, 3, 4, 5].map((i) => startSession(reg, { name: `flaky-${i}`, status: 'busy' }));
    const run = await startNotify(['--rate-limit', '50', '--per-session', '60000']);
    const program = join(stub.bin, 'notify-send');
    renameSync(program, `${program}.away`); // spawn now fails with ENOENT, as a removed package would
    const failures = () => run.stderr().split('\n').filter((l) => l.includes('notify-send: spawn')).length;
    for (let i = 0; i < 5; i++) {
      sessions[i]!.update({ status: 'waiting' });
      await until(() => failures() === i + 1, `failure ${i + 1} reported`);
      await pause(80); // past --rate-limit: each is its own notification
    }
    renameSync(`${program}.away`, program);
    sessions[5]!.update({ status: 'waiting' });
    await until(() => stub.calls().length === 1, 'the notification after the notifier came back');
    expect(titles()).toEqual(['Claude Code: flaky-5 needs you']);
    expect(run.stderr()).not.toMatch(/still running/);
  });
});

describe.skipIf(!hasTmux || process.platform !== 'linux')('notify in a terminal', () => {
  it('never announces a session on its own controlling terminal', async () => {
    reg = makeRegistry();
    stub = stubNotifySend();
    const tmux = openTmux(100, 20, { PATH: `${stub.bin}:${process.env.PATH}` });
    try {
      const pidFile = join(tmux.dir, 'same-tty');
      // A sleep started from the pane's shell shares notify's terminal: it stands for "this terminal's session".
      const notifyPid = await tmux.start(
        `sh -c "sleep 300 & echo \\$! > ${pidFile}; exec ${process.execPath} ${cli} notify --via notify-send --rate-limit 10 --config-dir ${reg.configDir}"`,
      );
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 'the same-terminal sleep');
      const samePid = Number(readFileSync(pidFile, 'utf8'));
      const elsewhere = spawnSleep();
      const same = reg.write(samePid, liveRecord(samePid, { name: 'same-terminal', status: 'busy' }));
      reg.write(elsewhere.pid, liveRecord(elsewhere.pid, { name: 'elsewhere', status: 'busy' }));
      await tmux.until((l) => l.some((x) => x.includes('notifying via notify-send')), 'notify to start');
      reg.write(samePid, { ...JSON.parse(readFileSync(same, 'utf8')), status: 'waiting' });
      reg.write(elsewhere.pid, liveRecord(elsewhere.pid, { name: 'elsewhere', status: 'waiting' }));
      await until(() => stub.calls().length === 1, 'one notification');
      await pause(500);
      expect(titles()).toEqual(['Claude Code: elsewhere needs you']);
      process.kill(notifyPid, 'SIGTERM');
      process.kill(samePid, 'SIGKILL'); // both ours, started through the test's own pane
    } finally {
      tmux.close();
    }
  });
});

describe.skipIf(!hasTmux || process.platform !== 'linux')('notify in a terminal, when sessions end', () => {
  it('never announces the death of a session that was on its own terminal', async () => {
    reg = makeRegistry();
    stub = stubNotifySend();
    const tmux = openTmux(100, 20, { PATH: `${stub.bin}:${process.env.PATH}` });
    try {
      const pidFile = join(tmux.dir, 'same-tty');
      const notifyPid = await tmux.start(
        `sh -c "sleep 300 & echo \\$! > ${pidFile}; exec ${process.execPath} ${cli} notify --via notify-send --on waiting,died --rate-limit 10 --config-dir ${reg.configDir}"`,
      );
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 'the same-terminal sleep');
      const samePid = Number(readFileSync(pidFile, 'utf8'));
      const elsewhere = spawnSleep();
      reg.write(samePid, liveRecord(samePid, { name: 'same-terminal', status: 'busy' }));
      reg.write(elsewhere.pid, liveRecord(elsewhere.pid, { name: 'elsewhere', status: 'busy' }));
      await tmux.until((l) => l.some((x) => x.includes('notifying via notify-send')), 'notify to start');
      process.kill(samePid, 'SIGKILL'); // ours, started through the test's own pane
      await pause(300);
      await elsewhere.end();
      await until(() => stub.calls().length >= 1, 'the notification of the other death');
      await pause(1500); // past a re-probe: the same-terminal death has been seen too
      expect(titles()).toEqual(['Claude Code: elsewhere ended']);
      process.kill(notifyPid, 'SIGTERM');
    } finally {
      tmux.close();
    }
  });
});

describe('notify, the choice of notifier', () => {
  it('--via notify-send without it on PATH is a clear error (exit 1)', () => {
    reg = makeRegistry();
    const r = runCli(cli, ['notify', '--via', 'notify-send', '--config-dir', reg.configDir], { env: cliEnv({ PATH: '/nonexistent' }) });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/notify-send is not on PATH/);
  });

  it('--via osc without a terminal is a clear error', () => {
    reg = makeRegistry();
    // setsid: a new session, so no controlling terminal even when the tests run in one.
    const r = spawnSync('setsid', ['-w', process.execPath, cli, 'notify', '--via', 'osc', '--config-dir', reg.configDir], {
      env: cliEnv(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no terminal to send OSC notifications to/);
  });

  it('--on with an unknown event is a usage error (exit 2)', () => {
    reg = makeRegistry();
    const r = runCli(cli, ['notify', '--on', 'waiting,exploded', '--config-dir', reg.configDir]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--on takes a comma-separated list of waiting, done, died/);
  });
});
