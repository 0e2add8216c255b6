/**
 * `claude-ps statusline`: the line Claude Code's statusLine shows, about the *other* live sessions
 * (docs/statusline.md). Claude Code starts it on every render, so it never hangs on stdin, never prints
 * a stack and always exits 0: a problem is one line on stderr and, at worst, an empty statusline.
 */
import { errorSentence } from '../../registry/system-error.js';
import { readdirSync } from 'node:fs';
import { resolveSessionsDirs } from '../../registry/config.js';
import { scanRegistry } from '../../registry/read/scan.js';
import { skipNote, skipsJson } from '../skips.js';
import type { Command } from '../command.js';
import { err, out, outJson } from '../output.js';
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

async function render(ctx: Parameters<Command['run']>[0]): Promise<void> {
  const template = parseStatuslineTemplate(typeof ctx.flags.format === 'string' ? ctx.flags.format : DEFAULT_FORMAT);
  const problems: string[] = [];
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
  const view = viewFor(records, self.records);
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
      skipped: skipsJson(scan.skipped),
    };
    outJson(json);
  } else if (text !== '') out(text + '\n');
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

--format TEMPLATE (default {others}): the keys of \`summary --format\` (every session), plus
  {others.KEY}   the same counts for the other sessions only, e.g. {others.busy}, {others.summary}
  {others}       the default line          {waiters}   the waiting others: "api-3f (permission prompt)"
  {self.status} {self.waitingFor} {self.name}   this session's own record ('' when unknown)
  {key:TEXT} prints TEXT with # replaced by the value, only when it is not 0 or ''.
  e.g. --format '{others.waiting:⏳#}{others.busy: ⚡#}{self.status: (#)}'

--json prints {"text", "self": {"by", "pid", "sessionId", "status"}, "all": COUNTS, "others": COUNTS,
"waiters": [{"pid", "label", "waitingFor"}], "skipped": [{"path", "pid", "reason", "error"}...]}.`,
  flags: {
    format: { type: 'string', short: 'f', value: 'TEMPLATE', help: 'template for the line (see above)' },
  },
  async run(ctx) {
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
