/**
 * The library's `hosts` option on the read functions and watch (lib/hosts/api.ts, watch-api.ts),
 * against real OpenSSH servers on 127.0.0.1 in PID namespaces of their own, and a local registry
 * with a live process of ours: records carry `host` and `measuredAt`, a host that failed is never
 * dropped in silence, and the guard over hosts is "no" only when every host said no.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasLiveInteractive,
  hasLiveInteractiveAsync,
  HOSTS_INCOMPLETE,
  HostsIncompleteError,
  liveInteractiveRecords,
  liveInteractiveRecordsAsync,
  liveRecordsAsync,
  readRecords,
  readRecordsAsync,
  scanRegistry,
  scanRegistryAsync,
  watch,
  HostsWatcher,
  Watcher,
  type HostRecord,
  type HostScan,
  type HostState,
  type HostStateEvent,
  type HostWatchEvent,
} from '../../lib/index.js';
import { procStartTicks, spawnSleep, until, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { makeLab, sshdMissing, startRemoteSession, type Lab, type TestHost } from './sshd.js';

const missing = sshdMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true: the sshd tests cannot run: ${missing}`);

async function rejection(promise: Promise<unknown>): Promise<HostsIncompleteError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HostsIncompleteError) return error;
    throw error;
  }
  throw new Error('resolved, where it had to reject');
}

describe('the hosts option without ssh', () => {
  it('the synchronous functions refuse it, naming the async one', () => {
    const hosts = { hosts: ['local'] } as never;
    expect(() => hasLiveInteractive(undefined, hosts)).toThrow(/hasLiveInteractive\(\).*use hasLiveInteractiveAsync\(\)/);
    expect(() => scanRegistry(undefined, hosts)).toThrow(/use scanRegistryAsync\(\)/);
    expect(() => readRecords(undefined, hosts)).toThrow(TypeError);
    expect(() => liveInteractiveRecords(hosts)).toThrow(/use liveInteractiveRecordsAsync\(\)/);
  });

  it('an empty or bad host list is a TypeError, never a vacuous "no"', async () => {
    await expect(hasLiveInteractiveAsync({ hosts: [] })).rejects.toThrow(TypeError);
    await expect(readRecordsAsync({ hosts: 'local' as never })).rejects.toThrow(/non-empty array/);
    await expect(hasLiveInteractiveAsync({ hosts: ['-oProxyCommand=touch /tmp/x'] })).rejects.toThrow(TypeError);
    await expect(readRecordsAsync({ hosts: ['local'], retryDelayMs: -1 })).rejects.toThrow(/retryDelayMs/);
    expect(() => watch({ hosts: [] })).toThrow(TypeError);
  });

  it('hosts: ["local"] is this machine, with host and measuredAt; a misplaced config dir is "cannot tell"', async () => {
    const reg = makeRegistry();
    const live = spawnSleep();
    try {
      reg.write(live.pid, sessionRecord(live.pid, { procStart: procStartTicks(live.pid), kind: 'bg' }));
      const before = Date.now();
      const records = await readRecordsAsync(reg.configDir, { hosts: ['local'] });
      expect(records.map((r) => [r.pid, r.host, r.verdict])).toEqual([[live.pid, 'local', 'alive']]);
      expect(records[0]!.measuredAt).toBeGreaterThanOrEqual(before);
      expect(await hasLiveInteractiveAsync(reg.configDir, { hosts: ['local'] })).toBe(false);
      // Without hosts: the registry's own functions, as before.
      expect((await readRecordsAsync(reg.configDir)).map((r) => r.pid)).toEqual([live.pid]);
      expect(watch(reg.configDir, { initial: false })).toBeInstanceOf(Watcher);
      // The sessions folder passed as the config dir: locally the guard refuses; over hosts it cannot tell.
      const error = await rejection(hasLiveInteractiveAsync(reg.sessions, { hosts: ['local'] }));
      expect(error.failed).toEqual([expect.objectContaining({ host: 'local', state: 'ok', interactive: undefined, detail: expect.stringMatching(/sessions/) })]);
    } finally {
      await live.end();
      reg.remove();
    }
  });
});

describe('HostsIncompleteError and HostsWatcher without ssh', () => {
  it('a remote\'s hostile text never reaches the message as control or bidi characters', () => {
    const scan = (host: string, state: HostState, detail?: string): HostScan => ({
      host,
      state,
      detail,
      measuredAt: undefined,
      clockSkewS: undefined,
      roundTripMs: 1,
      records: [],
      skipped: [],
      interactive: undefined,
    });
    const hostile = 'line 1: it does not start; stderr: \x1b[2J\x1b]0;owned\x07\u202eevil\u2066\n';
    const error = new HostsIncompleteError([scan('a', 'bad answer', hostile), scan('b', 'ok')], [scan('a', 'bad answer', hostile)], 'q');
    expect(error.message).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e\u2066]/);
    expect(error.message).toMatch(/^q: 1 of 2 hosts gave no complete answer: a: bad answer \(line 1/);
    expect(error.failed[0]!.detail).toBe(hostile); // the data itself is kept, as readHosts gave it
  });

  it('a listener that throws costs no other listener its event and does not stop the watch', async () => {
    const reg = makeRegistry();
    const live = spawnSleep();
    reg.write(live.pid, sessionRecord(live.pid, { procStart: procStartTicks(live.pid) }));
    const w = watch(reg.configDir, { hosts: ['local'], interval: 50 });
    try {
      const errors: unknown[] = [];
      const changes: string[] = [];
      w.on('error', (e) => errors.push(e));
      w.on('added', () => {
        throw new Error('listener bug');
      });
      w.on('change', (e: HostWatchEvent) => changes.push(`${e.type}:${e.host}`));
      await until(() => changes.length >= 1, 'added');
      await live.end();
      await until(() => changes.includes('died:local'), 'died');
      expect(changes).toEqual(['added:local', 'died:local']);
      expect(errors.map((e) => (e as Error).message)).toEqual(['listener bug']);
    } finally {
      w.close();
      await live.end();
      reg.remove();
    }
  });
});

describe.skipIf(missing !== undefined)('the hosts option over ssh', () => {
  let lab: Lab;
  let a: TestHost;
  let b: TestHost;
  let reg: RegistryFixture;
  let local: Spawned;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    lab = await makeLab();
    a = await lab.start('lib-a');
    b = await lab.start('lib-b');
    reg = makeRegistry();
    local = spawnSleep(600);
    reg.write(local.pid, sessionRecord(local.pid, { procStart: procStartTicks(local.pid), kind: 'bg' }));
    env = { ...lab.env, CLAUDE_CONFIG_DIR: reg.configDir };
  });

  afterAll(async () => {
    await local?.end();
    reg?.remove();
    await lab?.close();
  });

  it('records of every host carry host and measuredAt, judged where they were measured', async () => {
    const human = startRemoteSession(a, { name: 'remote-human' });
    const daemon = startRemoteSession(b, { kind: 'bg' });
    try {
      const before = Date.now();
      const records = await readRecordsAsync({ hosts: ['local', 'lib-a', 'lib-b'], env });
      const seen = records.map((r: HostRecord) => [r.host, r.pid, r.verdict, r.interactive]);
      expect(seen).toEqual([
        ['local', local.pid, 'alive', false],
        ['lib-a', human, 'alive', true],
        ['lib-b', daemon, 'alive', false],
      ]);
      for (const r of records) expect(r.measuredAt).toBeGreaterThanOrEqual(before);
      expect((await liveInteractiveRecordsAsync({ hosts: ['local', 'lib-a', 'lib-b'], env })).map((r) => r.host)).toEqual(['lib-a']);
      expect((await liveRecordsAsync(undefined, { hosts: ['lib-b'], env })).map((r) => r.pid)).toEqual([daemon]);
      const scan = await scanRegistryAsync({ hosts: ['lib-a', 'local'], env });
      expect(scan.hosts.map((h) => [h.host, h.state])).toEqual([['lib-a', 'ok'], ['local', 'ok']]);
      expect(scan.records).toHaveLength(2);
      // The guard: a yes from one host, a proven no from all.
      expect(await hasLiveInteractiveAsync({ hosts: ['local', 'lib-a'], env })).toBe(true);
      expect(await hasLiveInteractiveAsync({ hosts: ['local', 'lib-b'], env })).toBe(false);
    } finally {
      a.run(`kill ${human}; rm -f $HOME/.claude/sessions/*.json`);
      b.run(`kill ${daemon}; rm -f $HOME/.claude/sessions/*.json`);
    }
  });

  it('a host that failed rejects the record functions with its state and the partial scans; the guard says yes only on a yes', async () => {
    const human = startRemoteSession(a);
    try {
      const error = await rejection(readRecordsAsync({ hosts: ['lib-b', lab.downAlias, 'local'], env }));
      expect(error.code).toBe(HOSTS_INCOMPLETE);
      expect(error.failed.map((f) => [f.host, f.state])).toEqual([[lab.downAlias, 'unreachable']]);
      expect(error.hosts.map((h) => h.host)).toEqual(['lib-b', lab.downAlias, 'local']);
      expect(error.partialRecords.map((r) => [r.host, r.pid])).toEqual([['local', local.pid]]);
      expect(error.message).toMatch(/1 of 3 hosts gave no complete answer: down: unreachable/);
      await expect(liveRecordsAsync({ hosts: [lab.downAlias], env })).rejects.toBeInstanceOf(HostsIncompleteError);
      // Guard: another host's yes stands while one is down; a no with one down is "cannot tell".
      expect(await hasLiveInteractiveAsync({ hosts: [lab.downAlias, 'lib-a'], env })).toBe(true);
      const unsure = await rejection(hasLiveInteractiveAsync({ hosts: ['lib-b', lab.downAlias], env }));
      expect(unsure.failed.map((f) => f.host)).toEqual([lab.downAlias]);
      // A hang is a timeout, a garbage answer `bad answer`: each named, neither a "no".
      b.mode('garbage');
      try {
        const bad = await rejection(hasLiveInteractiveAsync({ hosts: ['lib-b', 'local'], env }));
        expect(bad.failed.map((f) => [f.host, f.state])).toEqual([['lib-b', 'bad answer']]);
        b.mode('hang');
        const slow = await rejection(scanRegistryAsync({ hosts: ['lib-b'], env, timeoutMs: 1500 }));
        expect(slow.failed.map((f) => f.state)).toEqual(['timeout']);
      } finally {
        b.mode('normal');
      }
      // A remote sessions folder it cannot list: unreadable, never an empty registry.
      const aside = `${b.sessionsDir}.aside`;
      renameSync(b.sessionsDir, aside);
      try {
        writeFileSync(b.sessionsDir, '');
        const hidden = await rejection(hasLiveInteractiveAsync({ hosts: ['lib-b'], env }));
        expect(hidden.failed.map((f) => f.state)).toEqual(['unreadable']);
      } finally {
        rmSync(b.sessionsDir, { force: true });
        renameSync(aside, b.sessionsDir);
      }
    } finally {
      a.run(`kill ${human}; rm -f $HOME/.claude/sessions/*.json`);
    }
  }, 60_000);

  it('watch({ hosts }) emits every host\'s events with host, and a lost connection as a host event', async () => {
    const c = await lab.start('lib-w');
    const w = watch({ hosts: ['local', 'lib-w'], env, interval: 300, timeoutMs: 5000 });
    expect(w).toBeInstanceOf(HostsWatcher);
    const events: HostWatchEvent[] = [];
    const states: HostStateEvent[] = [];
    const byName: string[] = [];
    w.on('change', (e: HostWatchEvent) => events.push(e));
    w.on('added', () => byName.push('added'));
    w.on('host', (e: HostStateEvent) => states.push(e));
    const waitFor = async <T>(what: string, find: () => T | undefined, timeoutMs = 30_000): Promise<T> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = find();
        if (hit !== undefined) return hit;
        if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms; saw ${JSON.stringify({ events: events.map((e) => [e.type, e.host, e.record.pid]), states })}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      const localAdded = await waitFor('local added', () => events.find((e) => e.host === 'local' && e.type === 'added'));
      expect(localAdded.record).toMatchObject({ host: 'local', pid: local.pid, verdict: 'alive' });
      expect(localAdded.record.measuredAt).toBeGreaterThan(0);
      await waitFor('remote ok', () => states.find((s) => s.host === 'lib-w' && s.state === 'ok'));
      expect(states.find((s) => s.host === 'local')?.state).toBe('ok');

      const pid = startRemoteSession(c, { status: 'busy' });
      const added = await waitFor('remote added', () => events.find((e) => e.host === 'lib-w' && e.type === 'added' && e.record.pid === pid));
      expect(added.record).toMatchObject({ host: 'lib-w', verdict: 'alive', status: 'busy' });
      expect(byName.filter((n) => n === 'added').length).toBe(events.filter((e) => e.type === 'added').length);
      expect(w.records().map((r) => [r.host, r.pid]).sort()).toEqual([['lib-w', pid], ['local', local.pid]].sort());

      c.run(`kill ${pid}`);
      await waitFor('remote died', () => events.find((e) => e.host === 'lib-w' && e.type === 'died' && e.record.pid === pid));

      // The other side goes away: a host event, and no `removed` for what it held.
      await c.stop();
      const lost = await waitFor('lost', () => states.find((s) => s.host === 'lib-w' && s.state !== 'ok'));
      expect(['unreachable', 'timeout']).toContain(lost.state);
      expect(events.some((e) => e.type === 'removed')).toBe(false);
      expect(w.records().some((r) => r.host === 'lib-w' && r.pid === pid)).toBe(true);

      // A local session ending arrives too, tagged local.
      const gone = local.pid;
      await local.end();
      await waitFor('local died', () => events.find((e) => e.host === 'local' && e.type === 'died' && e.record.pid === gone));
    } finally {
      w.close();
    }
    expect(w.isClosed).toBe(true);
  }, 120_000);
  it('watch({ hosts, initial: false }): a remote\'s records at the start are the view, not news', async () => {
    const before = startRemoteSession(a);
    const w = watch({ hosts: ['lib-a'], env, interval: 200, initial: false });
    const events: HostWatchEvent[] = [];
    w.on('change', (e: HostWatchEvent) => events.push(e));
    let ok = false;
    w.on('host', (e: HostStateEvent) => (ok ||= e.state === 'ok'));
    try {
      await until(() => ok, 'first answer', 20_000);
      await until(() => w.records().length === 1, 'the view', 5_000);
      const after = startRemoteSession(a);
      await until(() => events.some((e) => e.type === 'added' && e.record.pid === after), 'added after the start', 20_000);
      expect(events.filter((e) => e.type === 'added').map((e) => e.record.pid)).toEqual([after]);
      expect(w.records().map((r) => r.pid).sort((x, y) => x - y)).toEqual([before, after].sort((x, y) => x - y));
    } finally {
      w.close();
      a.run(`kill ${before}; rm -f $HOME/.claude/sessions/*.json`);
    }
  }, 60_000);
});
