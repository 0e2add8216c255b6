/**
 * End to end with real Claude Code: `top` lists three real sessions with their states (one waiting
 * for a permission prompt, one busy, one idle), and `notify`, started before the prompt, sends exactly
 * one notification for it (none for the sessions' state at its start, none when it is approved).
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import { cliEnv, startCli } from '../cli/run-cli.js';
import { until } from '../helpers/processes.js';
import { stubNotifySend, type Stub } from '../notify/stub.js';
import { openTmux, type Tmux } from '../top/tmux.js';
import { describeWithClaude, useHarness } from './suite.js';

describeWithClaude('top and notify on real Claude Code', () => {
  const h = useHarness();
  let notifier: ChildProcess | undefined;
  let stub: Stub | undefined;
  let tmux: Tmux | undefined;

  afterAll(async () => {
    if (notifier && notifier.exitCode === null && notifier.signalCode === null) {
      const exited = new Promise((r) => notifier!.once('exit', r));
      notifier.kill('SIGTERM');
      await exited;
    }
    tmux?.close();
    stub?.remove();
  });

  it('top shows each session in its state, and a real permission prompt gives one notification', async () => {
    const cfg = h.lab.configDir;
    const [busy1, wait1, idle1] = await h.lab.start('busy1', 'wait1', 'idle1');
    await Promise.all([busy1, wait1, idle1].map((s) => s!.waitFor('idle', 90_000)));

    stub = stubNotifySend();
    notifier = startCli(h.cli, ['notify', '--via', 'notify-send', '--json', '--rate-limit', '100', '--config-dir', cfg], {
      env: cliEnv({ PATH: `${stub.bin}:${process.env.PATH}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let notes = '';
    notifier.stderr!.on('data', (d: Buffer) => (notes += d.toString()));
    await until(() => notes.includes('watching 3 live sessions'), 'notify to start', 60_000);

    await busy1!.send('SLOW 150000 hi');
    await wait1!.send('TOOL');
    await busy1!.waitFor('busy', 90_000);
    const waiting = (await wait1!.waitFor('waiting', 90_000))!;
    expect(waiting.waitingFor).toBe('permission prompt');

    tmux = openTmux(120, 30);
    await tmux.start(`${process.execPath} ${h.cli} top --config-dir ${cfg}`);
    const row = (lines: string[], pid: number) => lines.find((l) => new RegExp(` ${pid} `).test(l)) ?? '';
    const lines = await tmux.until((l) => (l[0] ?? '').includes('3 sessions: 1 waiting, 1 busy, 1 idle'), 'the three sessions in top', 30_000);
    expect(row(lines, wait1!.pid)).toMatch(/waiting \d+s +permission prompt +interactive/);
    expect(row(lines, busy1!.pid)).toMatch(/busy \d+s/);
    expect(row(lines, idle1!.pid)).toMatch(/idle \d+[sm]/);
    // Waiting first.
    expect(lines.indexOf(row(lines, wait1!.pid))).toBe(2);

    await until(() => stub!.calls().length >= 1, 'the notification', 60_000);
    await wait1!.approve();
    await new Promise((r) => setTimeout(r, 2000));
    const calls = stub.calls();
    expect(calls).toHaveLength(1);
    expect(calls[0]![2]).toMatch(/^Claude Code: .+ needs you$/);
    expect(calls[0]![3]).toContain(`permission prompt`);
    expect(calls[0]![3]).toContain(`pid ${wait1!.pid}`);
    tmux.type('q');
    await tmux.until((l) => l.includes('EXIT=0'), 'top to end');
  }, 300_000);
});
