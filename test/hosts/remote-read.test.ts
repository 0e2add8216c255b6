/**
 * readHosts against real OpenSSH servers on 127.0.0.1, each in its own PID namespace with no Node:
 * the verdicts are the remote's, never this machine's (docs/hosts.md).
 */
import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHosts, anyInteractive } from '../../lib/hosts/read.js';
import { readerInput } from '../../lib/hosts/reader-text.js';
import { runOverSsh } from '../../lib/hosts/transport.js';
import { ourPidDomain } from '../../lib/registry/domain.js';
import { makeLab, sshdMissing, startRemoteSession, type Lab, type TestHost } from './sshd.js';

const missing = sshdMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true: the sshd tests cannot run: ${missing}`);
if (missing) console.log(`skipping the sshd tests: ${missing}`);

function localTicks(pid: number): string {
  const line = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return line.slice(line.lastIndexOf(')') + 2).split(' ')[19]!;
}

describe.skipIf(missing !== undefined)('reading another host over ssh', () => {
  let lab: Lab;
  let a: TestHost;
  let b: TestHost;

  beforeAll(async () => {
    lab = await makeLab();
    a = await lab.start('host-a');
    b = await lab.start('host-b');
  });

  afterAll(async () => {
    await lab?.close();
  });

  it('runs with no Node on the remote, in a PID space of its own', () => {
    expect(a.run('command -v node || echo no-node').trim()).toBe('no-node');
    expect(a.run('/usr/bin/node --version 2>&1 || echo no-node').trim()).toMatch(/no-node/);
    expect(a.run('readlink /proc/self/ns/pid').trim()).not.toBe(readlinkSync('/proc/self/ns/pid'));
  });

  it('judges each record by what the remote measured', async () => {
    const live = startRemoteSession(a, { name: 'remote-live' });
    // A record naming THIS process, with its local start ticks: alive here, no such PID there.
    const here = process.pid;
    const remoteDomain = a.run('echo "linux:$(cat /etc/machine-id):$(readlink /proc/self/ns/pid)"').trim();
    writeFileSync(
      join(a.sessionsDir, `${here}.json`),
      JSON.stringify({ pid: here, sessionId: 'local-twin', procStart: localTicks(here), pidDomain: remoteDomain }),
    );
    // A record written with this machine's domain (a shared home): foreign there, never probed.
    writeFileSync(join(a.sessionsDir, '4242.json'), JSON.stringify({ pid: 4242, sessionId: 'ours', pidDomain: ourPidDomain() }));
    const [scan] = await readHosts(['host-a'], { env: lab.env });
    expect(scan!.state).toBe('ok');
    expect(scan!.measuredAt).toBeGreaterThan(Date.now() - 60_000);
    const byPid = new Map(scan!.records.map((r) => [r.pid, r]));
    expect(byPid.get(live)).toMatchObject({ verdict: 'alive', host: 'host-a', name: 'remote-live', interactive: true });
    expect(byPid.get(here)?.verdict).toBe('gone');
    expect(byPid.get(4242)?.verdict).toBe('foreign');
    expect(scan!.interactive).toBe(true);
    expect(scan!.remote?.proc).toBe('ours');
    a.run(`kill ${live}; rm -f $HOME/.claude/sessions/*.json`);
  });

  it('an answer that never ends is cut at the byte limit: bad answer, the ssh child killed', async () => {
    a.mode('flood');
    try {
      const outcome = await runOverSsh('host-a', readerInput(undefined), { env: lab.env, maxBytes: 1024 * 1024, timeoutMs: 20_000 });
      expect(outcome).toMatchObject({ ok: false, failure: 'bad answer', detail: expect.stringMatching(/over 1048576 bytes/) });
    } finally {
      a.mode('normal');
    }
  });

  it('reads two hosts at once, and the guard needs every host to say no', async () => {
    const live = startRemoteSession(b, { kind: 'bg' });
    const scans = await readHosts(['host-a', 'host-b', lab.downAlias], { env: lab.env });
    expect(scans.map((s) => s.state)).toEqual(['ok', 'ok', 'unreachable']);
    expect(scans[1]!.records.map((r) => [r.pid, r.verdict, r.interactive])).toEqual([[live, 'alive', false]]);
    expect(anyInteractive(scans)).toBeUndefined();
    expect(anyInteractive(scans.slice(0, 2))).toBe(false);
    b.run(`kill ${live}; rm -f $HOME/.claude/sessions/*.json`);
  });
});
