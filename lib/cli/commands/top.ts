/** `claude-ps top`: a full-screen live view of the sessions, driven by `watch` (docs/top.md). */
import { UsageError } from '../args.js';
import { configDirList, type Command } from '../command.js';
import { intervalFlag } from '../interval.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';

export const top: Command = {
  name: 'top',
  summary: 'a full-screen live view of the sessions, waiting ones first (q quits)',
  usage: 'top [--interval MS] [--host NAME]... [--all-hosts] [options]',
  details: `
One row per live session: name (else its folder), status and time in it, what it waits for, kind, PID,
cwd, and the config dir when the terminal is wide. Waiting sessions come first, the longest-waiting
first. Keys: q quit; up/down or j/k select; / filter; s sort (waiting, name, pid, started, cwd);
p prune the dead claims counted in the header (asks first); Enter jump to the selected session's
tmux pane, or say how to reach it. Needs a terminal; the screen is restored on q, Ctrl-C, SIGINT,
SIGTERM, SIGHUP (exit 130, 143, 129) and on an error. NO_COLOR (or --color never) draws without
colour (docs/top.md). With --host NAME (repeatable; \`local\` is this machine) or --all-hosts, other
machines' sessions are shown too, with a HOST column and a line of each host's state; a host that
gives no answer keeps its last rows marked !, and Enter on a remote row says how to reach it (ssh).
The prune key prunes this machine only.`,
  flags: {
    interval: { type: 'integer', value: 'MS', help: 'liveness re-probe period in ms (default 1000)' },
    ...HOST_FLAGS,
  },
  async run(ctx) {
    if (ctx.json) throw new UsageError('top: --json does not apply (for a stream of changes: claude-ps watch)');
    const interval = intervalFlag(ctx.flags);
    // The view's code loads only here: the library import and the statusline never pay for it.
    const { runTop } = await import('../top/app.js');
    let hosts: string[] | undefined;
    let hostTimeoutMs: number | undefined;
    if (wantsHosts(ctx.flags)) {
      const options = await import('../hosts/options.js');
      hosts = options.requestedHosts(ctx);
      hostTimeoutMs = options.hostTimeoutMs(ctx);
    }
    return runTop({ configDirs: configDirList(ctx.configDirs, ctx.env), env: ctx.env, interval, paint: ctx.paint, hosts, hostTimeoutMs });
  },
};
