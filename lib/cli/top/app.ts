/**
 * The `top` loop: the library's watcher feeds the records, keys and resizes feed the view state, and
 * every change draws one frame (render.ts) through the terminal (terminal.ts), which rewrites only the
 * lines that differ. Idle, it costs what the watcher costs plus one frame a second (the times in the
 * status column move).
 */
import { isatty } from 'node:tty';
import type { ReadStream, WriteStream } from 'node:tty';
import { pruneWithReport } from '../../registry/prune/prune.js';
import { readRecords } from '../../registry/read/scan.js';
import { watch, type Watcher } from '../../registry/watch/watch.js';
import type { SessionRecord } from '../../registry/types.js';
import { countRecords } from '../counts.js';
import { shellWord } from '../../hosts/reader-text.js';
import { HostFeed, hostsLine } from './hosts.js';
import { printable } from '../format.js';
import { err, type Paint } from '../output.js';
import { jumpTo } from './jump.js';
import { parseKeys, type Key } from './keys.js';
import { renderFrame, scrollTo, type Mode } from './render.js';
import { cellText, SORTS, topRows, type Row, type Sort } from './rows.js';
import { Terminal } from './terminal.js';

export interface TopOptions {
  configDirs: string[];
  env: NodeJS.ProcessEnv;
  interval: number | undefined;
  paint: Paint;
  /** --host / --all-hosts: the hosts to show (`local` among them or not); undefined: this machine only. */
  hosts?: readonly string[];
  /** Per remote host, the whole read over ssh (--host-timeout). */
  hostTimeoutMs?: number;
}

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type Signal = keyof typeof EXIT_CODES;
/** A footer message stays this long, or until the next key. */
const MESSAGE_MS = 8000;
const FILTER_MAX = 64;

