/**
 * `cc-sessions has-interactive`: a guard for scripts that delete or rename a profile. Exit 0 when a
 * human may be using it, 1 when not; silent unless asked.
 */
import { hasLiveInteractive, hasLiveInteractiveIn } from '../../registry/guards.js';
import { scanRegistry } from '../../registry/read/scan.js';
import type { Command } from '../command.js';
import { out } from '../output.js';

export const hasInteractive: Command = {
  name: 'has-interactive',
  summary: 'exit 0 when a live interactive session exists, 1 when none (prints nothing)',
  usage: 'has-interactive [--verbose] [options]',
  plain: true,
  details: `
Yes also when a candidate file could not be read but its PID is alive: it may be a human session whose
file was caught mid-write, and a guard must not guess "no".
--json prints {"interactive": BOOLEAN, "pids": [PID...], "unreadableLivePids": [PID...]}.`,
  flags: {
    verbose: { type: 'boolean', short: 'v', help: 'say yes or no, and why' },
  },
  run(ctx) {
    const options = { env: ctx.env };
    if (!ctx.json && !ctx.flags.verbose) return hasLiveInteractive(ctx.configDirs, options) ? 0 : 1;

    // One scan explains the answer; each skipped file is judged by the guard's own rule.
    const scan = scanRegistry(ctx.configDirs, options);
    const yes = hasLiveInteractiveIn(scan);
    const pids = scan.records.filter((r) => r.live && r.interactive).map((r) => r.pid);
    const unreadableLivePids = scan.skipped
      .filter((s) => hasLiveInteractiveIn({ records: [], skipped: [s] }))
      .map((s) => s.pid);
    if (ctx.json) {
      out(JSON.stringify({ interactive: yes, pids, unreadableLivePids }) + '\n');
    } else if (yes) {
      const why = [
        pids.length > 0 ? `live interactive session PID ${pids.join(', ')}` : '',
        unreadableLivePids.length > 0 ? `unreadable file of live PID ${unreadableLivePids.join(', ')}` : '',
      ].filter(Boolean);
      out(`yes: ${why.join('; ')}\n`);
    } else {
      out('no: no live interactive session\n');
    }
    return yes ? 0 : 1;
  },
};
