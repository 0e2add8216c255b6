/**
 * `claude-ps service install|uninstall|status`: the statusline's watcher as a systemd user service
 * (Linux) or a launchd agent (macOS), for those who want it running from login on instead of started
 * by the first render (docs/statusline.md, "As a service").
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { out } from '../output.js';
import { defaultLineDir, selfCommand } from '../statusline/autostart.js';
import { agentPath, AGENT_LABEL, launchdAgent, systemdUnit, UNIT_NAME, unitPath } from '../statusline/service-files.js';
import { describeWatcher, watcherStatus } from '../statusline/watcher-status.js';

type Target = 'systemd' | 'launchd';

function run(command: string, args: string[]): { ok: boolean; said: string } {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 20_000 });
  if (r.error) return { ok: false, said: (r.error as NodeJS.ErrnoException).code ?? r.error.message };
  return { ok: r.status === 0, said: (r.stderr || r.stdout || '').trim().split('\n')[0] ?? '' };
}

function writeAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o644 });
  renameSync(temp, path);
}

export const service: Command = {
  name: 'service',
  summary: "run the statusline's watcher as a systemd user service or a launchd agent",
  usage: 'service install|uninstall|status [--target systemd|launchd] [--no-start] [options]',
  positionals: { min: 1, max: 1, name: 'install, uninstall or status' },
  details: `
install writes ~/.config/systemd/user/${UNIT_NAME} (Linux) or ~/Library/LaunchAgents/${AGENT_LABEL}.plist
(macOS) for \`claude-ps watch --statusline-dir <default folder>\`, the watcher the statusline otherwise
starts by itself, then enables and starts it (systemctl --user enable --now / launchctl bootstrap)
unless --no-start. --config-dir (or $CLAUDE_CONFIG_DIR at install time) is written into it.
uninstall stops it and removes the file; status says whether the file is there and whether a
watcher keeps the default folder. --target writes the other platform's file (to inspect it).`,
  flags: {
    target: { type: 'string', value: 'T', help: 'systemd or launchd (default: this platform\'s)' },
    'no-start': { type: 'boolean', help: 'write or remove the file only; do not call systemctl or launchctl' },
  },
  run(ctx) {
    const action = ctx.positionals[0];
    if (action !== 'install' && action !== 'uninstall' && action !== 'status') throw new UsageError(`service: unknown action ${JSON.stringify(action)} (install, uninstall, status)`);
    const target = (ctx.flags.target as string | undefined) ?? (process.platform === 'darwin' ? 'launchd' : 'systemd');
    if (target !== 'systemd' && target !== 'launchd') throw new UsageError('--target must be systemd or launchd');
    const start = ctx.flags['no-start'] !== true;
    const path = target === 'systemd' ? unitPath(ctx.env) : agentPath();
    const lines: string[] = [];
    let code = 0;
    const manage = (command: string, args: string[]) => {
      const r = run(command, args);
      lines.push(r.ok ? `ran: ${command} ${args.join(' ')}` : `could not run ${command} ${args.join(' ')} (${r.said}): run it in your login session`);
      if (!r.ok) code = 1;
    };
    if (action === 'install') {
      const { node, script } = selfCommand();
      const configDirs = (ctx.configDirs ?? (ctx.env.CLAUDE_CONFIG_DIR ? [ctx.env.CLAUDE_CONFIG_DIR] : [])).map((d) => resolve(d));
      const text =
        target === 'systemd'
          ? systemdUnit(node, script, configDirs)
          : launchdAgent(node, script, defaultLineDir(ctx.env), configDirs, join(homedir(), 'Library', 'Logs', 'claude-ps-watch.log'));
      writeAtomically(path, text);
      lines.push(`wrote ${path}`);
      if (start && target === 'systemd') {
        manage('systemctl', ['--user', 'daemon-reload']);
        if (code === 0) manage('systemctl', ['--user', 'enable', '--now', UNIT_NAME]);
      } else if (start) {
        manage('launchctl', ['bootstrap', `gui/${process.getuid?.() ?? 0}`, path]);
      }
    } else if (action === 'uninstall') {
      if (start && existsSync(path)) {
        if (target === 'systemd') manage('systemctl', ['--user', 'disable', '--now', UNIT_NAME]);
        else manage('launchctl', ['bootout', `gui/${process.getuid?.() ?? 0}`, path]);
      }
      try {
        unlinkSync(path);
        lines.push(`removed ${path}`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        lines.push(`no ${path}`);
      }
      if (start && target === 'systemd') manage('systemctl', ['--user', 'daemon-reload']);
    } else {
      const status = watcherStatus(ctx.env);
      if (ctx.json) {
        out(JSON.stringify({ target, file: path, installed: existsSync(path), ...status }) + '\n');
        return 0;
      }
      lines.push(`${target} file ${path}: ${existsSync(path) ? 'installed' : 'not installed'}`);
      lines.push(`watcher ${describeWatcher(status)}`);
    }
    out(lines.join('\n') + '\n');
    return code;
  },
};