export function runTop(options: TopOptions): Promise<number> {
  if (!isatty(0) || !isatty(1)) {
    throw new Error('top needs a terminal on stdin and stdout (for scripts: claude-ps list, or claude-ps watch)');
  }
  const { configDirs, env, paint } = options;
  const input = process.stdin as ReadStream;
  const output = process.stdout as WriteStream;
  const term = new Terminal(input, output);
  const withHosts = options.hosts !== undefined;
  const remotes = (options.hosts ?? []).filter((h) => h !== 'local');
  // With --host, this machine is read only when `local` is among the hosts (as every --host command).
  const watcher: Watcher | undefined = !withHosts || options.hosts!.includes('local') ? watch(configDirs, { env, interval: options.interval }) : undefined;
  const feed = remotes.length > 0 ? new HostFeed(remotes, { env, timeoutMs: options.hostTimeoutMs, intervalMs: options.interval }) : undefined;
  const localRecords = () => watcher?.records() ?? [];

  let sort: Sort = 'waiting';
  let filter = '';
  let mode: Mode = 'normal';
  let message = '';
  let messageAt = 0;
  let selectedKey: string | undefined;
  let offset = 0;
  let rows: Row[] = [];
  let records: SessionRecord[] = [];
  let pending = false;
  /** Whether the prune question is on screen: a `y` typed ahead of it (in the same read as the `p`,
   * or before the frame that asks) answers nothing a person has read, and cancels. */
  let asked = false;

  const say = (text: string) => {
    message = cellText(text, 300);
    messageAt = Date.now();
  };

  const draw = () => {
    pending = false;
    const now = Date.now();
    if (message && now - messageAt > MESSAGE_MS) message = '';
    const local = localRecords();
    records = feed ? [...local, ...feed.records()] : local;
    rows = topRows(records, filter, sort, undefined, withHosts ? 'local' : '');
    let selected = rows.findIndex((r) => r.key === selectedKey);
    if (selected < 0) selected = 0;
    selectedKey = rows[selected]?.key;
    const { width, height } = term.size;
    offset = scrollTo(selected, offset, height - (withHosts ? 4 : 3), rows.length);
    // Dead claims are counted, and pruned, on this machine only.
    const counts = { ...countRecords(records, false), dead: countRecords(local, false).dead };
    const stale = feed ? new Set(remotes.filter((h) => !feed.current(h))) : undefined;
    const hostLine = withHosts ? hostsLine(watcher ? countRecords(local, false) : undefined, feed) : undefined;
    const frame = { rows, counts, selected, offset, sort, filter, mode, message, hostLine, stale };
    term.draw(renderFrame(frame, width, height, paint, now));
    asked = mode === 'confirm';
  };
  const redraw = () => {
    if (pending) return;
    pending = true;
    setImmediate(draw);
  };

  const move = (by: number | 'first' | 'last') => {
    if (rows.length === 0) return;
    const at = Math.max(0, rows.findIndex((r) => r.key === selectedKey));
    const to = by === 'first' ? 0 : by === 'last' ? rows.length - 1 : Math.min(rows.length - 1, Math.max(0, at + by));
    selectedKey = rows[to]!.key;
  };

  const prune = () => {
    try {
      const report = pruneWithReport(readRecords(configDirs, { env }), { configDirs, env });
      const n = report.removed.length;
      const failed = report.failed.length ? `; ${report.failed.length} could not be removed (${report.failed[0]!.reason})` : '';
      say(`pruned ${n} dead claim${n === 1 ? '' : 's'}${failed}`);
    } catch (error) {
      say(`prune failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  let jumping = false;
  const jump = () => {
    const row = rows.find((r) => r.key === selectedKey);
    if (!row) return say('no session selected');
    if (row.host && row.host !== 'local') {
      // Another machine's terminal is not ours to switch to: say how to get there.
      const tmuxName = row.record.tmux ? `, then tmux attach -t ${shellWord(cellText(row.record.tmux, 80).split(':')[0]!)}` : ', then find its terminal there';
      return say(`pid ${row.pid} runs on ${row.host}: ssh ${shellWord(row.host)}${tmuxName}`);
    }
    if (jumping) return say('a jump is still under way');
    jumping = true;
    say(`jumping to pid ${row.pid}…`);
    // Asynchronous and bounded (jump.ts): a hung tmux costs a footer line, never the view.
    void jumpTo(row.record, env)
      .then(say, (error: unknown) => say(`jump failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        jumping = false;
        redraw();
      });
  };

  return new Promise<number>((resolve, reject) => {
    let done = false;
    const page = () => Math.max(1, term.size.height - 4);

    const onKey = (key: Key) => {
      if (key.name === 'interrupt') return finish(0);
      if (mode === 'confirm') {
        mode = 'normal';
        if (!asked) say('prune cancelled: a key came before the question was shown');
        else if (key.name === 'char' && (key.char === 'y' || key.char === 'Y')) prune();
        else say('prune cancelled');
        return;
      }
      if (mode === 'filter') {
        if (key.name === 'enter') mode = 'normal';
        else if (key.name === 'escape') [filter, mode] = ['', 'normal'];
        else if (key.name === 'backspace') filter = Array.from(filter).slice(0, -1).join('');
        else if (key.name === 'char' && filter.length < FILTER_MAX) filter += cellText(key.char, 2);
        else if (key.name === 'up' || key.name === 'down') move(key.name === 'up' ? -1 : 1);
        return;
      }
      message = '';
      if (key.name === 'char') {
        const c = key.char;
        if (c === 'q' || c === 'Q') return finish(0);
        if (c === 'k') move(-1);
        else if (c === 'j') move(1);
        else if (c === 'g') move('first');
        else if (c === 'G') move('last');
        else if (c === '/') mode = 'filter';
        else if (c === 's') sort = SORTS[(SORTS.indexOf(sort) + 1) % SORTS.length]!;
        else if (c === 'p') {
          if (!watcher) return say('prune is local only: add --host local, or run top without --host');
          const dead = countRecords(watcher.records(), false).dead;
          if (dead === 0) say('no dead claims to prune');
          else mode = 'confirm';
        }
        return;
      }
      if (key.name === 'eof') return finish(0);
      if (key.name === 'up') move(-1);
      else if (key.name === 'down') move(1);
      else if (key.name === 'pageup') move(-page());
      else if (key.name === 'pagedown') move(page());
      else if (key.name === 'home') move('first');
      else if (key.name === 'end') move('last');
      else if (key.name === 'escape') filter = '';
      else if (key.name === 'suspend') return suspend();
      else if (key.name === 'enter') jump();
    };

    const onData = (chunk: Buffer | string) => {
      for (const key of parseKeys(typeof chunk === 'string' ? chunk : chunk.toString('utf8'))) {
        if (done) return;
        onKey(key);
      }
      if (!done) redraw();
    };
    const onResize = () => {
      term.invalidate();
      draw();
    };
    const onSignal = (signal: Signal) => () => finish(EXIT_CODES[signal]);
    const signalHandlers = (Object.keys(EXIT_CODES) as Signal[]).map((s) => [s, onSignal(s)] as const);
    const onContinue = () => {
      if (done) return;
      term.reenter();
      term.invalidate();
      draw();
    };
    const suspend = () => {
      term.restore();
      // The default action of SIGTSTP stops us, as Ctrl-Z would outside raw mode, before kill()
      // returns. In an orphaned process group (top as a tmux pane's or `ssh -t`'s own command: no
      // shell to resume it) the kernel discards it instead, and top must not go on with the screen
      // handed back and keys cooked: either way the view is taken again here (SIGCONT does it too).
      process.kill(process.pid, 'SIGTSTP');
      onContinue();
    };
    const onCrash = (error: unknown) => {
      // The screen goes back first, so that the message is read on the shell's own screen.
      term.restore();
      err(`claude-ps: ${printable(error instanceof Error ? error.message : String(error))}\n`);
      if (env.CLAUDE_PS_DEBUG && error instanceof Error && error.stack) err(error.stack + '\n');
      process.exit(1);
    };
    const onExit = () => term.restore();
    const tick = setInterval(draw, 1000);

    function finish(code: number): void {
      if (done) return;
      cleanup();
      resolve(code);
    }
    function cleanup(): void {
      done = true;
      clearInterval(tick);
      watcher?.close();
      feed?.close();
      term.restore();
      input.removeListener('data', onData);
      output.removeListener('resize', onResize);
      for (const [s, h] of signalHandlers) process.removeListener(s, h);
      process.removeListener('SIGCONT', onContinue);
      process.removeListener('uncaughtException', onCrash);
      process.removeListener('unhandledRejection', onCrash);
      process.removeListener('exit', onExit);
      input.pause();
    }

    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    process.on('exit', onExit);
    for (const [s, h] of signalHandlers) process.on(s, h);
    process.on('SIGCONT', onContinue);
    output.on('resize', onResize);
    term.onDrain = () => {
      if (done) return;
      term.invalidate();
      draw();
    };
    watcher?.on('change', redraw);
    feed?.on('change', redraw);
    const onWatchError = (error: unknown) => {
      say(`watch: ${error instanceof Error ? error.message : String(error)}`);
      redraw();
    };
    watcher?.on('error', onWatchError);
    feed?.on('error', onWatchError);
    try {
      term.enter();
      draw(); // the first screen, from the watcher's first synchronous read
      input.on('data', onData);
      input.resume();
    } catch (error) {
      // Thrown here, it would reject this promise rather than reach onCrash: the screen goes back first.
      cleanup();
      reject(error);
      return;
    }
    if (env.CLAUDE_PS_TOP_FAULT === 'throw') {
      // Test-only: an error nobody catches, to prove the terminal is restored on a crash (test/top/).
      setTimeout(() => {
        throw new Error('injected fault (CLAUDE_PS_TOP_FAULT=throw)');
      }, 200);
    }
  });
}
