/**
 * claude-ps against the official reader, `claude agents --json`, on one registry of real sessions:
 * idle, busy, waiting for a permission prompt, stopped (SIGSTOP), a `bg` kind, a `claude -p`, a
 * `claude --bg` job, two SIGKILL phantoms and a phantom whose PID a process of ours now holds. Both
 * must list the same live set with the same fields, and every command that counts must agree with it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';
import { expect, it } from 'vitest';
import { cliEnv } from '../cli/run-cli.js';
import { hasSetpriv, isRoot } from '../helpers/processes.js';
import type { AgentEntry, Session } from './lab.js';
import { bothViews, describeWithClaude, listedAll, median, recycledPhantom, useHarness, type Seen } from './suite.js';

describeWithClaude('the live set equals claude agents --json', () => {
  const h = useHarness();
  const pids: Record<string, number> = {};
  const of: Record<string, Session> = {};
  let official: AgentEntry[] = [];

  it('sets up idle, busy, waiting, stopped, bg, -p, --bg job and phantom sessions', async () => {
    const sessions = await h.lab.start('idle', 'busy', 'waiting', 'stopped', { name: 'bg', kind: 'bg' }, 'killed1', 'killed2');
    for (const s of sessions) [pids[s.name], of[s.name]] = [s.pid, s];
    const [idle, busy, waiting, stopped, , killed1, killed2] = sessions;
    await Promise.all(sessions.map((s) => s.waitFor('idle')));
    await busy!.send('SLOW 600000 stay busy');
    await waiting!.send('TOOL');
    await busy!.waitFor('busy');
    expect(await waiting!.waitFor('waiting')).toMatchObject({ waitingFor: 'permission prompt' });
    stopped!.signal('SIGSTOP');
    killed1!.signal('SIGKILL');
    killed2!.signal('SIGKILL');
    const print = await h.lab.print('SLOW 600000 a print session');
    [pids.print, of.print] = [print.pid, print];
    const job = await h.lab.background('SLOW 600000 a background job');
    [pids.job, of.job] = [job.pid, job];
    await job.waitFor('busy');
    expect(job.record()).toMatchObject({ kind: 'bg', jobId: expect.stringMatching(/^[0-9a-f]{8}$/) });
    expect(print.record()).toMatchObject({ kind: 'interactive', entrypoint: 'sdk-cli' });
    pids.recycled = recycledPhantom(h, killed2!.file).pid;
    // SIGKILL leaves the record behind; a stopped process keeps its record.
    await new Promise((r) => setTimeout(r, 300));
    expect(killed1!.record()).not.toBeNull();
    expect(killed2!.record()).not.toBeNull();
    expect(idle!.record()).toMatchObject({ status: 'idle' });
    expect(stopped!.record()).not.toBeNull();
  });

  it('lists the same PIDs with the same sessionId, cwd, kind, status, waitingFor, name and startedAt', () => {
    const views = bothViews(h);
    official = h.lab.agents();
    expect(views.ours).toEqual(views.theirs);
    const live = ['idle', 'busy', 'waiting', 'stopped', 'bg', 'print', 'job'].map((n) => pids[n]!).sort((a, b) => a - b);
    expect(views.ours.map((s) => s.pid)).toEqual(live);
    const seen = (name: string) => views.ours.find((s) => s.pid === pids[name]) as Seen;
    expect(seen('busy').status).toBe('busy');
    expect(seen('waiting')).toMatchObject({ status: 'waiting', waitingFor: 'permission prompt' });
    expect(seen('bg').kind).toBe('background');
    expect(seen('print').status).toBe('busy');
    expect(seen('job')).toMatchObject({ kind: 'background', status: 'busy' });
    // The official reader names the job by its jobId; claude-ps keeps jobId in raw.
    expect(official.find((a) => a.pid === pids.job)?.id).toBe(of.job!.record()?.jobId);
  });

  it('hides the phantoms, and says why with --all: gone (or zombie) for SIGKILL, recycled for a reused PID', () => {
    const all = new Map(listedAll(h).map((r) => [r.pid, r]));
    // A SIGKILLed session is a zombie until its parent (the pane's shell) reaps it, then gone.
    const dead = { verdict: expect.stringMatching(/^(zombie|gone)$/), live: false };
    expect(all.get(pids.killed1!)).toMatchObject(dead);
    expect(all.get(pids.killed2!)).toMatchObject(dead);
    expect(all.get(pids.recycled!)).toMatchObject({ verdict: 'recycled', live: false });
    expect(all.get(pids.stopped!)).toMatchObject({ verdict: 'alive', live: true });
    const listed = new Set(official.map((a) => a.pid));
    for (const phantom of ['killed1', 'killed2', 'recycled']) expect(listed.has(pids[phantom]!)).toBe(false);
  });

  it('count, count --interactive, summary and has-interactive agree with that list', () => {
    const agents = h.lab.agents();
    const interactive = agents.filter((a) => a.kind === 'interactive');
    const byStatus = (s: string) => agents.filter((a) => a.status === s).length;
    expect(h.cps('count').stdout.trim()).toBe(String(agents.length));
    expect(JSON.parse(h.cps('count', '--json').stdout)).toEqual({ count: agents.length, interactive: false, skipped: [] });
    expect(h.cps('count', '--interactive').stdout.trim()).toBe(String(interactive.length));
    const summary = JSON.parse(h.cps('summary', '--json').stdout);
    expect(summary).toMatchObject({
      live: agents.length,
      interactive: interactive.length,
      background: agents.length - interactive.length,
      busy: byStatus('busy'),
      waiting: byStatus('waiting'),
      idle: byStatus('idle'),
      dead: 3,
    });
    expect(h.cps('summary').stdout.trim()).toBe(summary.text);
    const guard = h.cps('has-interactive', '--json');
    expect(guard.status).toBe(0);
    expect(JSON.parse(guard.stdout).pids.sort()).toEqual(interactive.map((a) => a.pid).sort());
  });

  it('measures claude-ps count beside claude agents --json on this registry (medians of 7)', () => {
    const count: number[] = [];
    const agents: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = process.hrtime.bigint();
      const r = h.cps('count');
      count.push(Number(process.hrtime.bigint() - t0) / 1e6);
      expect(r.status).toBe(0);
      agents.push(h.lab.timeAgents());
    }
    const files = listedAll(h).length;
    const c = median(count);
    const a = median(agents);
    console.log(
      `speed: ${files} records (${official.length} live) — claude-ps count ${c.toFixed(0)} ms, ` +
        `claude agents --json ${a.toFixed(0)} ms (wall, medians of 7, interleaved): ${(a / c).toFixed(1)}x`,
    );
    expect(count).toHaveLength(7);
  });

  it('a user who cannot list the real sessions folder (Claude Code makes it 0700): cannot tell, never yes or no', () => {
    expect(statSync(h.lab.sessionsDir).mode & 0o777).toBe(0o700);
    if (!isRoot || !hasSetpriv) return; // needs another user to be
    chmodSync(h.lab.root, 0o755); // only sessions/ itself is closed to nobody, as in a real profile
    chmodSync(h.lab.configDir, 0o755);
    const asNobody = (...args: string[]) =>
      spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, h.cli, ...args, '--config-dir', h.lab.configDir], {
        encoding: 'utf8',
        env: cliEnv(),
        timeout: 20_000,
      });
    const guard = asNobody('has-interactive', '--verbose');
    // It cannot see the humans that are there, and says so rather than "no".
    expect(guard.status, guard.stderr).toBe(3);
    expect(asNobody('count').status).not.toBe(0); // an unlistable folder is an error, not 0 sessions
  });

  it('says no once only background sessions and phantoms are left, as the official reader does', async () => {
    // A clean exit removes the record: SIGTERM the interactive ones (the stopped one first gets SIGCONT).
    for (const name of ['idle', 'busy', 'waiting', 'stopped', 'print']) {
      of[name]!.signal('SIGCONT');
      of[name]!.signal('SIGTERM');
    }
    const deadline = Date.now() + 30_000;
    while (h.lab.agents().some((a) => a.kind === 'interactive') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const agents = h.lab.agents();
    expect(agents.map((a) => [a.pid, a.kind]).sort()).toEqual([[pids.bg, 'background'], [pids.job, 'background']].sort());
    expect(h.cps('has-interactive').status).toBe(1);
    expect(h.cps('count', '--interactive').stdout.trim()).toBe('0');
    expect(h.cps('count').stdout.trim()).toBe('2');
    expect(JSON.parse(h.cps('summary', '--json').stdout)).toMatchObject({ live: 2, background: 2, dead: 3 });
  });
});
