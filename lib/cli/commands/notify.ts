/**
 * `claude-ps notify`: a watcher that sends a desktop notification when a session starts waiting (and,
 * when asked, finishes a turn or ends), rate-limited, never for this terminal's own session
 * (docs/top.md). With --statusline-dir it is also the watcher a statusline reads: one process serves both.
 */
import { watchHangup } from '../../backend/exits.js';
import { watch as watchRegistry } from '../../registry/watch/watch.js';
import type { SessionRecord } from '../../registry/types.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { intervalFlag } from '../interval.js';
import { EventEmitter } from 'node:events';
import { Limiter } from '../notify/limiter.js';
import { chooseSender, VIAS, type Via } from '../notify/senders.js';
import { NOTIFY_EVENTS, Transitions, type Notice, type NotifyEvent } from '../notify/transitions.js';
import { jsonText } from '../output.js';
import { LINE_BACKLOG, LineOut } from '../notify/line-out.js';
import { Drain, openNonBlocking } from '../nonblocking.js';
import { findSelf } from '../statusline/self.js';
import { checkLifetimeFlags, LIFETIME_FLAGS, startWatcherLifetime } from '../statusline/lifetime.js';
import { openWatchOutputs, WATCH_OUTPUT_FLAGS } from '../statusline/watch-outputs.js';
import { resolveSessionsDirs } from '../../registry/config.js';
import { terminalOf } from '../terminal-of.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';

// Outputs of this machine's watcher only: refused with --host rather than silently local.
const NOT_WITH_HOSTS = ['statusline-dir', 'format', 'exec'];

const DEFAULT_GAP_MS = 2000;
const DEFAULT_PER_SESSION_MS = 15_000;

function parseOn(value: string | undefined): Set<NotifyEvent> {
  if (value === undefined) return new Set(['waiting']);
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = names.find((n) => !(NOTIFY_EVENTS as readonly string[]).includes(n));
  if (bad !== undefined || names.length === 0) {
    throw new UsageError(`--on takes a comma-separated list of ${NOTIFY_EVENTS.join(', ')}, got ${JSON.stringify(value.slice(0, 80))}`);
  }
  return new Set(names as NotifyEvent[]);
}

/** The merged text when several notices leave at once. */
function merged(notices: readonly Notice[]): { title: string; body: string } {
  if (notices.length === 1) return { title: notices[0]!.title, body: notices[0]!.body };
  const labels = notices.map((n) => n.label);
  const body = labels.slice(0, 5).join(', ') + (labels.length > 5 ? ` and ${labels.length - 5} more` : '');
  const waiting = notices.filter((n) => n.event === 'waiting').length;
  const title = waiting === notices.length ? `Claude Code: ${notices.length} sessions need you` : `Claude Code: ${notices.length} session changes`;
  return { title, body: body.slice(0, 160) };
}

