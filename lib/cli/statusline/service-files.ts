/**
 * The service files of `claude-ps service` (docs/statusline.md, "As a service"): a systemd user unit
 * and a launchd agent running the same watcher the statusline starts by itself, on the same default
 * folder (`%t` is systemd's name for `$XDG_RUNTIME_DIR`). Pure text: the command does the I/O.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export const UNIT_NAME = 'claude-ps-watch.service';
export const AGENT_LABEL = 'io.github.claude-ps.watch';

export function unitPath(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'systemd', 'user', UNIT_NAME);
}

export function agentPath(): string {
  return join(homedir(), 'Library', 'LaunchAgents', `${AGENT_LABEL}.plist`);
}

/** One word of a systemd command line: quoted, with its own escapes, and `%` and `$` taken literally. */
function systemdWord(word: string): string {
  return `"${word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

export function systemdUnit(node: string, script: string, configDirs: readonly string[]): string {
  const dirs = configDirs.flatMap((d) => ['--config-dir', systemdWord(d)]);
  return `[Unit]
Description=claude-ps: statusline line files for the Claude Code sessions of this login
Documentation=https://github.com/claude-ps/claude-ps#claude-code-statusline

[Service]
Type=simple
ExecStart=${[systemdWord(node), systemdWord(script), 'watch', '--statusline-dir', '%t/claude-ps', ...dirs].join(' ')}
StandardOutput=null
# An autostarted watcher may keep the folder when this starts: try again until it has gone idle.
Restart=on-failure
RestartSec=30

[Install]
WantedBy=default.target
`;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function launchdAgent(node: string, script: string, dir: string, configDirs: readonly string[], log: string): string {
  const args = [node, script, 'watch', '--statusline-dir', dir, ...configDirs.flatMap((d) => ['--config-dir', d])];
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${AGENT_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${args.map((a) => `    <string>${xml(a)}</string>`).join('\n')}
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ThrottleInterval</key>
  <integer>30</integer>
  <key>StandardOutPath</key>
  <string>/dev/null</string>
  <key>StandardErrorPath</key>
  <string>${xml(log)}</string>
</dict>
</plist>
`;
}
