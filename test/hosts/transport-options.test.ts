/**
 * The transport's pure parts and the ControlPath folder: CLAUDE_PS_SSH split as a shell splits a
 * plain command line, host names that would be ssh options refused, ssh's own failures named, and a
 * shared-connection folder used only when it is a private folder of ours.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { controlDir } from '../../lib/hosts/control-dir.js';
import { checkHostName, classifySshError, splitCommand, sshArguments } from '../../lib/hosts/transport.js';

const work = mkdtempSync(join(tmpdir(), 'cps-ctl-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('CLAUDE_PS_SSH and host names', () => {
  it('splits words with quotes and backslashes, expanding nothing', () => {
    expect(splitCommand('ssh -F /a/b')).toEqual(['ssh', '-F', '/a/b']);
    expect(splitCommand(`ssh -F '/my dir/cfg' -o "User=a b" x\\ y $HOME`)).toEqual(['ssh', '-F', '/my dir/cfg', '-o', 'User=a b', 'x y', '$HOME']);
    expect(splitCommand("ssh ''")).toEqual(['ssh', '']);
    expect(splitCommand('  ')).toEqual([]);
    expect(() => splitCommand("ssh 'open")).toThrow(/unclosed/);
  });

  it('puts the user\'s words first (ssh keeps the first value of an option) and the host after --', () => {
    const args = sshArguments('box', { CLAUDE_PS_SSH: 'ssh -o ControlMaster=no', XDG_RUNTIME_DIR: work });
    expect(args.slice(0, 3)).toEqual(['ssh', '-o', 'ControlMaster=no']);
    expect(args).toContain('BatchMode=yes');
    expect(args.slice(-3)).toEqual(['--', 'box', 'sh -s']);
  });

  it('refuses a host that ssh would read as an option, or that holds blanks or control characters', () => {
    for (const bad of ['-oProxyCommand=touch /tmp/x', '', 'a b', 'a\nb', 'a\u0000', 'x\u007f']) {
      expect(() => checkHostName(bad)).toThrow(TypeError);
    }
    expect(checkHostName('user@host.example')).toBe('user@host.example');
  });

  it('names ssh\'s own failures', () => {
    expect(classifySshError('root@127.0.0.1: Permission denied (publickey).')).toBe('auth failed');
    expect(classifySshError('Host key verification failed.')).toBe('auth failed');
    expect(classifySshError('ssh: connect to host 10.0.0.1 port 22: Connection timed out')).toBe('timeout');
    expect(classifySshError('Timeout, server 1.2.3.4 not responding.')).toBe('timeout');
    expect(classifySshError('ssh: connect to host 127.0.0.1 port 9: Connection refused')).toBe('unreachable');
  });
});

describe('the ControlPath folder', () => {
  const withTmp = <T>(dir: string, fn: () => T): T => {
    const before = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      return fn();
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  };

  it('is made private in the runtime folder, and reused', () => {
    const runtime = join(work, 'rt');
    mkdirSync(runtime);
    const dir = controlDir({ XDG_RUNTIME_DIR: runtime });
    expect(dir).toBe(join(runtime, 'claude-ps-ssh'));
    expect(statSync(dir!).mode & 0o777).toBe(0o700);
    expect(controlDir({ XDG_RUNTIME_DIR: runtime })).toBe(dir);
  });

  it('is not used when it is a symlink, or open to others; then the temp folder, else none', () => {
    const runtime = join(work, 'hostile');
    mkdirSync(runtime);
    mkdirSync(join(work, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(work, 'elsewhere'), join(runtime, 'claude-ps-ssh'));
    const tmp = join(work, 'tmp');
    mkdirSync(tmp);
    const uid = process.getuid?.();
    expect(withTmp(tmp, () => controlDir({ XDG_RUNTIME_DIR: runtime }))).toBe(join(tmp, `claude-ps-ssh-${uid}`));
    chmodSync(join(tmp, `claude-ps-ssh-${uid}`), 0o777);
    expect(withTmp(tmp, () => controlDir({ XDG_RUNTIME_DIR: runtime }))).toBeUndefined();
    expect(withTmp(tmp, () => sshArguments('box', { XDG_RUNTIME_DIR: runtime }))).toContain('ControlMaster=no');
  });

  it('is not used when the socket path would be too long for a socket', () => {
    const deep = join(work, 'x'.repeat(60));
    mkdirSync(deep);
    const tmp = join(work, 'tmp2-' + 'y'.repeat(40));
    mkdirSync(tmp);
    expect(withTmp(tmp, () => controlDir({ XDG_RUNTIME_DIR: deep }))).toBeUndefined();
  });

  it('counts the socket path in bytes: a folder short in characters but long in bytes is not used', () => {
    // 46 UTF-16 units, 66 bytes: ssh's `<dir>/<%C>.<16 random>` would need 125 of sun_path's 108.
    const runtime = mkdtempSync(join('/tmp', 'é'.repeat(20) + '-'));
    try {
      expect(join(runtime, 'claude-ps-ssh').length).toBeLessThanOrEqual(46);
      const tmp = join(work, 'tmp3');
      mkdirSync(tmp);
      expect(withTmp(tmp, () => controlDir({ XDG_RUNTIME_DIR: runtime }))).toBe(join(tmp, `claude-ps-ssh-${process.getuid?.()}`));
    } finally {
      rmSync(runtime, { recursive: true, force: true });
    }
  });
});
