/**
 * `claude-ps statusline`: the line Claude Code's statusLine shows, about the *other* live sessions
 * (docs/statusline.md). Claude Code starts it on every render, so it never hangs on stdin, never prints
 * a stack and always exits 0: a problem is one line on stderr and, at worst, an empty statusline.
 */
import { errorSentence } from '../../registry/system-error.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfigDir, resolveSessionsDirs } from '../../registry/config.js';
import { scanRegistry } from '../../registry/read/scan.js';
import { skipNote, skipsJson } from '../skips.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { err, out, outJson } from '../output.js';
import { autostartWatcher, DEFAULT_IDLE_EXIT_S } from '../statusline/autostart.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import type { HostPart } from '../statusline/hosts-line.js';
import { findSelf } from '../statusline/self.js';
import { readStdinDocument } from '../statusline/stdin.js';
import { DEFAULT_FORMAT, parseStatuslineTemplate, renderStatusline } from '../statusline/template.js';
import { viewFor } from '../statusline/view.js';

function say(problem: string): void {
  try {
    err(`claude-ps statusline: ${problem}\n`);
  } catch {
    // stderr closed too: nothing left to tell
  }
}

/** The reader takes a folder it cannot list for an empty one; a statusline says why it is empty. */
function unlistable(ctx: Parameters<Command['run']>[0]): string | undefined {
  for (const dir of resolveSessionsDirs(ctx.configDirs, ctx.env)) {
    try {
      readdirSync(dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return `cannot list ${dir} (${code ?? String(error)})`;
    }
  }
  return undefined;
}

/** The statusline's own wait for other hosts (`--host`): a render must not hang on one. */
const HOST_TIMEOUT_S = 3;

/** `--host NAME…`: the other hosts' parts, read over ssh while this machine's registry is scanned. */
async function readOtherHosts(ctx: Parameters<Command['run']>[0]): Promise<{ remotes: string[]; parts: () => Promise<HostPart[]> }> {
  const { requestedHosts, hostTimeoutMs } = await import('../hosts/options.js');
  const { readHosts, LOCAL_HOST } = await import('../../hosts/read.js');
  const { hostPart } = await import('../statusline/hosts-line.js');
  const remotes = (requestedHosts(ctx) ?? []).filter((h) => h !== LOCAL_HOST);
  const timeoutMs = hostTimeoutMs(ctx) ?? HOST_TIMEOUT_S * 1000;
  const reading = remotes.length > 0 ? readHosts(remotes, { env: ctx.env, timeoutMs }) : Promise.resolve([]);
  return { remotes, parts: async () => (await reading).map((s) => hostPart(s.host, s.state, s.records)) };
}

async function render(ctx: Parameters<Command['run']>[0]): Promise<void> {
  const template = parseStatuslineTemplate(typeof ctx.flags.format === 'string' ? ctx.flags.format : DEFAULT_FORMAT);
  const problems: string[] = [];
  const others = wantsHosts(ctx.flags) ? await readOtherHosts(ctx) : undefined;
  const scan = scanRegistry(ctx.configDirs, { env: ctx.env });
  const { records } = scan;
  const unreadable = records.length === 0 ? unlistable(ctx) : undefined;
  if (unreadable) problems.push(unreadable);
  // Still one line in all (the statusline's rule): the candidates it could not read go into it.
  const skipped = skipNote(scan.skipped);
  if (skipped) problems.push(skipped);
  let self = findSelf(records, ctx.env, undefined);
  // The document is read only when CLAUDE_PID did not settle it (its session_id is all we use):
  // Claude Code's stdin is a socket, and reading one without blocking loads node:net, ~10% of start-up.
  if (self.by !== 'CLAUDE_PID') {
    const stdin = await readStdinDocument();
    if (stdin.problem) problems.push(stdin.problem);
    const sessionId = stdin.document?.session_id;
    self = findSelf(records, ctx.env, typeof sessionId === 'string' ? sessionId : undefined);
  }
  if (self.problem) problems.push(self.problem);
  const view = viewFor(records, self.records, others ? await others.parts() : []);
  const text = renderStatusline(template, view);
  if (problems.length > 0) say(problems.join('; '));
  if (ctx.json) {
    const own = view.self;
    const json = {
      text,
      self: { by: self.by, pid: own?.pid ?? null, sessionId: own?.sessionId ?? null, status: own?.status ?? null },
      all: view.all,
      others: view.others,
      waiters: view.waiters,
      hosts: view.hosts,
      skipped: skipsJson(scan.skipped),
    };
    outJson(json);
  } else if (text !== '') out(text + '\n');
  // After the line is out: this render is answered the slow way, the next ones by the line file.
  // Not for --format or --json: the watcher's files hold the default line, which such a caller never shows.
  if (self.records.length > 0 && ctx.flags.format === undefined && !ctx.json) {
    const notify = ctx.flags.notify === true;
    const started = await autostartWatcher({
      env: ctx.env,
      sessionsDirs: resolveSessionsDirs(ctx.configDirs, ctx.env),
      disabled: ctx.flags['no-autostart'] === true,
      idleExitSeconds: ctx.flags['idle-exit'] as number | undefined,
      notify,
      hosts: others?.remotes,
      hostTimeoutSeconds: ctx.flags['host-timeout'] as number | undefined,
    });
    if (started.state === 'refused') say(started.problem);
    if (started.state === 'started' && notify && !started.notifies) {
      say(others?.remotes.length ? '--notify: not with --host (notify reads this machine only); the watcher does not notify' : '--notify: no desktop notifier here (notify-send with a desktop session, osascript); the watcher does not notify');
    }
  }
}

/** `--install` / `--uninstall` / `--snippet`: an ordinary command (exit 1 with one line when it refuses), not a render. */
async function install(ctx: Parameters<Command['run']>[0]): Promise<number> {
  const { InstallError, installStatusLine, uninstallStatusLine } = await import('../statusline/install.js');
  const { shellWord } = await import('../statusline/snippet.js');
  const { selfCommand } = await import('../statusline/autostart.js');
  if (ctx.flags.install === true && ctx.flags.uninstall === true) throw new UsageError('--install and --uninstall together');
  if (ctx.flags.force === true && ctx.flags.install !== true) throw new UsageError('--force needs --install');
  if ((ctx.configDirs?.length ?? 0) > 1) throw new UsageError('--install: one --config-dir at most');
  const path = join(ctx.configDirs?.[0] ?? defaultConfigDir(ctx.env), 'settings.json');
  const { node, script } = selfCommand();
  const claudePs = `${shellWord(node)} ${shellWord(script)}`;
  if (ctx.flags.snippet === true) {
    const { statusLineSetting } = await import('../statusline/snippet.js');
    outJson(statusLineSetting(claudePs, { notify: ctx.flags.notify === true }));
    return 0;
  }
  try {
    const result = ctx.flags.install === true
      ? installStatusLine(path, claudePs, ctx.flags.force === true, { notify: ctx.flags.notify === true })
      : uninstallStatusLine(path);
    if (ctx.json) outJson(result);
    else {
      const said = { installed: 'statusLine written to', unchanged: 'statusLine already in', uninstalled: 'statusLine removed from', absent: 'no statusLine in' }[result.action];
      out(`${said} ${result.path}${result.backup ? ` (the previous file is ${result.backup})` : ''}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof InstallError) {
      err(`claude-ps statusline: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

export const statusline: Command = {
  name: 'statusline',
  summary: "Claude Code's statusLine: what the other sessions are doing",
  usage: 'statusline [--format TEMPLATE] [options]',
  plain: true,
  details: `
For a statusLine command in Claude Code's settings.json. Prints one line about the other live
sessions, e.g. "⏳ api-3f (permission prompt) · 2 busy", and nothing when no other session runs.
This session is found by $CLAUDE_PID (which Claude Code sets), else by the session id (the stdin
document's session_id, else $CLAUDE_CODE_SESSION_ID). stdin is read only when $CLAUDE_PID does not
find the session, only from a pipe, socket or file (never a terminal), at most 1 MiB, for at most
80 ms. A problem (candidates it could not read included) is one line on stderr.

When it renders the default line for a session and no watcher keeps the default line-file folder
($XDG_RUNTIME_DIR/claude-ps, else $TMPDIR/claude-ps-UID), it starts one (\`claude-ps watch
--statusline-dir DIR --idle-exit S\`, detached), at most once per 5 s; the settings snippet of
\`statusline --install\` then renders the line file. --no-autostart or CLAUDE_PS_NO_AUTOSTART=1 turn
it off; --idle-exit S (or CLAUDE_PS_IDLE_EXIT) sets how long it stays with no live session.
With --notify the watcher it starts is \`claude-ps notify --statusline-dir …\` instead: one process
keeps the line files and sends a desktop notification when a session starts waiting (a running
watcher is left as it is; \`doctor\` says whether it notifies). \`--install --notify\` puts --notify
in the snippet.

--format TEMPLATE (default {others}): the keys of \`summary --format\` (every session), plus
  {others.KEY}   the same counts for the other sessions only, e.g. {others.busy}, {others.summary}
  {others}       the default line          {waiters}   the waiting others: "api-3f (permission prompt)"
  {hosts}        other hosts (--host): "box2: ⏳ web-1 (permission prompt)", "box3: unreachable"
  {self.status} {self.waitingFor} {self.name}   this session's own record ('' when unknown)
  {key:TEXT} prints TEXT with # replaced by the value, only when it is not 0 or ''.
  e.g. --format '{others.waiting:⏳#}{others.busy: ⚡#}{self.status: (#)}'

--host NAME (repeatable; --all-hosts: the hosts file) adds the other hosts to the line: each one's
waiting sessions, or why it could not be read ("box2: unreachable"; never "none waiting" on a
guess), read over ssh within --host-timeout (default ${HOST_TIMEOUT_S} s here); the watcher it starts
gets the same list. A running watcher is used as it is, whatever hosts it serves (see \`doctor\`).

--json prints {"text", "self": {"by", "pid", "sessionId", "status"}, "all": COUNTS, "others": COUNTS,
"waiters": [{"pid", "label", "waitingFor"}], "hosts": [{"host", "state", "waiters"}], "skipped": [{"path", "pid", "reason", "error"}...]}.`,
  flags: {
    format: { type: 'string', short: 'f', value: 'TEMPLATE', help: 'template for the line (see above)' },
    install: { type: 'boolean', help: 'write the statusLine snippet into the config dir\'s settings.json' },
    uninstall: { type: 'boolean', help: 'remove the snippet from settings.json' },
    force: { type: 'boolean', help: 'with --install: replace a statusLine that is not the snippet' },
    snippet: { type: 'boolean', help: 'print the statusLine setting --install writes' },
    'no-autostart': { type: 'boolean', help: 'do not start the line-file watcher (also CLAUDE_PS_NO_AUTOSTART=1)' },
    'idle-exit': { type: 'integer', value: 'S', help: `an autostarted watcher ends after S s with no live session (default ${DEFAULT_IDLE_EXIT_S})` },
    ...HOST_FLAGS,
    // A render always exits 0: a host that gives no answer is said on the line, not by an exit code.
    host: { ...HOST_FLAGS.host!, help: "also show NAME's waiting sessions, read over ssh (an alias or user@host), repeatable" },
    'host-timeout': { ...HOST_FLAGS['host-timeout']!, help: `per host, the whole read over ssh (default ${HOST_TIMEOUT_S} here)` },
    notify: { type: 'boolean', help: 'the autostarted watcher also sends desktop notifications (`notify`); with --install: in the snippet' },
  },
  async run(ctx) {
    if (ctx.flags.install === true || ctx.flags.uninstall === true || ctx.flags.snippet === true) return install(ctx);
    // Whatever happens after this point, the exit code is 0 and stderr gets one line, no stack.
    process.on('uncaughtException', (error) => {
      say(errorSentence(error));
      process.exit(0);
    });
    try {
      await render(ctx);
    } catch (error) {
      say(errorSentence(error));
    }
    return 0;
  },
};
