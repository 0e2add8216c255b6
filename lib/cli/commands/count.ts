/** `claude-ps count`: how many sessions are live (every kind, or only the human ones). */
import { liveInteractiveRecords, liveRecords } from '../../registry/guards.js';
import type { Command } from '../command.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import { out } from '../output.js';
import { configDirList } from './list.js';

export const count: Command = {
  name: 'count',
  summary: 'print the number of live sessions',
  usage: 'count [--interactive] [options]',
  plain: true,
  details: `
Prints one number: live records of every kind, or with --interactive only the interactive ones
(kind not bg, daemon or daemon-worker). --json prints {"count": N, "interactive": BOOLEAN}.`,
  flags: {
    interactive: { type: 'boolean', short: 'i', help: 'count only interactive (human) sessions' },
    ...HOST_FLAGS,
  },
  run(ctx) {
    if (wantsHosts(ctx.flags)) return import('../hosts/commands.js').then((m) => m.countOnHosts(ctx));
    const interactive = ctx.flags.interactive === true;
    const options = { env: ctx.env };
    const dirs = configDirList(ctx.configDirs, ctx.env);
    const records = (interactive ? liveInteractiveRecords : liveRecords)(dirs, options);
    const n = records.length;
    out(ctx.json ? JSON.stringify({ count: n, interactive }) + '\n' : `${n}\n`);
    return 0;
  },
};
