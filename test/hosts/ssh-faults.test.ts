/**
 * The ssh side's faults from the hostile review rev3 (defects 7 and 8), against real OpenSSH servers
 * on 127.0.0.1 (test/hosts/sshd.ts): the ControlPath folder's length counted in bytes, and a shared
 * connection whose master stopped answering (set aside, never signalled) or is only slow (kept).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlDir } from '../../lib/hosts/control-dir.js';
import { readHosts } from '../../lib/hosts/read.js';
import { makeLab, sshdMissing, startRemoteSession, type Lab, type TestHost } from './sshd.js';

const missing = sshdMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true: the sshd tests cannot run: ${missing}`);

describe.skipIf(missing !== undefined)('ssh faults', () => {
  let lab: Lab;
  let a: TestHost;

  beforeAll(async () => {
    lab = await makeLab();
    a = await lab.start('host-a');
  });

  const cleanups: (() => void)[] = [];
  afterAll(async () => {
    for (const c of cleanups) c();
    await lab?.close();
  });

  it('a runtime folder whose name is short in characters but long in bytes still reads the host', async () => {
    // `/tmp/` + 20 × "é" + 7: its claude-ps-ssh folder is 46 UTF-16 units (control-dir.ts allows 46, by
    // .length) but 66 bytes, and ssh's `<ControlPath>.<16 random>` then needs 125 of sun_path's 108.
    const runtime = mkdtempSync(join('/tmp', 'é'.repeat(20) + '-'));
    expect(join(runtime, 'claude-ps-ssh').length).toBeLessThanOrEqual(46);
    chmodSync(runtime, 0o700);
    cleanups.push(() => rmSync(runtime, { recursive: true, force: true }));
    const env = { ...lab.env, XDG_RUNTIME_DIR: runtime };
    const dir = controlDir(env);
    const pid = startRemoteSession(a, { name: 'mb' });
    const [scan] = await readHosts([a.alias], { env, timeoutMs: 20_000 });
    // Expected: either no multiplexing (the folder is refused as too long for sun_path) or a working one.
    expect({ state: scan!.state, detail: scan!.detail, dir, bytes: dir && Buffer.byteLength(dir) }).toMatchObject({ state: 'ok' });
    expect(scan!.records.map((r) => r.pid)).toContain(pid);
  });

  it('held: a master killed with -9 leaves a stale socket, and the next read replaces it', async () => {
    const runtime = join(lab.dir, 'run-kill');
    mkdirSync(runtime, { mode: 0o700 });
    const env = { ...lab.env, XDG_RUNTIME_DIR: runtime };
    expect((await readHosts([a.alias], { env, timeoutMs: 20_000 }))[0]!.state).toBe('ok');
    const control = controlDir(env)!;
    const [socket] = readdirSync(control);
    const check = spawnSync('ssh', ['-F', lab.sshConfig, '-o', `ControlPath=${join(control, socket!)}`, '-O', 'check', a.alias], { encoding: 'utf8' });
    const masterPid = Number(/pid=(\d+)/.exec(check.stderr)?.[1]);
    process.kill(masterPid, 'SIGKILL');
    const [scan] = await readHosts([a.alias], { env, timeoutMs: 20_000 });
    expect(scan!.state).toBe('ok');
  });

  it('held: more concurrent reads of one host than its sshd\'s MaxSessions (10, the default) over one master', async () => {
    const host = await lab.start('host-ms');
    const config = join(lab.dir, 'host-ms', 'sshd_config');
    writeFileSync(config, readFileSync(config, 'utf8').replace('MaxSessions 64', 'MaxSessions 10'));
    await host.restart();
    const runtime = join(lab.dir, 'run-ms');
    mkdirSync(runtime, { mode: 0o700 });
    const env = { ...lab.env, XDG_RUNTIME_DIR: runtime };
    expect((await readHosts([host.alias], { env, timeoutMs: 20_000 }))[0]!.state).toBe('ok');
    // 14 separate readers at once (14 statusline renders, say) over the one shared connection.
    const scans = await Promise.all(Array.from({ length: 14 }, () => readHosts([host.alias], { env, timeoutMs: 30_000 })));
    expect(scans.map(([s]) => (s!.state === 'ok' ? 'ok' : `${s!.state}: ${s!.detail}`)).filter((s) => s !== 'ok')).toEqual([]);
  });

  it('a shared connection whose master stopped answering does not make the host time out for ever', async () => {
    const runtime = join(lab.dir, 'run-stop');
    mkdirSync(runtime, { mode: 0o700 });
    const env = { ...lab.env, XDG_RUNTIME_DIR: runtime };
    const [warm] = await readHosts([a.alias], { env, timeoutMs: 20_000 });
    expect(warm!.state).toBe('ok');
    const control = controlDir(env)!;
    const sockets = readdirSync(control);
    expect(sockets).toHaveLength(1);
    // The master is our own ssh child (ControlPersist forked it off): its PID, from ssh itself.
    const check = spawnSync('ssh', ['-F', lab.sshConfig, '-o', `ControlPath=${join(control, sockets[0]!)}`, '-O', 'check', a.alias], { encoding: 'utf8' });
    const masterPid = Number(/pid=(\d+)/.exec(check.stderr)?.[1]);
    expect(Number.isSafeInteger(masterPid)).toBe(true);
    expect(readFileSync(`/proc/${masterPid}/cmdline`, 'latin1')).toMatch(/^ssh/);
    process.kill(masterPid, 'SIGSTOP');
    try {
      const states: string[] = [];
      for (let i = 0; i < 3; i++) {
        const [scan] = await readHosts([a.alias], { env, timeoutMs: 4000 });
        states.push(scan!.state);
      }
      // The read that timed out set the silent master's socket aside: the next one started a new master.
      // (A fresh handshake may itself take over 4 s on a loaded machine: then the third read is the ok one.)
      expect(states[0]).toBe('timeout');
      expect(states.slice(1)).toContain('ok');
      expect(readdirSync(control).sort()).toEqual([sockets[0]!, `${sockets[0]!}.aside`].sort());
      // Never signalled by us: it is still stopped.
      expect(readFileSync(`/proc/${masterPid}/stat`, 'latin1').replace(/^.*\) /s, '')[0]).toBe('T');
    } finally {
      process.kill(masterPid, 'SIGCONT');
      try {
        for (const name of [sockets[0]!, `${sockets[0]!}.aside`]) {
          execFileSync('ssh', ['-F', lab.sshConfig, '-o', `ControlPath=${join(control, name)}`, '-O', 'exit', a.alias], { stdio: 'ignore', timeout: 5000 });
        }
      } catch {
        // already gone
      }
    }
  });

  it('a master that answers is kept when the remote itself is slow (the read times out, the socket stays)', async () => {
    const host = await lab.start('host-slow');
    const runtime = join(lab.dir, 'run-slow');
    mkdirSync(runtime, { mode: 0o700 });
    const env = { ...lab.env, XDG_RUNTIME_DIR: runtime };
    expect((await readHosts([host.alias], { env, timeoutMs: 20_000 }))[0]!.state).toBe('ok');
    const control = controlDir(env)!;
    const sockets = readdirSync(control);
    host.mode('hang');
    try {
      const [slow] = await readHosts([host.alias], { env, timeoutMs: 2000 });
      expect(slow!.state).toBe('timeout');
      expect(slow!.detail).not.toMatch(/set aside/);
    } finally {
      host.mode('normal');
    }
    expect(readdirSync(control)).toEqual(sockets);
    const [again] = await readHosts([host.alias], { env, timeoutMs: 20_000 });
    expect(again!.state).toBe('ok');
    execFileSync('ssh', ['-F', lab.sshConfig, '-o', `ControlPath=${join(control, sockets[0]!)}`, '-O', 'exit', host.alias], { stdio: 'ignore', timeout: 5000 });
  });
});
