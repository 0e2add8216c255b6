/** `claude-ps summary`: one line for a statusline, e.g. `2 busy · 1 waiting`, or a template of yours. */
import { readRecords } from '../../registry/read/scan.js';
import type { Command } from '../command.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import { out } from '../output.js';
import { countRecords } from '../counts.js';
import { defaultSummary, parseTemplate, renderTemplate } from '../template.js';
import { configDirList } from './list.js';

export { countRecords } from '../counts.js';

export const summary: Command = {
  name: 'summary',
  summary: 'one line for a statusline: "2 busy · 1 waiting"',
  usage: 'summary [--format TEMPLATE] [--interactive] [options]',
  plain: true,
  details: `
Counts live sessions by status. The default line lists non-zero counts in the order busy, waiting,
shell, idle, other (a session without a known status), joined by " · "; "no sessions" when none.

--format TEMPLATE:
  {key}        the count, e.g. {busy}
  {key:TEXT}   TEXT with each # replaced by the count, only when the count is not 0
  {summary}    the default line
  {{ and }}    literal braces
  keys: live interactive background busy waiting idle shell other dead
  e.g. --format '{busy:⚡#}{waiting: ⏳#}'  or  --format '{live} live'

--json prints {"live", "interactive", "background", "busy", "waiting", "idle", "shell", "other",
"dead", "text"}: every count, and the line that would be printed.`,
  flags: {
    format: { type: 'string', short: 'f', value: 'TEMPLATE', help: 'template for the line (see above)' },
    interactive: { type: 'boolean', short: 'i', help: 'count only interactive (human) sessions' },
    ...HOST_FLAGS,
  },
  run(ctx) {
    // Parse the template before reading anything: a bad one is a usage error, exit 2.
    const template = typeof ctx.flags.format === 'string' ? parseTemplate(ctx.flags.format) : undefined;
    if (wantsHosts(ctx.flags)) return import('../hosts/commands.js').then((m) => m.summaryOnHosts(ctx, template));
    const dirs = configDirList(ctx.configDirs, ctx.env);
    const records = readRecords(dirs, { env: ctx.env });
    const counts = countRecords(records, ctx.flags.interactive === true);
    const text = template ? renderTemplate(template, counts) : defaultSummary(counts);
    out(ctx.json ? JSON.stringify({ ...counts, text }) + '\n' : text + '\n');
    return 0;
  },
};
