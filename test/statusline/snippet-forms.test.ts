/**
 * The settings snippet's forms (lib/cli/statusline/snippet.ts): `--install` and `--uninstall` still
 * take the snippet an earlier version wrote for their own (no owner, heartbeat or absolute-XDG
 * checks), and nothing else; and the snippet is one POSIX sh line that dash parses.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isOurStatusLine, snippetCommand, statusLineSetting } from '../../lib/cli/statusline/snippet.js';

const EARLIER =
  'd=${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/claude-ps}; f=${d:-${TMPDIR:-/tmp}/claude-ps-$(id -u)}/$CLAUDE_PID; ' +
  '[ "$f" -nt "${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions/$CLAUDE_PID.json" ] && cat "$f" || /usr/bin/node /opt/claude-ps/dist/cli.cjs statusline';

describe('the settings snippet\'s forms', () => {
  it('this version\'s snippet and the earlier one are ours; an edited one is not', () => {
    expect(isOurStatusLine(statusLineSetting('/usr/bin/node /opt/x/cli.cjs'))).toBe(true);
    expect(isOurStatusLine(statusLineSetting('/usr/bin/node /opt/x/cli.cjs', { notify: true }))).toBe(true);
    expect(isOurStatusLine({ type: 'command', command: EARLIER })).toBe(true);
    expect(isOurStatusLine({ type: 'command', command: `${EARLIER} --notify` })).toBe(true);
    expect(isOurStatusLine({ type: 'command', command: EARLIER.replace('cat "$f"', 'cat "$f"; echo hi') })).toBe(false);
    expect(isOurStatusLine({ type: 'command', command: 'my own statusline' })).toBe(false);
  });

  it('is one line that /bin/sh parses (sh -n)', () => {
    const command = snippetCommand('/usr/bin/node /opt/x/cli.cjs');
    expect(command).not.toContain('\n');
    expect(spawnSync('/bin/sh', ['-n', '-c', command]).status).toBe(0);
  });
});
