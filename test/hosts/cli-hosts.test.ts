/**
 * The built CLI with --host against real OpenSSH servers on 127.0.0.1 (own PID namespaces, no Node
 * there): every fault is a named per-host state in every output, and the guard says "no" only when
 * every host answered no.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cliEnv, removeCopy, runCli } from '../cli/run-cli.js';
import { makeLab, sshdMissing, startRemoteSession, type Lab, type TestHost } from './sshd.js';

const missing = sshdMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true: the sshd tests cannot run: ${missing}`);

describe.skipIf(missing !== undefined)('claude-ps --host', () => {
  let lab: Lab;
  let a: TestHost;
  let b: TestHost;
  let cli: string;
  let localConfig: string;
  let env: NodeJS.ProcessEnv;
  const run = (...args: string[]) => runCli(cli, args, { env });

  beforeAll(async () => {
    cli = await builtCli();
    lab = await makeLab();
    [a, b] = await Promise.all([lab.start('host-a'), lab.start('host-b')]);
    localConfig = join(lab.dir, 'local-config');
    mkdirSync(join(localConfig, 'sessions'), { recursive: true });
    env = cliEnv({ ...lab.env, CLAUDE_CONFIG_DIR: localConfig, XDG_CONFIG_HOME: join(lab.dir, 'xdg') });
  });

  afterAll(async () => {
    await lab?.close();
    if (cli) removeCopy(cli);
  });

  it('lists, counts and summarises two hosts and this one, each record with its host', () => {
    const pa = startRemoteSession(a, { status: 'busy', name: 'on-a' });
    const pb = startRemoteSession(b, { status: 'waiting', name: 'on-b' });
    try {
      const list = run('list', '--host', 'host-a', '--host', 'host-b', '--host', 'local', '--json');
      expect(list.status).toBe(0);
      const doc = JSON.parse(list.stdout);
      expect(doc.hosts.map((h: { host: string; state: string }) => [h.host, h.state])).toEqual([
        ['host-a', 'ok'],
        ['host-b', 'ok'],
        ['local', 'ok'],
      ]);
      expect(doc.records.map((r: { host: string; pid: number; verdict: string }) => [r.host, r.pid, r.verdict])).toEqual([
        ['host-a', pa, 'alive'],
        ['host-b', pb, 'alive'],
      ]);
      expect(doc.records[0].measuredAt).toBeGreaterThan(Date.now() - 60_000);

      const table = run('list', '--host', 'host-a', '--host', 'host-b');
      expect(table.stdout).toMatch(/^HOST\s+PID/);
      expect(table.stdout).toMatch(/host-a\s+\d+.*on-a/);
      expect(table.stdout).toMatch(/^host-b: 1 live, measured (now|\d+s ago)/m);

      expect(run('count', '--host', 'host-a', '--host', 'host-b').stdout).toBe('2\n');
      const summary = run('summary', '--host', 'host-a', '--host', 'host-b');
      expect(summary.stdout).toBe('1 busy · 1 waiting\n');
      expect(summary.status).toBe(0);
    } finally {
      a.run(`kill ${pa}; rm -f $HOME/.claude/sessions/*.json`);
      b.run(`kill ${pb}; rm -f $HOME/.claude/sessions/*.json`);
    }
  });

  it('the guard: yes if any host says yes, no only when every host answered no, else exit 3', () => {
    expect(run('has-interactive', '--host', 'host-a', '--host', 'host-b').status).toBe(1);
    const down = run('has-interactive', '--host', 'host-a', '--host', lab.downAlias);
    expect(down.status).toBe(3);
    expect(down.stderr).toMatch(/down: unreachable/);
    const pb = startRemoteSession(b);
    try {
      const yes = run('has-interactive', '--host', 'host-b', '--host', lab.downAlias, '--verbose');
      expect(yes.status).toBe(0);
      expect(yes.stdout).toContain(`host-b: yes (live interactive session PID ${pb})`);
      const json = JSON.parse(run('has-interactive', '--host', 'host-a', '--host', 'host-b', '--json').stdout);
      expect(json.interactive).toBe(true);
      expect(json.hosts.map((h: { interactive: boolean }) => h.interactive)).toEqual([false, true]);
    } finally {
      b.run(`kill ${pb}; rm -f $HOME/.claude/sessions/*.json`);
    }
  });

  it('names each fault: unreachable, auth failed, timeout, bad answer; never "no sessions"', () => {
    // A fresh runtime folder: no shared connection to host-a (whose master would carry this alias too,
    // as OpenSSH multiplexing does for the same host, port and user: docs/hosts.md).
    const fresh = join(lab.dir, 'fr');
    mkdirSync(fresh, { mode: 0o700 });
    const wrong = runCli(cli, ['count', '--host', 'host-a-wrongkey', '--json'], { env: { ...env, XDG_RUNTIME_DIR: fresh } });
    expect(wrong.status).toBe(3);
    expect(JSON.parse(wrong.stdout).hosts[0]).toMatchObject({ state: 'auth failed', count: null });

    a.mode('hang');
    try {
      const started = Date.now();
      const hung = run('summary', '--host', 'host-a', '--host', 'host-b', '--host-timeout', '2');
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(hung.status).toBe(3);
      expect(hung.stdout).toBe('no sessions · host-a timeout\n');
    } finally {
      a.mode('normal');
    }

    a.mode('garbage');
    try {
      const bad = run('list', '--host', 'host-a');
      expect(bad.status).toBe(3);
      expect(bad.stdout).toMatch(/host-a: bad answer \(line 1: it does not start with "claude-ps-reader"/);
      expect(run('has-interactive', '--host', 'host-a').status).toBe(3);
    } finally {
      a.mode('normal');
    }

    const doctor = JSON.parse(run('doctor', '--host', lab.downAlias, '--host', 'host-a', '--json').stdout);
    expect(doctor.hosts[0]).toMatchObject({ host: 'down', state: 'unreachable' });
    expect(doctor.hosts[1]).toMatchObject({ host: 'host-a', state: 'ok', remote: { proc: 'ours', platform: 'linux' } });
  });

  it('a stopped sshd is unreachable, and the guard cannot tell', async () => {
    const c = await lab.start('host-c');
    expect(run('count', '--host', 'host-c').status).toBe(0);
    await c.stop();
    const after = run('has-interactive', '--host', 'host-c', '--json');
    expect(after.status).toBe(3);
    expect(JSON.parse(after.stdout).hosts[0].state).toMatch(/unreachable|timeout/);
  });

  it('hostile remote records are skips or leniently typed fields, printed one line each', () => {
    const dir = a.sessionsDir;
    const pa = startRemoteSession(a, { name: 'evil\u001b[2J\u202e\nname', status: 'busy\r\u0007' });
    try {
      writeFileSync(join(dir, '77.json'), '{"pid":78,"sessionId":"x"}');
      writeFileSync(join(dir, '79.json'), '{"pid":79');
      writeFileSync(join(dir, '80.json'), Buffer.alloc(300 * 1024, 0x20));
      symlinkSync('/etc/shadow', join(dir, '81.json'));
      spawnSync('mkfifo', [join(dir, '82.json')]);
      writeFileSync(join(dir, 'notes.json'), '{}');
      const start = Date.now();
      const doc = JSON.parse(run('doctor', '--host', 'host-a', '--json').stdout);
      expect(Date.now() - start).toBeLessThan(15_000);
      const skipped = Object.fromEntries(doc.hosts[0].skipped.map((s: { pid: number; reason: string }) => [s.pid, s.reason]));
      expect(skipped).toEqual({ 77: 'pid-mismatch', 79: 'unparseable', 80: 'too-large', 81: 'symlink', 82: 'not-regular' });
      const table = run('list', '--host', 'host-a');
      expect(table.status).toBe(0);
      // No control or bidi character of the remote reaches the terminal.
      expect(table.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
      expect(table.stdout.split('\n').filter((l) => l.includes(String(pa)))).toHaveLength(1);
    } finally {
      a.run(`kill ${pa}; rm -f $HOME/.claude/sessions/*.json`);
    }
  });

  it('a server that accepts but never speaks (SIGSTOP) is a timeout, within the connect timeout', async () => {
    const d = await lab.start('host-d');
    // Short: a longer ControlPath folder would not fit a socket path, and the temp folder's would serve.
    const fresh = join(lab.dir, 'fs');
    mkdirSync(fresh, { mode: 0o700 });
    const pid = d.serverPid();
    process.kill(pid, 'SIGSTOP');
    try {
      const started = Date.now();
      const r = runCli(cli, ['has-interactive', '--host', 'host-d', '--json'], { env: { ...env, XDG_RUNTIME_DIR: fresh } });
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(r.status).toBe(3);
      expect(JSON.parse(r.stdout).hosts[0].state).toBe('timeout');
    } finally {
      process.kill(pid, 'SIGCONT');
      await d.stop();
    }
  });

  it('snapshot --host adds each host with its state, measuredAt and sessions', () => {
    const pa = startRemoteSession(a, { name: 'snap' });
    try {
      const out = join(lab.dir, 'snapshot.json');
      const r = run('snapshot', '--host', 'host-a', '--host', lab.downAlias, '--host', 'local', '--output', out);
      expect(r.status).toBe(3);
      const doc = JSON.parse(readFileSync(out, 'utf8'));
      expect(doc.version).toBe(1);
      expect(doc.hosts['host-a'].state).toBe('ok');
      expect(Object.values(doc.hosts['host-a'].sessions)).toEqual([expect.objectContaining({ pid: pa, name: 'snap', verdict: 'alive' })]);
      expect(doc.hosts.down).toMatchObject({ state: 'unreachable', sessions: {} });
      expect(doc.hosts.local.state).toBe('ok');
    } finally {
      a.run(`kill ${pa}; rm -f $HOME/.claude/sessions/*.json`);
    }
  });

  it('prune --host is refused where the remote has no claude-ps, and is its own prune where it has', () => {
    const refused = run('prune', '--host', 'host-a', '--dry-run');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/host-a: refused: claude-ps is not on its PATH/);
    expect(run('prune', '--host', 'local').status).toBe(2);
    // A stand-in for an installed claude-ps (the remote has no Node): it says what it was asked.
    const stub = join(lab.bin, 'claude-ps');
    writeFileSync(stub, '#!/bin/sh\necho "pruned here with: $*"\n');
    chmodSync(stub, 0o755);
    try {
      const ran = run('prune', '--host', 'host-a', '--dry-run');
      expect(ran.status).toBe(0);
      expect(ran.stdout).toBe('host-a: pruned here with: prune --dry-run\n');
    } finally {
      rmSync(stub);
    }
  });

  it('out of descriptors (ulimit -n 40, 20 hosts): each host is named, nothing else is signalled', () => {
    const config = join(lab.dir, 'many_config');
    writeFileSync(config, 'Host h*\n  HostName 127.0.0.1\n  Port 9\n  BatchMode yes\n');
    const hosts = Array.from({ length: 20 }, (_, i) => `--host h${i}`).join(' ');
    // In a session of its own: a kill through a child that never started (PID 0) would end this
    // test's process group, which is how this bug first showed.
    const r = spawnSync('setsid', ['sh', '-c', `ulimit -n 40; exec "${process.execPath}" "${cli}" count ${hosts} --json`], {
      env: { ...env, CLAUDE_PS_SSH: `ssh -F ${config}` },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(3);
    const states = JSON.parse(r.stdout).hosts.map((h: { state: string; detail: string }) => h.state);
    expect(states).toEqual(Array(20).fill('unreachable'));
  });

  it('--all-hosts reads local and the hosts file; bad names are usage errors', () => {
    mkdirSync(join(lab.dir, 'xdg', 'claude-ps'), { recursive: true });
    writeFileSync(join(lab.dir, 'xdg', 'claude-ps', 'hosts'), '# my machines\nhost-a\n\nhost-b  # the build box\n');
    const doc = JSON.parse(run('count', '--all-hosts', '--json').stdout);
    expect(doc.hosts.map((h: { host: string }) => h.host)).toEqual(['local', 'host-a', 'host-b']);
    expect(run('count', '--host=-oProxyCommand=touch /tmp/pwned').status).toBe(2);
    writeFileSync(join(lab.dir, 'xdg', 'claude-ps', 'hosts'), '-oProxyCommand=x\n');
    expect(run('count', '--all-hosts').status).toBe(2);
  });
});
