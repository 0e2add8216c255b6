/** `cc-sessions prune`: deletes the files of provably dead records (gone, recycled, zombie). */
import { prune as pruneRecords } from '../../registry/prune/prune.js';
import { readRecords } from '../../registry/read/scan.js';
import type { Command } from '../command.js';
import { shortenHome } from '../format.js';
import { out, table } from '../output.js';

export const prune: Command = {
  name: 'prune',
  summary: 'delete the files of provably dead records (--dry-run: only say which)',
  usage: 'prune [--dry-run] [options]',
  details: `
Only gone, recycled and zombie records go; liveness is probed again at prune time, and a file that a
live session rewrote meanwhile is kept. Files that are not records are never touched.
--json prints {"dryRun": BOOLEAN, "removed": [{"pid", "sessionId", "verdict", "path"}...]}.`,
  flags: {
    'dry-run': { type: 'boolean', short: 'n', help: 'report what would be removed, remove nothing' },
  },
  run(ctx) {
    const dryRun = ctx.flags['dry-run'] === true;
    const removed = pruneRecords(readRecords(ctx.configDirs, { env: ctx.env }), { dryRun });
    if (ctx.json) {
      const rows = removed.map((r) => ({ pid: r.pid, sessionId: r.sessionId, verdict: r.verdict, path: r.path }));
      out(JSON.stringify({ dryRun, removed: rows }) + '\n');
      return 0;
    }
    if (removed.length === 0) {
      out('Nothing to prune: no provably dead records.\n');
      return 0;
    }
    const noun = removed.length === 1 ? 'dead record' : 'dead records';
    out(`${dryRun ? 'Would remove' : 'Removed'} ${removed.length} ${noun}:\n`);
    const rows = removed.map((r) => [String(r.pid), { text: r.verdict, paint: ctx.paint.red }, shortenHome(r.path)]);
    out(table(['PID', 'VERDICT', 'FILE'], rows, ctx.paint));
    return 0;
  },
};
