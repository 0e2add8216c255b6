import { writeSync } from 'node:fs';
import { lazyBuiltin } from '../runtime.js';

/**
 * Output for the CLI: colour only on a TTY and never with NO_COLOR, aligned tables, and writes that
 * survive a reader that goes away (`cc-sessions list | head -1` must not crash with EPIPE).
 */

export interface Paint {
  readonly enabled: boolean;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

/** https://no-color.org: NO_COLOR present and non-empty turns colour off, whatever the terminal. */
export function colourWanted(isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

/** Whether fd 1 is a terminal. node:tty loads the net stack, so only commands that colour ask. */
export async function stdoutIsTTY(): Promise<boolean> {
  return tty().isatty(1);
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

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly Cell[])[], paint: Paint): string {
  const widths = header.map((h) => h.length);
  const text = (c: Cell) => (typeof c === 'string' ? c : c.text);
  for (const row of rows) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, text(c).length)));
  const line = (cells: readonly Cell[], head: boolean) =>
    cells
      .map((c, i) => {
        const t = text(c);
        const padded = i === cells.length - 1 ? t : t.padEnd(widths[i]!);
        if (head) return paint.bold(padded);
        return typeof c !== 'string' && c.paint ? c.paint(padded) : padded;
      })
      .join('  ')
      .trimEnd();
  return [line(header, true), ...rows.map((r) => line(r, false))].join('\n') + '\n';
}

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
      // The reader went away (`cc-sessions list | head -1`): end quietly, as `cat` would.
      if (code === 'EPIPE') {
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

export function err(text: string): void {
  writeAll(2, text);
}
