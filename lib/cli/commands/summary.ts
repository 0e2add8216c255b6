/** `claude-ps summary`: one line for a statusline, e.g. `2 busy · 1 waiting`, or a template of yours. */
import { scanRegistry } from '../../registry/read/scan.js';
import { configDirList, type Command } from '../command.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import { out, outJson } from '../output.js';
import { countRecords } from '../counts.js';
import { defaultSummary, parseTemplate, renderTemplate } from '../template.js';
import { noteRegistry } from '../registry-notes.js';
import { skipsJson } from '../skips.js';

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
"dead", "text", "skipped"}: every count, the line that would be printed, and the candidates that
could not be read ([{"path", "pid", "reason", "error"}...]; stderr counts them in one line).`,
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
    const scan = scanRegistry(dirs, { env: ctx.env });
    const counts = countRecords(scan.records, ctx.flags.interactive === true);
    const text = template ? renderTemplate(template, counts) : defaultSummary(counts);
    noteRegistry(ctx, dirs, scan);
    if (ctx.json) outJson({ ...counts, text, skipped: skipsJson(scan.skipped) });
    else out(text + '\n');
    return 0;
  },
};
