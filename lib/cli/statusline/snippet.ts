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

/**
 * The snippet's command, running `claudePs` (already shell words) for the fallback. It prints
 * `DIR/$CLAUDE_PID` only when DIR is a folder of this user's (`-O`, and not a symlink: with no
 * XDG_RUNTIME_DIR it is a predictable name in /tmp another user could make first), the file is this
 * user's (no one else can make one: `.now` is then written only where a watcher of ours wrote) and
 * newer than the session's own record, and the watcher beats (`.beat` newer than `.now`, which it
 * truncates first: lib/cli/statusline/heartbeat.ts). An XDG_RUNTIME_DIR that is not absolute is
 * ignored, as the XDG spec says. `-O` is not in POSIX `test`, but dash, bash (3.2 too), zsh and
 * busybox have it; a shell without it fails the test and so falls back.
 */
export function snippetCommand(claudePs: string, options: SnippetOptions = {}): string {
  return (
    'case $XDG_RUNTIME_DIR in /*) d=$XDG_RUNTIME_DIR/claude-ps;; *) d=${TMPDIR:-/tmp}/claude-ps-$(id -u);; esac; f=$d/$CLAUDE_PID; ' +
    '[ ! -L "$d" ] && [ -O "$d" ] && [ -O "$f" ] && [ "$f" -nt "${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions/$CLAUDE_PID.json" ] && ' +
    'true 2>/dev/null >"$d/.now" && [ "$d/.beat" -nt "$d/.now" ] && cat "$f" || ' +
    `${claudePs} statusline${options.notify === true ? ' --notify' : ''}`
  );
}

/** Snippets earlier versions wrote, up to their fallback: still ours to replace or remove. */
const EARLIER_PREFIXES = [
  'd=${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/claude-ps}; f=${d:-${TMPDIR:-/tmp}/claude-ps-$(id -u)}/$CLAUDE_PID; ' +
    '[ "$f" -nt "${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions/$CLAUDE_PID.json" ] && cat "$f" ',
];

/** Claude Code re-runs the command this often (seconds) while idle, so other sessions' changes show. */
export const REFRESH_INTERVAL_S = 1;

export function statusLineSetting(claudePs: string, options: SnippetOptions = {}): { type: 'command'; command: string; refreshInterval: number } {
  return { type: 'command', command: snippetCommand(claudePs, options), refreshInterval: REFRESH_INTERVAL_S };
}

const PREFIXES = [snippetCommand('').slice(0, snippetCommand('').lastIndexOf('||')), ...EARLIER_PREFIXES];

/**
 * Whether a statusLine setting is this snippet (written by `--install`, or pasted from the README):
 * `--install` may replace it and `--uninstall` remove it. Anything else is the user's.
 */
export function isOurStatusLine(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const command = (value as { command?: unknown }).command;
  return typeof command === 'string' && PREFIXES.some((p) => command.startsWith(p)) && (command.endsWith(' statusline') || command.endsWith(' statusline --notify'));
}
