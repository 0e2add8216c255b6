/** `claude-ps probe PID...`: the raw liveness of PIDs, as the backend sees them (no registry). */
import { probe as probePids } from '../../backend/index.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { out, outJson, table } from '../output.js';

const PID_TEXT = /^-?[0-9]+$/;

export const probe: Command = {
  name: 'probe',
  summary: 'probe PIDs: alive, unverified, zombie, gone or invalid, with their start token',
  usage: 'probe [options] PID...',
  details: `
Exit 0 when every PID is alive or unverified (the process exists), 1 otherwise, 2 on a usage error
(a PID that is not a number). Reads no registry: --config-dir does not apply.
--json prints [{"pid": N, "state": STATE, "token": STRING|null}...] in the order given.`,
  flags: {},
  positionals: { min: 1, max: Number.MAX_SAFE_INTEGER, name: 'at least one PID' },
  run(ctx) {
    const pids = ctx.positionals.map((p) => {
      if (!PID_TEXT.test(p) || !Number.isSafeInteger(Number(p))) throw new UsageError(`probe: not a PID: "${p}"`);
      return Number(p);
    });
    const results = probePids(pids);
    if (ctx.json) {
      outJson(results.map((r) => ({ pid: r.pid, state: r.state, token: r.token })));
    } else {
      const { paint } = ctx;
      const colour = (s: string) => (s === 'alive' ? paint.green : s === 'unverified' ? paint.yellow : paint.red);
      const rows = results.map((r) => [String(r.pid), { text: r.state, paint: colour(r.state) }, r.token ?? '-']);
      out(table(['PID', 'STATE', 'TOKEN'], rows, paint));
    }
    return results.every((r) => r.state === 'alive' || r.state === 'unverified') ? 0 : 1;
  },
};
