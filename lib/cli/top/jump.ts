/**
 * Enter in `top`: bring the selected session's terminal to the front. Inside tmux that is the pane
 * whose tty is the session's controlling terminal (docs/top.md): `select-window` and `select-pane` in
 * this client's own session, `switch-client` into another. Elsewhere, or when no pane has that tty,
 * the answer is a sentence saying how to reach it. Only a provably alive local record is looked up: a
 * PID of another PID space, or one that cannot be verified, may be a different process's terminal.
 */
import { execFileSync } from 'node:child_process';
import type { SessionRecord } from '../../registry/types.js';
import { isTerminal, terminalOf } from '../terminal-of.js';
import { shellWord } from '../../hosts/reader-text.js';
import { sanitise } from '../statusline/view.js';

export interface Pane {
  id: string;
  tty: string;
  session: string;
  window: string;
}

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

function tmux(args: string[], env: NodeJS.ProcessEnv): string {
  return execFileSync('tmux', args, { env, encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'pipe'] });
}

const firstLine = (e: unknown) => sanitise(String((e as { stderr?: string }).stderr || (e as Error).message).split('\n')[0], 120);

/** Jumps to the session's pane, or says why not; the answer is one line for the footer. */
export function jumpTo(record: SessionRecord, env: NodeJS.ProcessEnv): string {
  const who = `pid ${record.pid}`;
  if (record.verdict !== 'alive') return `${who} is ${record.verdict}: its terminal cannot be told for sure`;
  const terminal = terminalOf(record.pid);
  const recorded = record.tmux ? sanitise(record.tmux, 80) : '';
  if (!env.TMUX) {
    // A command a person may paste into a shell: single-quoted, so that a recorded `$(...)` or
    // backquote is a name, never run (JSON's double quotes leave both live).
    if (recorded) return `${who} runs in tmux pane ${recorded}: tmux attach -t ${shellWord(recorded.split(':')[0]!)}`;
    return terminal?.path ? `${who} runs on ${terminal.path} (not inside tmux: switch to that terminal)` : `${who}: not inside tmux, and its terminal is unknown`;
  }
  if (!terminal) return `${who}: its controlling terminal cannot be read`;
  let panes: Pane[];
  try {
    panes = parsePanes(tmux(['list-panes', '-a', '-F', '#{pane_id}\t#{pane_tty}\t#{window_id}\t#{session_name}'], env));
  } catch (e) {
    return `${who}: tmux list-panes failed: ${firstLine(e)}`;
  }
  const pane = panes.find((p) => isTerminal(p.tty, terminal));
  if (!pane) {
    const where = terminal.path ? ` (it runs on ${terminal.path})` : '';
    return `${who} is in no pane of this tmux server${where}${recorded ? `; it recorded ${recorded}` : ''}`;
  }
  try {
    const mine = tmux(['display-message', '-p', '#{session_id}'], env).trim();
    const theirs = tmux(['display-message', '-p', '-t', pane.id, '#{session_id}'], env).trim();
    if (mine === theirs) {
      tmux(['select-window', '-t', pane.window], env);
      tmux(['select-pane', '-t', pane.id], env);
    } else tmux(['switch-client', '-t', pane.id], env);
  } catch (e) {
    return `${who} is in pane ${pane.id} (session ${sanitise(pane.session, 40)}), but tmux refused: ${firstLine(e)}`;
  }
  return `${who}: switched to pane ${pane.id} (session ${sanitise(pane.session, 40)})`;
}
