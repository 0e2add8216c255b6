/**
 * `cc-sessions has-interactive`: a guard for scripts that delete or rename a profile. Exit 0 when a
 * human may be using it, 1 when not; silent unless asked.
 */
import { hasLiveInteractive, liveInteractiveRecords } from '../../registry/guards.js';
import { probe } from '../../backend/index.js';
import { scanRegistry } from '../../registry/scan.js';
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
    const yes = hasLiveInteractive(ctx.configDirs, options);
    if (ctx.json || ctx.flags.verbose) {
      const pids = liveInteractiveRecords(ctx.configDirs, options).map((r) => r.pid);
      const skippedPids = scanRegistry(ctx.configDirs, options).skipped.map((s) => s.pid);
      const unreadableLivePids = probe(skippedPids)
        .filter((p) => p.state === 'alive' || p.state === 'unverified')
        .map((p) => p.pid);
      if (ctx.json) {
        out(JSON.stringify({ interactive: yes, pids, unreadableLivePids }) + '\n');
      } else if (yes) {
        const why = [
          pids.length > 0 ? `live interactive session PID ${pids.join(', ')}` : '',
          unreadableLivePids.length > 0 ? `unreadable file of live PID ${unreadableLivePids.join(', ')}` : '',
        ].filter(Boolean);
        out(`yes: ${why.join('; ') || 'a live interactive session'}\n`);
      } else {
        out('no: no live interactive session\n');
      }
    }
    return yes ? 0 : 1;
  },
};
