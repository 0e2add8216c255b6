/**
 * The jump's macOS path, by injection (this is not a Mac run): no /proc, so the session's terminal
 * comes from `ps -o tty= -p PID` (injected answers), and a stub `tmux` on PATH answers list-panes
 * with that tty and records what it was asked to do.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { terminalOf, type TerminalProbe } from '../../lib/cli/terminal-of.js';
import { jumpTo } from '../../lib/cli/top/jump.js';
import type { SessionRecord } from '../../lib/registry/types.js';

const darwin = (answer: string | Error, devices: Record<string, number> = { '/dev/ttys003': 0x10000003 }): TerminalProbe => ({
  platform: 'darwin',
  psTty: () => {
    if (answer instanceof Error) throw answer;
    return answer;
  },
  deviceOf: (path) => devices[path],
});

describe('the terminal of a process without /proc (ps -o tty=)', () => {
  it('reads the name ps prints and takes it only when /dev/NAME is a terminal device', () => {
    expect(terminalOf(4242, darwin('ttys003\n'))).toEqual({ device: 0x10000003, path: '/dev/ttys003' });
    expect(terminalOf(4242, darwin('  ttys003  \n'))).toEqual({ device: 0x10000003, path: '/dev/ttys003' });
    // No terminal, ps failing or gone, a name that is no device: cannot tell (undefined), never a guess.
    expect(terminalOf(4242, darwin('??\n'))).toBeUndefined();
    expect(terminalOf(4242, darwin('-\n'))).toBeUndefined();
    expect(terminalOf(4242, darwin(''))).toBeUndefined();
    expect(terminalOf(4242, darwin(new Error('ps: exit 1')))).toBeUndefined();
    expect(terminalOf(4242, darwin('ttys009\n'))).toBeUndefined();
    // Hostile or odd answers never become a path outside /dev/tty*.
    for (const bad of ['../../etc/passwd', 'ttys003/../../x', 'ttys003 ttys004', 'tty\x1b[2J', '/dev/ttys003']) {
      expect(terminalOf(4242, darwin(bad))).toBeUndefined();
    }
  });
});

function stubTmux(paneTty: string) {
  const bin = mkdtempSync(join(tmpdir(), 'cps-tmux-stub-'));
  const log = join(bin, 'calls.log');
  writeFileSync(log, '');
  const script = `#!/bin/sh
printf '%s\\n' "$*" >> '${log}'
case "$1" in
  list-panes) printf '%%1\\t/dev/ttys001\\t@1\\tmain\\n%%7\\t${paneTty}\\t@4\\tmain\\n' ;;
  display-message) echo '$1' ;;
esac
`;
  writeFileSync(join(bin, 'tmux'), script);
  chmodSync(join(bin, 'tmux'), 0o755);
  return { bin, calls: () => readFileSync(log, 'utf8').trim().split('\n'), remove: () => rmSync(bin, { recursive: true, force: true }) };
}

const record = { pid: 4242, verdict: 'alive', live: true, path: '/c/sessions/4242.json', raw: {} } as unknown as SessionRecord;

describe('Enter on darwin, with injected answers', () => {
  it('selects the pane whose tty ps named, in this tmux session', async () => {
    const tmux = stubTmux('/dev/ttys003');
    try {
      const probe = darwin('ttys003\n');
      const answer = await jumpTo(record, { TMUX: '/tmp/x,1,0', PATH: `${tmux.bin}:/usr/bin:/bin` }, (pid) => terminalOf(pid, probe));
      expect(answer).toBe('pid 4242: switched to pane %7 (session main)');
      const calls = tmux.calls();
      expect(calls[0]).toBe('list-panes -a -F #{pane_id}\t#{pane_tty}\t#{window_id}\t#{session_name}');
      // The two session lookups run side by side: either order.
      expect(calls.slice(1, 3).sort()).toEqual(['display-message -p #{session_id}', 'display-message -p -t %7 #{session_id}']);
      expect(tmux.calls().slice(-2)).toEqual(['select-window -t @4', 'select-pane -t %7']);
    } finally {
      tmux.remove();
    }
  });

  it('says so when ps cannot tell, and outside tmux names the terminal', async () => {
    const tmux = stubTmux('/dev/ttys003');
    try {
      const env = { TMUX: '/tmp/x,1,0', PATH: `${tmux.bin}:/usr/bin:/bin` };
      expect(await jumpTo(record, env, (pid) => terminalOf(pid, darwin('??')))).toBe('pid 4242: its controlling terminal cannot be read');
      expect(tmux.calls()).toEqual(['']);
      expect(await jumpTo(record, { PATH: env.PATH }, (pid) => terminalOf(pid, darwin('ttys003')))).toBe(
        'pid 4242 runs on /dev/ttys003 (not inside tmux: switch to that terminal)',
      );
    } finally {
      tmux.remove();
    }
  });
});
