/**
 * `prune --host NAME`: prune stays local. The sh reader only reads, so nothing is ever deleted on
 * another machine through it; where the remote has claude-ps on its PATH, `prune --host` is that
 * remote's own `claude-ps prune`, run there over ssh (it probes and deletes on its own machine).
 * Without it, the command is refused (docs/hosts.md).
 */
import { UsageError } from '../args.js';
import type { Context } from '../command.js';
import { printable } from '../format.js';
import { out, outJson } from '../output.js';
import { LOCAL_HOST } from '../../hosts/read.js';
import { runOverSsh } from '../../hosts/transport.js';
import { requestedHosts } from './options.js';

/** `exit 127`: the shell's "command not found", so the refusal is told apart from prune's own codes. */
const NOT_INSTALLED = 127;
const PRUNE_TIMEOUT_MS = 120_000;

export async function pruneOnHosts(ctx: Context): Promise<number> {
  const hosts = requestedHosts(ctx)!;
  if (hosts.includes(LOCAL_HOST)) throw new UsageError('prune --host local: run prune without --host for this machine');
  if (ctx.configDirs) throw new UsageError('prune --host: --config-dir names folders here; the remote prunes its own default');
  // Fixed words only: nothing the user typed reaches the remote shell.
  const flags = [ctx.flags['dry-run'] === true && '--dry-run', ctx.flags.legacy === true && '--legacy', ctx.json && '--json'].filter(Boolean);
  const command = `command -v claude-ps >/dev/null 2>&1 || exit ${NOT_INSTALLED}; exec claude-ps prune ${flags.join(' ')}`;
  let code = 0;
  const results: unknown[] = [];
  // One host after the other: each remote deletes on its own machine, and says so before the next.
  for (const host of hosts) {
    const o = await runOverSsh(host, '', { env: ctx.env, timeoutMs: PRUNE_TIMEOUT_MS, maxBytes: 16 * 1024 * 1024 }, command);
    if (!o.ok) {
      code = 1;
      ctx.note(`claude-ps: prune --host ${printable(host)}: ${o.failure}${o.detail ? ` (${printable(o.detail)})` : ''}\n`);
      results.push({ host, state: o.failure, detail: o.detail, exit: null, result: null });
      continue;
    }
    if (o.status === NOT_INSTALLED) {
      code = 1;
      ctx.note(
        `claude-ps: prune --host ${printable(host)}: refused: claude-ps is not on its PATH, and prune never deletes on ` +
          `another machine through the reader (install claude-ps there, or run prune there)\n`,
      );
      results.push({ host, state: 'refused', detail: 'claude-ps is not installed there', exit: o.status, result: null });
      continue;
    }
    if (o.status !== 0) code = 1;
    const text = Buffer.from(o.stdout, 'latin1').toString('utf8');
    if (ctx.json) {
      let result: unknown = null;
      try {
        result = JSON.parse(text);
      } catch {
        // not its JSON: the exit status says the rest
      }
      results.push({ host, state: 'ok', detail: null, exit: o.status, result });
    } else {
      for (const line of text.split('\n')) if (line !== '') out(`${printable(host)}: ${printable(line)}\n`);
    }
    for (const line of Buffer.from(o.stderr, 'latin1').toString('utf8').split('\n')) {
      if (line.trim() !== '') ctx.note(`claude-ps: ${printable(host)}: ${printable(line)}\n`);
    }
  }
  if (ctx.json) outJson({ hosts: results });
  return code;
}
