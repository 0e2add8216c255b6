/**
 * The settings.json statusLine that renders a line file when it is current, else `claude-ps
 * statusline` (which starts the watcher): docs/statusline.md, "The settings snippet". One shell line,
 * no folder argument: it names the default folder exactly as lib/cli/statusline/autostart.ts does.
 */

/** A word for /bin/sh: single-quoted unless it is plainly safe. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface SnippetOptions {
  /** `statusline --notify` in the fallback: the watcher it starts also notifies. */
  notify?: boolean;
}

/** The snippet's command, running `claudePs` (already shell words) for the fallback. */
export function snippetCommand(claudePs: string, options: SnippetOptions = {}): string {
  return (
    'd=${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/claude-ps}; f=${d:-${TMPDIR:-/tmp}/claude-ps-$(id -u)}/$CLAUDE_PID; ' +
    '[ "$f" -nt "${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions/$CLAUDE_PID.json" ] && cat "$f" || ' +
    `${claudePs} statusline${options.notify === true ? ' --notify' : ''}`
  );
}

/** Claude Code re-runs the command this often (seconds) while idle, so other sessions' changes show. */
export const REFRESH_INTERVAL_S = 1;

export function statusLineSetting(claudePs: string, options: SnippetOptions = {}): { type: 'command'; command: string; refreshInterval: number } {
  return { type: 'command', command: snippetCommand(claudePs, options), refreshInterval: REFRESH_INTERVAL_S };
}

const PREFIX = snippetCommand('').slice(0, snippetCommand('').indexOf('||'));

/**
 * Whether a statusLine setting is this snippet (written by `--install`, or pasted from the README):
 * `--install` may replace it and `--uninstall` remove it. Anything else is the user's.
 */
export function isOurStatusLine(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const command = (value as { command?: unknown }).command;
  return typeof command === 'string' && command.startsWith(PREFIX) && (command.endsWith(' statusline') || command.endsWith(' statusline --notify'));
}
