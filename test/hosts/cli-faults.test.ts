/**
 * Faults of our own side under `--host` (the hostile review rev3, defects 6, 11 and 12), in the built
 * CLI and library with no sshd: CLAUDE_PS_SSH names a small script that drops ssh's options and runs
 * the remote command here (`sh -s` with the shipped reader), so each "host" is this machine read
 * through the real transport. A descriptor limit, descriptors that run out mid-read, a hosts file
 * that is a FIFO, a device or too big, timeouts past setTimeout's limit, a CLAUDE_PS_SSH that does
 * not split, programmer errors in watchHosts.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHosts } from '../../lib/hosts/read.js';
import { parallelSshFor } from '../../lib/hosts/ssh-gate.js';
import { MAX_TIMEOUT_MS } from '../../lib/hosts/transport.js';
import { watchHosts } from '../../lib/hosts/watch.js';
import { builtCli, cliEnv, removeCopy, runCli } from '../cli/run-cli.js';

const work = mkdtempSync(join(tmpdir(), 'cps-rev3-cli-'));
let cli: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  cli = await builtCli();
  const fake = join(work, 'fake-ssh');
  writeFileSync(
    fake,
    [
      '#!/bin/sh',
      '# ssh stand-in: skip the options up to `--`, then the host; run the remote command here.',
      'while [ $# -gt 0 ]; do case $1 in --) shift; break ;; -o) shift 2 ;; *) shift ;; esac; done',
      'shift',
      'exec /bin/sh -c "$*"',
      '',
    ].join('\n'),
  );
  chmodSync(fake, 0o755);
  const config = join(work, 'config');
  mkdirSync(join(config, 'sessions'), { recursive: true });
  env = cliEnv({ CLAUDE_CONFIG_DIR: config, CLAUDE_PS_SSH: fake, XDG_RUNTIME_DIR: '', XDG_CONFIG_HOME: join(work, 'xdg') });
});

afterAll(() => {
  if (cli) removeCopy(cli);
  rmSync(work, { recursive: true, force: true });
});

describe('--host faults of our own side', () => {
  it('reads 50 hosts under ulimit -n 64 (as watch keeps 80 sessions under it), none `unreachable` for want of descriptors', () => {
    const hosts = Array.from({ length: 50 }, (_, i) => ['--host', `h${i + 1}`]).flat();
    const r = spawnSync('/bin/sh', ['-c', 'ulimit -n 64 && exec "$0" "$@"', process.execPath, cli, 'count', ...hosts, '--json'], {
      encoding: 'utf8',
      env,
      timeout: 120_000,
    });
    const doc = JSON.parse(r.stdout) as { hosts: { host: string; state: string; detail: string | null }[] };
    const failed = doc.hosts.filter((h) => h.state !== 'ok').map((h) => `${h.host}: ${h.state} (${h.detail})`);
    expect(failed).toEqual([]);
    expect(r.status).toBe(0);
  });

  it('does not hang on a hosts file that is a FIFO (--all-hosts)', () => {
    const xdg = join(work, 'xdg-fifo');
    mkdirSync(join(xdg, 'claude-ps'), { recursive: true });
    expect(spawnSync('mkfifo', [join(xdg, 'claude-ps', 'hosts')]).status).toBe(0);
    const r = spawnSync(process.execPath, [cli, 'count', '--all-hosts'], { encoding: 'utf8', env: { ...env, XDG_CONFIG_HOME: xdg }, timeout: 8000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/hosts \(not a regular file\)/);
  });

  it('refuses a hosts file that is a symlink to /dev/zero, or over 64 KiB; follows one to a regular file', () => {
    const xdg = join(work, 'xdg-links');
    mkdirSync(join(xdg, 'claude-ps'), { recursive: true });
    const file = join(xdg, 'claude-ps', 'hosts');
    const count = (extra: NodeJS.ProcessEnv = {}) =>
      spawnSync(process.execPath, [cli, 'count', '--all-hosts', '--json'], { encoding: 'utf8', env: { ...env, XDG_CONFIG_HOME: xdg, ...extra }, timeout: 20_000 });
    symlinkSync('/dev/zero', file);
    const zero = count();
    expect([zero.signal, zero.status]).toEqual([null, 2]);
    expect(zero.stderr).toMatch(/not a regular file/);
    rmSync(file);
    writeFileSync(file, `# ${'x'.repeat(64 * 1024)}\nbox\n`);
    const big = count();
    expect([big.status, big.stderr]).toEqual([2, expect.stringMatching(/over 65536 bytes/)]);
    rmSync(file);
    writeFileSync(join(work, 'dotfiles-hosts'), 'box # the build box\n');
    symlinkSync(join(work, 'dotfiles-hosts'), file);
    const linked = count();
    expect(linked.status).toBe(0);
    expect((JSON.parse(linked.stdout) as { hosts: { host: string; state: string }[] }).hosts.map((h) => [h.host, h.state])).toEqual([
      ['local', 'ok'],
      ['box', 'ok'],
    ]);
  });

  it('a read short of descriptors for a moment waits for them, not `unreachable (EMFILE)`', () => {
    // A library user under ulimit -n 64 holding every descriptor but two for 600 ms while 3 hosts are read.
    const script = [
      `import { closeSync, openSync } from 'node:fs';`,
      `import { readHosts } from ${JSON.stringify(join(process.cwd(), 'dist', 'index.js'))};`,
      `const held = [];`,
      `try { for (;;) held.push(openSync('/dev/null', 'r')); } catch {}`,
      `closeSync(held.pop()); closeSync(held.pop());`,
      `const spent = held.length;`,
      `setTimeout(() => { for (const fd of held) closeSync(fd); }, 600);`,
      `const scans = await readHosts(['h1', 'h2', 'h3'], { timeoutMs: 20000 });`,
      `console.log(JSON.stringify({ spent, states: scans.map((s) => s.state + (s.detail ? ': ' + s.detail : '')) }));`,
    ].join('\n');
    const r = spawnSync('/bin/sh', ['-c', 'ulimit -n 64 && exec "$0" --input-type=module -e "$1"', process.execPath, script], {
      encoding: 'utf8',
      env,
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    const doc = JSON.parse(r.stdout) as { spent: number; states: string[] };
    expect(doc.spent).toBeGreaterThan(20);
    expect(doc.states).toEqual(['ok', 'ok', 'ok']);
  });

  it('runs as many ssh children at once as the descriptor limit leaves room for', () => {
    expect([20, 64, 256, 1024, Infinity].map((soft) => parallelSshFor({ soft, hard: soft }))).toEqual([1, 4, 16, 16, 16]);
    expect(parallelSshFor(undefined)).toBe(16);
  });

  it('a --host-timeout past 2^31 ms is a usage error or a long wait, never an instant `timeout`', () => {
    const r = runCli(cli, ['count', '--host', 'box', '--host-timeout', '3000000'], { env });
    expect(r.stderr).not.toMatch(/TimeoutOverflowWarning|timeout \(no complete answer/);
    expect([r.status, r.stderr]).toEqual([2, expect.stringMatching(/--host-timeout: 1 to 2147483 seconds, got 3000000/)]);
    expect(runCli(cli, ['count', '--host', 'box', '--host-timeout', '0'], { env }).status).toBe(2);
    expect(runCli(cli, ['watch', '--host', 'box', '--host-timeout', '3000000'], { env }).status).toBe(2);
  });

  it('says the same of a CLAUDE_PS_SSH that does not split in doctor as in count', () => {
    const bad = { ...env, CLAUDE_PS_SSH: "ssh -F '/unclosed" };
    const count = runCli(cli, ['count', '--host', 'box'], { env: bad });
    const doctor = runCli(cli, ['doctor', '--host', 'box', '--json'], { env: bad });
    expect(doctor.status).toBe(count.status);
    expect(doctor.status).toBe(3);
    expect(doctor.stdout).toMatch(/"state":"unreachable"/);
    expect(doctor.stdout).toMatch(/"host":"box"/);
  });
});

describe('programmer errors in the library', () => {
  it('throws a programmer error (a host name ssh would read as an option) when called, as readHosts does', () => {
    let watcher: ReturnType<typeof watchHosts> | undefined;
    const errors: unknown[] = [];
    try {
      expect(() => {
        watcher = watchHosts(['-oProxyCommand=touch /tmp/x'], { env, intervalMs: 1000 });
        watcher.on('error', (e) => errors.push(e));
      }).toThrow(TypeError);
    } finally {
      watcher?.close();
    }
  });

  it('a timeout past setTimeout\'s limit throws when called, in readHosts and watchHosts alike', async () => {
    await expect(readHosts(['box'], { env, timeoutMs: MAX_TIMEOUT_MS + 1 })).rejects.toThrow(TypeError);
    await expect(readHosts(['box'], { env, timeoutMs: 0 })).rejects.toThrow(TypeError);
    expect(() => watchHosts(['box'], { env, timeoutMs: MAX_TIMEOUT_MS + 1 })).toThrow(TypeError);
    expect(() => watchHosts(['box'], { env, intervalMs: MAX_TIMEOUT_MS + 1 })).toThrow(TypeError);
    expect(() => watchHosts('box' as unknown as string[], { env })).toThrow(TypeError);
  });
});