export const notify: Command = {
  name: 'notify',
  summary: 'send a desktop notification when a session starts waiting (a watcher; runs until stopped)',
  usage: 'notify [--via notify-send|osascript|osc] [--on waiting,done,died] [--initial] [options]',
  plain: true,
  details: `
Watches the registry and notifies once per transition: a session that starts waiting (a permission
prompt, a question); with --on also one that finishes a turn (done: busy to idle) or ends (died).
Sessions already waiting when notify starts are not announced unless --initial; this terminal's own
session (CLAUDE_PID, CLAUDE_CODE_SESSION_ID, or the same controlling terminal) never is. At most one
notification per --rate-limit ms (what comes meanwhile is merged into the next one), and the same
session's same event at most once per --per-session ms. The notifier is notify-send on a Linux desktop,
osascript on macOS, else an OSC 9 / OSC 777 escape to this terminal; --via chooses. Each notification
sent is one line on stdout (NDJSON with --json). --statusline-dir, --format and --exec work as in
\`watch\`, so one process can serve a statusline too. Ends on SIGINT, SIGTERM or SIGHUP (docs/top.md).`,
  flags: {
    via: { type: 'string', value: 'HOW', choices: VIAS, help: 'notify-send, osascript or osc (default: chosen for this machine)' },
    on: { type: 'string', value: 'EVENTS', help: 'what to announce: waiting (default), done, died, comma-separated' },
    initial: { type: 'boolean', help: 'also announce the sessions already waiting at start' },
    'rate-limit': { type: 'integer', value: 'MS', help: `at most one notification per MS (default ${DEFAULT_GAP_MS})` },
    'per-session': { type: 'integer', value: 'MS', help: `the same session's same event at most once per MS (default ${DEFAULT_PER_SESSION_MS})` },
    interval: { type: 'integer', value: 'MS', help: 'liveness re-probe period in ms (default 1000)' },
    ...WATCH_OUTPUT_FLAGS,
    // The statusline's autostarted watcher can be this command (`statusline --notify`): it ends as that one does.
    ...LIFETIME_FLAGS,
    ...HOST_FLAGS,
  },
  async run(ctx) {
    const wanted = parseOn(ctx.flags.on as string | undefined);
    const gap = (ctx.flags['rate-limit'] as number | undefined) ?? DEFAULT_GAP_MS;
    const perSession = (ctx.flags['per-session'] as number | undefined) ?? DEFAULT_PER_SESSION_MS;
    const options = { env: ctx.env, interval: intervalFlag(ctx.flags) };
    checkLifetimeFlags(ctx.flags);
    // stderr too may be a pipe or terminal that stops reading: its lines wait up to LINE_BACKLOG bytes,
    // then are dropped, and the watcher goes on (lib/cli/nonblocking.ts).
    const errors = new Drain(openNonBlocking(2, ['/dev/tty']));
    const report = (line: string) => {
      if (errors.behind <= LINE_BACKLOG) errors.write(`claude-ps notify: ${line}\n`);
    };
    // --host / --all-hosts: other machines' sessions are announced too (their host in the text);
    // this machine's only when `local` is among the hosts, as every --host command reads.
    let hosts: string[] | undefined;
    let hostTimeout: number | undefined;
    if (wantsHosts(ctx.flags)) {
      for (const flag of NOT_WITH_HOSTS) {
        if (ctx.flags[flag] !== undefined) throw new UsageError(`notify: --${flag} does not apply with --host (this machine only: drop --host)`);
      }
      const hostOptions = await import('../hosts/options.js');
      hosts = hostOptions.requestedHosts(ctx);
      hostTimeout = hostOptions.hostTimeoutMs(ctx);
    }
    const sender = chooseSender(ctx.flags.via as Via | undefined, ctx.env, report);
    // The line-file folder and its lock are taken before any event flows (as watch does), so the
    // initial `added` events --statusline-dir builds its view from are kept.
    let attachOutputs;
    try {
      attachOutputs = await openWatchOutputs(ctx.flags, ctx.env, resolveSessionsDirs(ctx.configDirs, ctx.env), report, { notifies: true });
    } catch (error) {
      sender.close();
      throw error;
    }
    const watcher = hosts === undefined || hosts.includes('local') ? watchRegistry(ctx.configDirs, options) : undefined;
    const outputs = watcher ? attachOutputs(watcher) : { close() {}, lineDir: undefined };
    // This terminal's own session: by what Claude Code tells its children, else by the terminal itself.
    const ownTerminal = terminalOf('self')?.device;
    // A session seen on this terminal while alive stays ours when it dies: a dead PID has no terminal
    // left to compare, and its `died` must not be announced either.
    const ownSessions = new Set<string>();
    const sessionOf = (r: SessionRecord) => `${r.path}\0${r.sessionId}`;
    // A session's terminal does not change: each is looked up once (without /proc that is a `ps`).
    const looked = new Set<string>();
    const remember = (r: SessionRecord) => {
      const id = sessionOf(r);
      if (ownTerminal === undefined || r.verdict !== 'alive' || looked.has(id)) return;
      const terminal = terminalOf(r.pid);
      if (terminal === undefined) return; // cannot tell yet: asked again on its next event
      looked.add(id);
      if (terminal.device === ownTerminal) ownSessions.add(id);
    };
    const isOwn = (r: SessionRecord) => {
      if (findSelf([r], ctx.env, undefined).records.length > 0) return true;
      remember(r);
      return ownSessions.has(sessionOf(r));
    };
    let stop: () => void = () => {};
    const lines = new LineOut(report, () => stop());
    const transitions = new Transitions(wanted);
    const limiter = new Limiter(gap, perSession);
    let timer: NodeJS.Timeout | undefined;

    const send = (notices: Notice[]) => {
      const m = merged(notices);
      sender.send(m);
      const line = {
        time: Date.now(),
        via: sender.name,
        events: notices.map((n) => ({ event: n.event, pid: n.pid, sessionId: n.sessionId, label: n.label })),
        title: m.title,
        body: m.body,
      };
      lines.write(ctx.json ? jsonText(line) + '\n' : `${new Date(line.time).toTimeString().slice(0, 8)}  ${m.title}  ${m.body}\n`);
    };
    const flush = () => {
      timer = undefined;
      const now = Date.now();
      const due = limiter.release(now);
      if (due) send(due.notices);
      limiter.sweep(now);
      schedule();
    };
    const schedule = () => {
      const at = limiter.dueAt();
      if (at === undefined || timer) return;
      timer = setTimeout(flush, Math.max(0, at - Date.now()));
    };
    const offer = (notice: Notice | undefined) => {
      if (!notice || isOwn(notice.record)) return;
      const now = Date.now();
      limiter.sweep(now); // keeps its memory to the sessions of the last --per-session window
      const due = limiter.offer(notice, now);
      if (due) send(due.notices);
      schedule();
    };

    const localRecords = watcher?.records() ?? [];
    const live = localRecords.filter((r) => r.live).length;
    const remotes = (hosts ?? []).filter((h) => h !== 'local');
    const elsewhere = remotes.length ? ` here and ${remotes.length} other host${remotes.length === 1 ? '' : 's'}` : '';
    report(`watching ${live} live session${live === 1 ? '' : 's'}${elsewhere}; notifying via ${sender.name}`);
    for (const r of localRecords) remember(r);
    for (const notice of transitions.start(localRecords, ctx.flags.initial === true)) offer(notice);
    const remote = remotes.length
      ? (await import('../notify/hosts.js')).notifyHosts(remotes, wanted, ctx.flags.initial === true, {
          env: ctx.env,
          intervalMs: options.interval,
          timeoutMs: hostTimeout,
          // Another machine's session is never this terminal's own: offered straight to the limiter.
          offer: (notice) => {
            const now = Date.now();
            limiter.sweep(now);
            const due = limiter.offer(notice, now);
            if (due) send(due.notices);
            schedule();
          },
          report,
        })
      : undefined;
    watcher?.on('change', (event) => {
      if (event.type !== 'removed') remember(event.record);
      offer(transitions.next(event));
      if (event.type === 'removed') {
        ownSessions.delete(sessionOf(event.record));
        looked.delete(sessionOf(event.record));
      }
    });
    watcher?.on('error', (error: unknown) => report(error instanceof Error ? error.message : String(error)));
    return new Promise<number>((resolve) => {
      let endLifetime = () => {};
      let stopped = false;
      stop = () => {
        if (stopped) return;
        stopped = true;
        endLifetime();
        clearTimeout(timer);
        lines.close();
        errors.flushFor(200);
        outputs.close();
        watcher?.close();
        remote?.close();
        sender.close();
        resolve(0);
      };
      // With --host there is no local watcher and no line-file folder (refused above): only the login tie applies.
      endLifetime = startWatcherLifetime(ctx.flags, ctx.env, watcher ?? new EventEmitter(), outputs.lineDir, report, (why) => {
        report(`ending: ${why}`);
        stop();
      });
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      process.once('SIGHUP', stop);
      watchHangup(1, stop);
    });
  },
};
