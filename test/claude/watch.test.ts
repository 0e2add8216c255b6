/**
 * `claude-ps watch` on real sessions: registration shows as `added`, real transitions as `changed`
 * with the new status and waitingFor (busy → idle; busy → waiting "permission prompt" → busy → idle),
 * a SIGKILL as `died`, a clean exit (SIGTERM) as `removed`, and a stopped session as nothing at all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import { cliEnv } from '../cli/run-cli.js';
import type { Session } from './lab.js';
import { describeWithClaude, useHarness } from './suite.js';

interface WatchEvent {
  type: 'added' | 'changed' | 'died' | 'removed';
  fields: string[];
  record: { pid: number; status: string | null; waitingFor: string | null; verdict: string; live: boolean };
}

describeWithClaude('watch reports what real sessions do', () => {
  const h = useHarness();
  let watcher: ChildProcess | undefined;
  const events: WatchEvent[] = [];
  let stderr = '';
  const s = {} as Record<'busy' | 'waiting' | 'killed' | 'exits' | 'stopped', Session>;
  afterAll(() => {
    if (watcher && watcher.exitCode === null && watcher.signalCode === null) watcher.kill('SIGKILL');
  });

  /** Resolves with the first event from index `from` on that matches. */
  async function next(match: (e: WatchEvent) => boolean, what: string, from = 0, timeoutMs = 60_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = events.findIndex((e, j) => j >= from && match(e));
      if (i >= 0) return i;
      if (Date.now() > deadline) throw new Error(`no ${what} event; got ${JSON.stringify(events.slice(from))}; stderr ${stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  const of = (pid: number) => events.filter((e) => e.record.pid === pid);

  it('starts watching before any session exists, and sees each one registered as added', async () => {
    watcher = spawn(process.execPath, [h.cli, 'watch', '--interval', '100', '--config-dir', h.lab.configDir], {
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffer = '';
    watcher.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) events.push(JSON.parse(line) as WatchEvent);
    });
    watcher.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The folder does not exist yet: the first session creates it.
    await new Promise((r) => setTimeout(r, 500));
    const sessions = await h.lab.start('busy', 'waiting', 'killed', 'exits', 'stopped');
    await Promise.all(sessions.map((x) => x.waitFor('idle')));
    for (const x of sessions) {
      s[x.name as keyof typeof s] = x;
      await next((e) => e.type === 'added' && e.record.pid === x.pid, `added ${x.name}`);
      await next((e) => e.record.pid === x.pid && e.record.status === 'idle', `idle ${x.name}`);
    }
    // The first write has no status; whether watch saw it or only the idle one, it is added once.
    for (const x of sessions) expect(of(x.pid).filter((e) => e.type === 'added')).toHaveLength(1);
  });

  it('busy, then idle again: changed events with the new status', async () => {
    const busy = s.busy;
    const from = events.length;
    await busy.send('SLOW 2000 work for two seconds');
    const b = await next((e) => e.type === 'changed' && e.record.pid === busy.pid && e.record.status === 'busy', 'busy', from);
    expect(events[b]!.fields).toContain('status');
    const i = await next((e) => e.type === 'changed' && e.record.pid === busy.pid && e.record.status === 'idle', 'idle', b);
    expect(events[i]!.fields).toContain('status');
    expect(events[i]!.record.live).toBe(true);
  });

  it('waiting for a permission prompt, approved, idle: waitingFor comes and goes', async () => {
    const waiting = s.waiting;
    const from = events.length;
    await waiting.send('TOOL');
    const w = await next((e) => e.record.pid === waiting.pid && e.record.status === 'waiting', 'waiting', from);
    expect(events[w]).toMatchObject({ type: 'changed', record: { waitingFor: 'permission prompt' } });
    expect(events[w]!.fields).toEqual(expect.arrayContaining(['status', 'waitingFor']));
    await waiting.waitFor('waiting');
    await waiting.approve();
    const i = await next((e) => e.record.pid === waiting.pid && e.record.status === 'idle', 'idle after approval', w);
    expect(events[i]!.record.waitingFor).toBeNull();
    // On the way, the waitingFor key was deleted: some event after the prompt names it as changed.
    expect(events.slice(w + 1, i + 1).some((e) => e.fields.includes('waitingFor'))).toBe(true);
  });

  it('SIGSTOP: no event (the record stays and the process is still the session)', async () => {
    const stopped = s.stopped;
    const from = events.length;
    stopped.signal('SIGSTOP');
    await new Promise((r) => setTimeout(r, 1_000)); // ten probe intervals
    expect(events.slice(from).filter((e) => e.record.pid === stopped.pid)).toEqual([]);
    stopped.signal('SIGCONT');
  });

  it('SIGKILL: died (the file stays behind, provably dead)', async () => {
    const killed = s.killed;
    const from = events.length;
    killed.signal('SIGKILL');
    const d = await next((e) => e.record.pid === killed.pid && e.type !== 'changed', 'died', from);
    // Zombie until the pane's shell reaps it, then gone: both are provably dead.
    expect(events[d]).toMatchObject({ type: 'died', record: { verdict: expect.stringMatching(/^(zombie|gone)$/), live: false } });
    expect(killed.record()).not.toBeNull();
  });

  it('a clean exit (SIGTERM): removed', async () => {
    const exits = s.exits;
    const from = events.length;
    exits.signal('SIGTERM');
    const r = await next((e) => e.record.pid === exits.pid && e.type !== 'changed', 'removed', from);
    expect(events[r]!.type).toBe('removed');
    expect(exits.record()).toBeNull();
  });

  it('ends on SIGTERM with exit 0', async () => {
    const exited = new Promise((r) => watcher!.once('exit', (code) => r(code)));
    watcher!.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  });

});
