import { writeSync } from 'node:fs';
import { lazyBuiltin } from '../runtime.js';
import { printable } from './format.js';
import { displayWidth } from './width.js';
import { jsonText } from '../registry/json-text.js';

/**
 * Output for the CLI: colour as --color, FORCE_COLOR, NO_COLOR and the terminal say, tables aligned
 * in display columns, and writes that survive a reader that goes away (`claude-ps list | head -1`
 * must not crash with EPIPE).
 */

export interface Paint {
  readonly enabled: boolean;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export const COLOR_MODES = ['auto', 'always', 'never'] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

/**
 * Whether to colour, where that does not depend on the terminal; undefined: colour if stdout is one.
 * The command line wins (`--color=always|never`, as in ls, grep, ripgrep); then FORCE_COLOR, read as
 * Node and chalk read it (empty, `1`, `2`, `3` or `true` forces colour on, `0` or `false` off, any
 * other value is ignored); then https://no-color.org (NO_COLOR present and non-empty: off); then
 * `TERM=dumb` (off).
 */
export function colourChoice(env: NodeJS.ProcessEnv, mode: ColorMode = 'auto'): boolean | undefined {
  if (mode !== 'auto') return mode === 'always';
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (['', '1', '2', '3', 'true'].includes(force)) return true;
    if (force === '0' || force === 'false') return false;
  }
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return undefined;
}

/**
 * Whether fd 1 is a terminal that shows colour. node:tty loads the net stack, so only commands that
 * colour ask. On Windows the CLI writes to fd 1 directly, and a console (conhost) interprets escape
 * sequences only once something has switched it to virtual-terminal processing: asking for
 * process.stdout makes libuv do that where Windows can, and its hasColors() says whether it could
 * (Windows Terminal always can; a console that cannot gets no colour rather than raw escapes).
 */
export async function stdoutIsTTY(platform: NodeJS.Platform = process.platform): Promise<boolean> {
  if (!tty().isatty(1)) return false;
  if (platform !== 'win32') return true;
  const stream = process.stdout as { hasColors?: () => boolean };
  return typeof stream.hasColors === 'function' ? stream.hasColors() : false;
}

const tty = lazyBuiltin<typeof import('node:tty')>('node:tty');

function sgr(open: number, close: number, enabled: boolean): (s: string) => string {
  return enabled ? (s) => `\x1b[${open}m${s}\x1b[${close}m` : (s) => s;
}

export function makePaint(enabled: boolean): Paint {
  return {
    enabled,
    red: sgr(31, 39, enabled),
    green: sgr(32, 39, enabled),
    yellow: sgr(33, 39, enabled),
    dim: sgr(2, 22, enabled),
    bold: sgr(1, 22, enabled),
  };
}

/** A table cell: its text, and how to colour it (applied after padding, so widths stay right). */
export type Cell = string | { text: string; paint?: (s: string) => string };

/**
 * Left-aligned columns separated by two spaces, measured in display columns (a CJK name or an emoji
 * takes two); the last column is not padded. Every cell is passed through `printable` first.
 */
export function table(header: readonly string[], rows: readonly (readonly Cell[])[], paint: Paint): string {
  const text = (c: Cell) => printable(typeof c === 'string' ? c : c.text);
  const lines = [header, ...rows].map((row) =>
    row.map((cell) => {
      const t = text(cell);
      return { cell, text: t, width: displayWidth(t) };
    }),
  );
  const widths: number[] = [];
  for (const line of lines) line.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.width)));
  const draw = (cells: (typeof lines)[number], head: boolean) =>
    cells
      .map(({ cell, text: t, width }, i) => {
        const padded = i === cells.length - 1 ? t : t + ' '.repeat(widths[i]! - width);
        if (head) return paint.bold(padded);
        return typeof cell !== 'string' && cell.paint ? cell.paint(padded) : padded;
      })
      .join('  ')
      .trimEnd();
  return lines.map((cells, i) => draw(cells, i === 0)).join('\n') + '\n';
}

export { jsonText } from '../registry/json-text.js';

// Writes go straight to file descriptors 1 and 2: creating `process.stdout` (a stream, plus the net
// and tty machinery behind it) costs several times what this whole CLI does for `count`, and a
// statusline pays start-up on every render.
let exiting = false;
const pause = new Int32Array(new SharedArrayBuffer(4));

function writeAll(fd: number, text: string): void {
  if (exiting) return;
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A non-blocking pipe that is full: wait a moment for the reader, then go on.
      if (code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 2);
        continue;
      }
      // The reader went away (`claude-ps list | head -1`): end quietly, as `cat` would.
      if (code === 'EPIPE' && fd === 1) {
        exiting = true;
        process.exit(process.exitCode ?? 0);
      }
      throw error;
    }
  }
}

export function out(text: string): void {
  writeAll(1, text);
}

/**
 * An aside or an error line on stderr. One that cannot be written (stderr closed, on a full disk, its
 * reader gone) is dropped: it must cost neither the answer on stdout nor the exit code, and there is
 * nowhere else to say it.
 */
export function err(text: string): void {
  try {
    writeAll(2, text);
  } catch {
    // nowhere to say it
  }
}

/** One JSON document (or NDJSON line) on stdout, under the package's one escaping rule. */
export function outJson(value: unknown): void {
  writeAll(1, jsonText(value) + '\n');
}
