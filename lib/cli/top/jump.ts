/**
 * Enter in `top`: bring the selected session's terminal to the front. Inside tmux that is the pane
 * whose tty is the session's controlling terminal (docs/top.md): `select-window` and `select-pane` in
 * this client's own session, `switch-client` into another. Elsewhere, or when no pane has that tty,
 * the answer is a sentence saying how to reach it. Only a provably alive local record is looked up: a
 * PID of another PID space, or one that cannot be verified, may be a different process's terminal.
 *
 * tmux runs asynchronously, every call inside one budget (JUMP_BUDGET_MS in all): a tmux server that
 * hangs (stopped, or stuck on a dead client) costs the view that long and a footer line saying so,
 * never a frozen screen.
 */
import { execFile } from 'node:child_process';
import type { SessionRecord } from '../../registry/types.js';
import { isTerminal, terminalOf, type TerminalOf } from '../terminal-of.js';
import { shellWord } from '../../hosts/reader-text.js';
import { sanitise } from '../statusline/view.js';

export interface Pane {
  id: string;
  tty: string;
  session: string;
  window: string;
}

/** All the tmux calls of one jump together, in ms. */
export const JUMP_BUDGET_MS = 2000;

/** `tmux list-panes -a` lines: pane id, tty, session name, window id, tab-separated. */
export function parsePanes(text: string): Pane[] {
  const panes: Pane[] = [];
  for (const line of text.split('\n')) {
    const [id, tty, window, ...session] = line.split('\t');
    if (!id?.startsWith('%') || !tty?.startsWith('/dev/') || !window?.startsWith('@')) continue;
    panes.push({ id, tty, window, session: session.join('\t') });
  }
  return panes;
}

class TmuxFailed extends Error {}

/** Runs tmux within what is left of `deadline`; rejects with a one-line reason. */
function tmux(args: string[], env: NodeJS.ProcessEnv, deadline: number): Promise<string> {
  const left = deadline - Date.now();
  if (left <= 0) return Promise.reject(new TmuxFailed(`no answer within ${JUMP_BUDGET_MS / 1000} s`));
  return new Promise((resolve, reject) => {
    // Our own child, ended by its PID (SIGKILL: a stopped tmux client ignores SIGTERM until continued).
    execFile('tmux', args, { env, encoding: 'utf8', timeout: left, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const e = error as NodeJS.ErrnoException & { killed?: boolean };
      if (e.killed) return reject(new TmuxFailed(`no answer within ${JUMP_BUDGET_MS / 1000} s (tmux hung; ended it)`));
      reject(new TmuxFailed(sanitise(String(stderr || e.message).split('\n')[0], 120)));
    });
  });
}

const reason = (e: unknown) => (e instanceof TmuxFailed ? e.message : sanitise(String((e as Error)?.message ?? e), 120));

/** Jumps to the session's pane, or says why not; the answer is one line for the footer. */
export async function jumpTo(record: SessionRecord, env: NodeJS.ProcessEnv, findTerminal: (pid: number) => TerminalOf | undefined = terminalOf): Promise<string> {
  const who = `pid ${record.pid}`;
  if (record.verdict !== 'alive') return `${who} is ${record.verdict}: its terminal cannot be told for sure`;
  const terminal = findTerminal(record.pid);
  const recorded = record.tmux ? sanitise(record.tmux, 80) : '';
  if (!env.TMUX) {
    // A command a person may paste into a shell: single-quoted, so that a recorded `$(...)` or
    // backquote is a name, never run (JSON's double quotes leave both live).
    if (recorded) return `${who} runs in tmux pane ${recorded}: tmux attach -t ${shellWord(recorded.split(':')[0]!)}`;
    return terminal?.path ? `${who} runs on ${terminal.path} (not inside tmux: switch to that terminal)` : `${who}: not inside tmux, and its terminal is unknown`;
  }
  if (!terminal) return `${who}: its controlling terminal cannot be read`;
  const deadline = Date.now() + JUMP_BUDGET_MS;
  let panes: Pane[];
  try {
    panes = parsePanes(await tmux(['list-panes', '-a', '-F', '#{pane_id}\t#{pane_tty}\t#{window_id}\t#{session_name}'], env, deadline));
  } catch (e) {
    return `${who}: tmux list-panes failed: ${reason(e)}`;
  }
  const pane = panes.find((p) => isTerminal(p.tty, terminal));
  if (!pane) {
    const where = terminal.path ? ` (it runs on ${terminal.path})` : '';
    return `${who} is in no pane of this tmux server${where}${recorded ? `; it recorded ${recorded}` : ''}`;
  }
  try {
    const [mine, theirs] = await Promise.all([
      tmux(['display-message', '-p', '#{session_id}'], env, deadline),
      tmux(['display-message', '-p', '-t', pane.id, '#{session_id}'], env, deadline),
    ]);
    if (mine.trim() === theirs.trim()) {
      await tmux(['select-window', '-t', pane.window], env, deadline);
      await tmux(['select-pane', '-t', pane.id], env, deadline);
    } else await tmux(['switch-client', '-t', pane.id], env, deadline);
  } catch (e) {
    return `${who} is in pane ${pane.id} (session ${sanitise(pane.session, 40)}), but tmux failed: ${reason(e)}`;
  }
  return `${who}: switched to pane ${pane.id} (session ${sanitise(pane.session, 40)})`;
}
