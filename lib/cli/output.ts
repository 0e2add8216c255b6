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
export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

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

let exiting = false;

/**
 * Makes stdout and stderr safe to write to a pipe whose reader has gone: EPIPE ends the process
 * quietly (exit 0 unless an exit code was already set) instead of an uncaught 'error' event.
 */
export function installPipeGuards(): void {
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') {
      if (!exiting) {
        exiting = true;
        process.exit(process.exitCode ?? 0);
      }
      return;
    }
    throw err;
  };
  process.stdout.on('error', onError);
  process.stderr.on('error', onError);
}

export function out(text: string): void {
  if (!exiting) process.stdout.write(text);
}

export function err(text: string): void {
  if (!exiting) process.stderr.write(text);
}
