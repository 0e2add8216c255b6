/** `claude-ps [list]`: a table of live sessions; `--all` adds the dead and foreign ones. */
import { existsSync } from 'node:fs';
import { sessionsDir } from '../../registry/config.js';
import { scanRegistry } from '../../registry/read/scan.js';
import { configDirList, type Command } from '../command.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import { shortenHome } from '../format.js';
import { out, outJson, table } from '../output.js';
import { LIST_HEADER, recordJson, recordRow } from '../records.js';
import { noteRegistry } from '../registry-notes.js';
import { skipsJson } from '../skips.js';


export const list: Command = {
  name: 'list',
  summary: 'show the sessions that are really running (the default command)',
  usage: 'list [--all] [options]',
  details: `
Columns: PID, KIND, STATUS (and how long ago it changed), NAME, CWD, VERDICT.
Live verdicts: alive, unverified, foreign. With --all, provably dead ones too: gone, recycled, zombie.
--json prints {"records": [RECORD...], "skipped": [{"path", "pid", "reason", "error"}...]}; see the
CLI reference for RECORD. Candidates that could not be read are counted on stderr in one line.`,
  flags: {
    all: { type: 'boolean', short: 'a', help: 'include dead records, with their verdict' },
    ...HOST_FLAGS,
  },
  run(ctx) {
    if (wantsHosts(ctx.flags)) return import('../hosts/commands.js').then((m) => m.listOnHosts(ctx));
    const dirs = configDirList(ctx.configDirs, ctx.env);
    const scan = scanRegistry(dirs, { env: ctx.env });
    const { records } = scan;
    const shown = ctx.flags.all ? records : records.filter((r) => r.live);
    const explained = noteRegistry(ctx, dirs, scan);
    if (ctx.json) {
      outJson({ records: shown.map(recordJson), skipped: skipsJson(scan.skipped) });
      return 0;
    }
    if (records.length === 0 && !explained && !dirs.some((d) => existsSync(sessionsDir(d)))) {
      const where = dirs.map((d) => shortenHome(sessionsDir(d))).join(', ');
      // An aside, not a result: stdout stays empty for whatever reads it (and exit 0: no sessions).
      ctx.note(
        `No Claude Code session registry here (${where} does not exist): Claude Code has not run on this machine, ` +
          `or under another config dir (--config-dir DIR, or CLAUDE_CONFIG_DIR).\n` +
          `Run \`claude-ps demo\` to see the filter at work on a registry of its own.\n`,
      );
      return 0;
    }
    const hidden = records.length - shown.length;
    if (shown.length === 0) {
      out('No live Claude Code sessions.\n');
    } else {
      const now = Date.now();
      out(table(LIST_HEADER, shown.map((r) => recordRow(r, ctx.paint, now)), ctx.paint));
    }
    if (hidden > 0) {
      const noun = hidden === 1 ? 'dead record' : 'dead records';
      ctx.note(`(${hidden} ${noun} hidden: \`claude-ps list --all\` shows them, \`claude-ps prune\` removes them)\n`);
    }
    return 0;
  },
};
