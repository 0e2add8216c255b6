/** `claude-ps watch`: registry changes as NDJSON, one event per line, until stopped. */
import { errorSentence } from '../../registry/system-error.js';
import { watchHangup } from '../../backend/exits.js';
import { watchSettings } from '../../registry/watch/options.js';
import { watch as watchRegistry } from '../../registry/watch/watch.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import { err, out, outJson } from '../output.js';
import { recordJson } from '../records.js';
import { resolveSessionsDirs } from '../../registry/config.js';
import { checkLifetimeFlags, LIFETIME_FLAGS, startWatcherLifetime } from '../statusline/lifetime.js';
import { openWatchOutputs, WATCH_OUTPUT_FLAGS } from '../statusline/watch-outputs.js';

export const watch: Command = {
  name: 'watch',
  summary: 'print registry changes as NDJSON (added, changed, died, removed) until stopped',
  usage: 'watch [--interval MS] [--snapshot FILE] [--statusline-dir DIR [--format T] [--idle-exit S]] [--exec CMD [--exec-shell]] [options]',
  plain: true,
  details: `
One JSON object per line: {"type": "added"|"changed"|"died"|"removed", "time": EPOCH_MS,
"fields": [NAME...], "record": RECORD}. The records present at the start come first as "added";
"fields" names what changed (empty for added and removed); "died" means the verdict turned provably
dead. Exits come from the kernel where it can tell (see \`doctor\`); other records are re-probed
every --interval ms (default 1000; 10 to 2147483647). --snapshot FILE keeps a snapshot (see
\`snapshot --help\`) up to date, replaced atomically. Output is always NDJSON (--json is implied).
Ends on SIGINT or SIGTERM with exit 0, or when the reader of its output goes away.
--statusline-dir DIR keeps DIR/<pid>, the statusline line of each live session (see \`statusline
--help\` for --format); --exec CMD runs CMD per event with CLAUDE_PS_EVENT, _PID, _NAME, _STATUS,
_WAITING_FOR, _CWD … in its environment (docs/statusline.md). With --statusline-dir it ends by itself
when DIR is removed (a login's runtime folder) and, with --idle-exit S, after S seconds with no
live session. --until-logout ends it when the user's login it started in ends (systemd-logind's
state on Linux, launchd's gui domain on macOS; docs/statusline.md).`,
  flags: {
    interval: { type: 'integer', value: 'MS', help: 'liveness re-probe period in ms (default 1000)' },
    snapshot: { type: 'string', value: 'FILE', help: 'keep FILE up to date with a snapshot' },
    ...WATCH_OUTPUT_FLAGS,
    ...HOST_FLAGS,
    ...LIFETIME_FLAGS,
  },
  async run(ctx) {
    if (wantsHosts(ctx.flags)) return import('../hosts/watch.js').then((m) => m.watchOnHosts(ctx));
    const interval = ctx.flags.interval as number | undefined;
    const snapshotFile = ctx.flags.snapshot as string | undefined;
    const options = { env: ctx.env, interval, snapshotFile };
    try {
      watchSettings(options); // the library's own rule, so the two cannot disagree
    } catch (error) {
      throw new UsageError((error as Error).message.replace(/^watch: options\.interval /, '--interval '));
    }
    checkLifetimeFlags(ctx.flags);
    // A report must never end the watch (a closed stderr throws EBADF): its line files would go with it.
    const report = (line: string) => {
      try {
        err(`claude-ps watch: ${line}\n`);
      } catch {
        // nowhere to report
      }
    };
    // The line-file folder and its lock are taken before any event flows, so the first ones are kept.
    const attachOutputs = await openWatchOutputs(ctx.flags, ctx.env, resolveSessionsDirs(ctx.configDirs, ctx.env), report);
    const watcher = watchRegistry(ctx.configDirs, options);
    const outputs = attachOutputs(watcher);
    watcher.on('change', (event: { type: string; record: Parameters<typeof recordJson>[0]; fields?: readonly string[] }) => {
      const line = { type: event.type, time: Date.now(), fields: event.fields ?? [], record: recordJson(event.record) };
      outJson(line);
    });
    watcher.on('error', (error: unknown) => {
      err(`claude-ps watch: ${errorSentence(error)}\n`);
    });
    return new Promise<number>((resolve) => {
      let endLifetime = () => {};
      const stop = () => {
        endLifetime();
        outputs.close();
        watcher.close();
        resolve(0);
      };
      endLifetime = startWatcherLifetime(ctx.flags, ctx.env, watcher, outputs.lineDir, report, (why) => {
        report(`ending: ${why}`);
        stop();
      });
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      // Noticed at once, not at the next write, which on a quiet registry may be hours away
      // (`claude-ps watch | head -1`). Without the addon, the next write's EPIPE ends it.
      watchHangup(1, stop);
    });
  },
};
