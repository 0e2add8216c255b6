/**
 * `claude-ps has-interactive`: a guard for scripts that delete or rename a profile. Its answer is
 * its exit code, as grep's is: 0 yes, 1 only for a real "no", anything else means "do not delete"
 * (docs/guard.md). Silent unless asked.
 */
import { errorSentence } from '../../registry/system-error.js';
import { UsageError } from '../args.js';
import { checkBackendRequest } from '../backend-request.js';
import { hasLiveInteractive, hasLiveInteractiveIn, provenNo } from '../../registry/guards.js';
import { MisplacedConfigDirError, misplacedSentence } from '../../registry/read/misplaced.js';
import { passParent } from '../registry-notes.js';
import { scanRegistry } from '../../registry/read/scan.js';
import { RegistryUnreadableError } from '../../registry/read/unreadable-folder.js';
import type { Command, Context } from '../command.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import { printable } from '../format.js';
import { skipsJson } from '../skips.js';
import { GUARD_EXIT } from '../guard-exit.js';
import { err, out, outJson } from '../output.js';

export { GUARD_EXIT } from '../guard-exit.js';

function answer(ctx: Context): number {
  // The backend is chosen before the folder is read: a CLAUDE_PS_BACKEND that is none of ours is a
  // usage error (2) and `native` without a loadable addon an error (4), even where no file needs a
  // probe, so a misconfigured guard fails the same way on every folder.
  checkBackendRequest(ctx.env);
  const options = { env: ctx.env };
  if (!ctx.json && !ctx.flags.verbose) return hasLiveInteractive(ctx.configDirs, options) ? GUARD_EXIT.yes : GUARD_EXIT.no;

  // One scan explains the answer; each skipped file is judged by the guard's own rule.
  const scan = scanRegistry(ctx.configDirs, options);
  const yes = hasLiveInteractiveIn(scan) || provenNo(ctx.configDirs, options);
  const code = yes ? GUARD_EXIT.yes : GUARD_EXIT.no;
  const pids = scan.records.filter((r) => r.live && r.interactive).map((r) => r.pid);
  const unreadableLivePids = scan.skipped
    .filter((s) => hasLiveInteractiveIn({ records: [], skipped: [s] }))
    .map((s) => s.pid);
  // The answer is known now: a reader of stdout that goes away (EPIPE ends the process) must not change it.
  process.exitCode = code;
  if (ctx.json) {
    outJson({ interactive: yes, pids, unreadableLivePids, skipped: skipsJson(scan.skipped) });
    return code;
  }
  if (yes) {
    const why = [
      pids.length > 0 ? `live interactive session PID ${pids.join(', ')}` : '',
      unreadableLivePids.length > 0 ? `unreadable file of live PID ${unreadableLivePids.join(', ')}` : '',
    ].filter(Boolean);
    out(`yes: ${why.join('; ')}\n`);
  } else {
    out('no: no live interactive session\n');
  }
  return code;
}

/** One line on stderr; a stderr that fails too must not turn the exit code into Node's 1. */
function say(text: string, oneLine = true): void {
  try {
    err(oneLine ? `claude-ps: ${printable(text)}\n` : text + '\n');
  } catch {
    // nothing left to tell it on: the exit code still does
  }
}

export const hasInteractive: Command = {
  name: 'has-interactive',
  summary: 'exit 0 when a live interactive session exists, 1 only when provably none, ≥ 2 when it cannot tell',
  usage: 'has-interactive [--verbose] [options]',
  plain: true,
  details: `
Yes also when a candidate file could not be read but its PID is alive: it may be a human session whose
file was caught mid-write, and a guard must not guess "no".
--json prints {"interactive": BOOLEAN, "pids": [PID...], "unreadableLivePids": [PID...],
"skipped": [{"path", "pid", "reason", "error"}...]} (each unreadable one of a live PID is a yes).

Exit codes (delete only on exactly 1):
  0  yes: a live interactive session (or an unreadable file of a live PID)
  1  no: no live interactive session, proven
  2  usage error (unknown option, missing value, a CLAUDE_PS_BACKEND that is not native, js or ps,
     or a sessions folder given as the config dir: it names the parent to pass)
  3  cannot tell: a sessions folder exists but cannot be listed, or (--host) a host gave no
     answer (one line on stderr each)
  4  any other error, e.g. CLAUDE_PS_BACKEND=native without a loadable addon (one line on stderr)
Example: claude-ps has-interactive --config-dir DIR; [ $? -eq 1 ] && rm -rf DIR`,
  flags: {
    verbose: { type: 'boolean', short: 'v', help: 'say yes or no, and why' },
    ...HOST_FLAGS,
  },
  async run(ctx) {
    try {
      if (wantsHosts(ctx.flags)) return await (await import('../hosts/commands.js')).hasInteractiveOnHosts(ctx);
      return answer(ctx);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      // A sessions folder passed as the config dir: the caller named the wrong folder (exit 2, never 1).
      if (error instanceof MisplacedConfigDirError) {
        throw new UsageError(`has-interactive: ${misplacedSentence(error.found, passParent(ctx, error.parent))}`);
      }
      if (error instanceof RegistryUnreadableError) {
        say(`cannot tell: ${error.message}`);
        return GUARD_EXIT.cannotTell;
      }
      say(errorSentence(error));
      if (ctx.env.CLAUDE_PS_DEBUG && error instanceof Error && error.stack) say(error.stack, false);
      return GUARD_EXIT.error;
    }
  },
};
