/** `claude-ps count`: how many sessions are live (every kind, or only the human ones). */
import { scanLive } from '../../registry/read/scan.js';
import { configDirList, type Command } from '../command.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import { out, outJson } from '../output.js';
import { noteRegistry } from '../registry-notes.js';
import { skipsJson } from '../skips.js';

export const count: Command = {
  name: 'count',
  summary: 'print the number of live sessions',
  usage: 'count [--interactive] [options]',
  plain: true,
  details: `
Prints one number: live records of every kind, or with --interactive only the interactive ones
(kind not bg, daemon or daemon-worker). --json prints {"count": N, "interactive": BOOLEAN,
"skipped": [{"path", "pid", "reason", "error"}...]}. Candidates that could not be read and whose
PID exists are counted on stderr in one line: the number may miss them.`,
  flags: {
    interactive: { type: 'boolean', short: 'i', help: 'count only interactive (human) sessions' },
    ...HOST_FLAGS,
  },
  run(ctx) {
    if (wantsHosts(ctx.flags)) return import('../hosts/commands.js').then((m) => m.countOnHosts(ctx));
    const interactive = ctx.flags.interactive === true;
    const options = { env: ctx.env };
    const dirs = configDirList(ctx.configDirs, ctx.env);
    const scan = scanLive(dirs, options);
    const n = scan.records.filter((r) => r.live && (!interactive || r.interactive)).length;
    noteRegistry(ctx, dirs, scan);
    if (ctx.json) outJson({ count: n, interactive, skipped: skipsJson(scan.skipped) });
    else out(`${n}\n`);
    return 0;
  },
};
