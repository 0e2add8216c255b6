/**
 * How `notify` reaches a person (docs/top.md): libnotify's `notify-send` on a Linux desktop,
 * `osascript` on macOS, or an escape sequence the terminal turns into a notification (OSC 9, or OSC
 * 777 for terminals that speak that one). Text reaches a program as arguments (never through a shell
 * or an AppleScript string) and a terminal only after sanitising: no control character can end the
 * sequence early.
 */
import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, openSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { sanitise } from '../statusline/view.js';
import { Drain } from '../nonblocking.js';

export const VIAS = ['notify-send', 'osascript', 'osc'] as const;
export type Via = (typeof VIAS)[number];

export interface Message {
  title: string;
  body: string;
}

export interface Sender {
  /** What serves: `notify-send`, `osascript`, `osc9` or `osc777`. */
  readonly name: string;
  send(message: Message): void;
  close(): void;
}

export function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** OSC 777 where the terminal is known to show it (rxvt-unicode, foot, VTE-based); OSC 9 elsewhere. */
export function oscKind(env: NodeJS.ProcessEnv): 'osc9' | 'osc777' {
  const term = env.TERM ?? '';
  return term.startsWith('rxvt') || term.startsWith('foot') || env.VTE_VERSION ? 'osc777' : 'osc9';
}

/** The sequence for one message; inside tmux wrapped so that tmux passes it to the outer terminal. */
export function oscSequence(kind: 'osc9' | 'osc777', m: Message, inTmux: boolean): string {
  // ';' separates OSC 777's fields; sanitise() has removed every control character.
  const clean = (s: string) => sanitise(s, 200).replace(/;/g, ',');
  const osc = kind === 'osc9' ? `\x1b]9;${clean(`${m.title}: ${m.body}`)}\x1b\\` : `\x1b]777;notify;${clean(m.title)};${clean(m.body)}\x1b\\`;
  return inTmux ? `\x1bPtmux;${osc.replace(/\x1b/g, '\x1b\x1b')}\x1b\\` : osc;
}

/** At most this many notifier processes at once; more are dropped with a report, never queued without end. */
const IN_FLIGHT_MAX = 4;
const CHILD_TIMEOUT_MS = 10_000;

function programSender(name: string, file: string, argv: (m: Message) => string[], env: NodeJS.ProcessEnv, report: (line: string) => void): Sender {
  const running = new Set<ReturnType<typeof spawn>>();
  return {
    name,
    send(m) {
      if (running.size >= IN_FLIGHT_MAX) return report(`${name}: ${running.size} still running; one notification dropped`);
      let child: ReturnType<typeof spawn>;
      try {
        child = spawn(file, argv(m), { env, stdio: 'ignore' });
      } catch (e) {
        return report(`${name}: ${(e as Error).message}`);
      }
      running.add(child);
      // Our own child, ended by its PID if it hangs (a notification daemon that never answers).
      const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
      timer.unref();
      const settle = () => {
        clearTimeout(timer);
        running.delete(child);
      };
      // A child that could not start (ENOENT, EAGAIN, EMFILE) gets 'error' and never 'exit': it must
      // leave `running` too, or four failures would drop every notification after them.
      child.on('error', (e) => {
        settle();
        report(`${name}: ${e.message}`);
      });
      child.on('exit', (code, signal) => {
        settle();
        if (code !== 0) report(`${name} ended with ${signal ?? `exit ${code}`}`);
      });
    },
    close() {
      for (const child of running) child.unref();
    },
  };
}

function terminalSender(kind: 'osc9' | 'osc777', env: NodeJS.ProcessEnv, report: (line: string) => void): Sender {
  // A description of our own on the terminal, non-blocking (lib/cli/nonblocking.ts): a terminal that
  // does not drain must not park the watcher. A sequence cut short is finished first (else the
  // terminal would read what follows as the notification's text); one that finds it behind is dropped.
  const fd = openSync('/dev/tty', constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  let out: Drain | undefined = new Drain(fd);
  return {
    name: kind,
    send(m) {
      if (!out) return;
      if (out.behind > 0) return report(`${kind}: the terminal is not reading; one notification dropped`);
      out.write(oscSequence(kind, m, Boolean(env.TMUX)));
      if (out.failed) {
        report(`${kind}: the terminal is gone (${out.failed.message})`);
        closeSync(fd);
        out = undefined;
      }
    },
    close() {
      if (!out) return;
      out.flushFor(200);
      closeSync(fd);
      out = undefined;
    },
  };
}

/**
 * The body of a desktop notification is markup to the server (the Desktop Notifications spec's
 * `body-markup`: `<a href>`, `<img src>`, `<b>`; GNOME, KDE, dunst, mako), so record text that holds
 * `<` or `&` would become a link, an image or a body the server cannot parse. The summary is plain text.
 */
export function markupEscaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const hasDesktop = (env: NodeJS.ProcessEnv) => Boolean(env.DBUS_SESSION_BUS_ADDRESS || env.DISPLAY || env.WAYLAND_DISPLAY);

/** The sender `--via` names, or the one this machine and terminal call for. Throws when there is none. */
export function chooseSender(via: Via | undefined, env: NodeJS.ProcessEnv, report: (line: string) => void, platform = process.platform): Sender {
  const notifySend = () => {
    const file = onPath('notify-send', env);
    if (!file) throw new Error('notify-send is not on PATH (install libnotify-bin, or use --via osc)');
    return programSender('notify-send', file, (m) => ['--app-name=claude-ps', '--', m.title, markupEscaped(m.body)], env, report);
  };
  const osascript = () => {
    const file = onPath('osascript', env);
    if (!file) throw new Error('osascript is not on PATH');
    const script = ['on run argv', 'display notification (item 2 of argv) with title (item 1 of argv)', 'end run'];
    return programSender('osascript', file, (m) => [...script.flatMap((line) => ['-e', line]), m.title, m.body], env, report);
  };
  const osc = () => {
    try {
      return terminalSender(oscKind(env), env, report);
    } catch (e) {
      throw new Error(`no terminal to send OSC notifications to (${(e as Error).message})`);
    }
  };
  if (via === 'notify-send') return notifySend();
  if (via === 'osascript') return osascript();
  if (via === 'osc') return osc();
  if (platform === 'darwin' && onPath('osascript', env)) return osascript();
  if (platform !== 'darwin' && hasDesktop(env) && onPath('notify-send', env)) return notifySend();
  try {
    return osc();
  } catch {
    throw new Error('no way to notify here: no notify-send with a desktop session, no osascript, no terminal (see --via)');
  }
}
