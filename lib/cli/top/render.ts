/**
 * One frame of `top` as text: exactly `height` lines, each exactly `width` display columns, so that a
 * frame can be drawn line by line over the last one. Pure: state, size, clock and colours in, lines
 * out. Record text arrives already sanitised (rows.ts); here it is only cut to its column.
 */
import type { Paint } from '../output.js';
import { ago, clip } from '../format.js';
import type { Counts } from '../template.js';
import { displayWidth } from '../width.js';
import type { Row, Sort } from './rows.js';

export type Mode = 'normal' | 'filter' | 'confirm';

export interface Frame {
  rows: readonly Row[];
  counts: Counts;
  /** Index of the selected row in `rows`. */
  selected: number;
  /** Index of the first row drawn (scrolling). */
  offset: number;
  sort: Sort;
  filter: string;
  mode: Mode;
  /** The footer's message (a jump's answer, a prune's outcome, a watcher error), or ''. */
  message: string;
  /** With --host: the hosts line under the header (each host's state), and a HOST column. */
  hostLine?: string;
  /** Hosts whose rows are their last answer, not a current one: marked `!`. */
  stale?: ReadonlySet<string>;
}

interface Column {
  head: string;
  /** Columns of the cell; `flex` columns get a share of what is left, at least `width`. */
  width: number;
  flex?: number;
  /** Lower goes first when the terminal is too narrow. */
  keep: number;
  text(row: Row, now: number): string;
  /** Cut from the start (a path keeps its end). */
  fromStart?: boolean;
}

function since(row: Row, now: number): string {
  const t = ago(row.since, now);
  return t && t !== 'now' ? ` ${t}` : t ? ' 0s' : '';
}

const HOST_COLUMN: Column = { head: 'HOST', width: 8, flex: 1, keep: 6, text: (r) => r.host };

const COLUMNS: readonly Column[] = [
  { head: 'NAME', width: 12, flex: 3, keep: 9, text: (r) => r.name },
  { head: 'STATUS', width: 12, keep: 8, text: (r, now) => r.status + since(r, now) },
  { head: 'WAITING FOR', width: 17, keep: 5, text: (r) => r.waitingFor },
  { head: 'KIND', width: 11, keep: 3, text: (r) => r.kind },
  { head: 'PID', width: 7, keep: 7, text: (r) => String(r.pid) },
  { head: 'CWD', width: 10, flex: 3, keep: 4, text: (r) => r.cwd, fromStart: true },
  { head: 'CONFIG', width: 10, flex: 1, keep: 1, text: (r) => r.configDir, fromStart: true },
];

/** Two columns for the selection marker and the verdict mark, then cells one space apart. */
const PREFIX = 2;
/** Below this width the config dir column is left out: it only matters with several dirs. */
const CONFIG_MIN_TERMINAL = 120;

function layout(width: number, withHost: boolean): { column: Column; width: number }[] {
  let cols = COLUMNS.filter((c) => c.head !== 'CONFIG' || width >= CONFIG_MIN_TERMINAL);
  if (withHost) cols = [HOST_COLUMN, ...cols];
  const need = (cs: readonly Column[]) => PREFIX + cs.reduce((n, c) => n + c.width, 0) + cs.length - 1;
  while (cols.length > 1 && need(cols) > width) {
    const drop = cols.reduce((a, b) => (b.keep < a.keep ? b : a));
    cols = cols.filter((c) => c !== drop);
  }
  const spare = Math.max(0, width - need(cols));
  const weights = cols.reduce((n, c) => n + (c.flex ?? 0), 0);
  let given = 0;
  const flexCols = cols.filter((c) => c.flex);
  return cols.map((column) => {
    let w = column.width;
    if (column.flex && weights > 0) {
      const share = column === flexCols[flexCols.length - 1] ? spare - given : Math.floor((spare * column.flex) / weights);
      given += share;
      w += share;
    }
    return { column, width: w };
  });
}

/** `text` cut or padded to exactly `width` columns. */
export function fit(text: string, width: number, fromStart = false): string {
  if (width <= 0) return '';
  const cut = clip(text, width, fromStart);
  return cut + ' '.repeat(Math.max(0, width - displayWidth(cut)));
}

function header(f: Frame, width: number, paint: Paint, now: number): string {
  const c = f.counts;
  const parts = [`${c.waiting} waiting`, `${c.busy} busy`, `${c.idle} idle`];
  if (c.shell) parts.push(`${c.shell} shell`);
  if (c.other) parts.push(`${c.other} other`);
  const counts = ` ${c.live} session${c.live === 1 ? '' : 's'}: ${parts.join(', ')}`;
  const dead = c.dead ? `  ${c.dead} dead claim${c.dead === 1 ? '' : 's'} (p)` : '';
  const sortText = `  sort: ${f.sort}`;
  const clock = `  ${new Date(now).toTimeString().slice(0, 8)} `;
  const title = ' claude-ps top ';
  // What matters most stays when the terminal is narrow: the counts, the dead claims, the sort, the
  // clock, then the title.
  let used = displayWidth(counts) + displayWidth(dead);
  const room = (t: string) => (used + displayWidth(t) <= width ? ((used += displayWidth(t)), t) : '');
  const post = [room(sortText), room(clock)].join('');
  const pre = room(title);
  const left = fit(pre + counts + dead, width - displayWidth(post));
  const line = left + post;
  if (!paint.enabled || !dead) return paint.bold(line);
  // Colour goes on after the cut, so that widths stay right.
  const at = left.indexOf(dead.trim());
  if (at < 0) return paint.bold(line);
  const n = dead.trim().length;
  return paint.bold(line.slice(0, at)) + paint.red(line.slice(at, at + n)) + paint.bold(line.slice(at + n));
}

function footer(f: Frame, width: number, paint: Paint): string {
  let text: string;
  if (f.mode === 'filter') text = ` filter: ${f.filter}_   (Enter keeps it, Esc clears it)`;
  else if (f.mode === 'confirm') {
    text = ` prune ${f.counts.dead} dead claim${f.counts.dead === 1 ? '' : 's'} (their files are removed)? y: yes, any other key: no`;
  } else if (f.message) text = ` ${f.message}`;
  else {
    const filter = f.filter ? `  [filter: ${f.filter}]` : '';
    text = ` q quit  j/k select  / filter  s sort  p prune  Enter jump${filter}`;
  }
  const line = fit(text, width);
  return f.mode === 'confirm' ? paint.yellow(line) : paint.dim(line);
}

const inverse = (paint: Paint) => (paint.enabled ? (s: string) => `\x1b[7m${s}\x1b[27m` : (s: string) => s);

/** The frame's lines: a header, the column heads, the rows that fit, and a footer. */
export function renderFrame(f: Frame, width: number, height: number, paint: Paint, now: number): string[] {
  if (width <= 0 || height <= 0) return [];
  const withHost = f.hostLine !== undefined;
  const cols = layout(width, withHost);
  const lines = [header(f, width, paint, now)];
  const hostRow = withHost && height > 3;
  if (hostRow) {
    const line = fit(f.hostLine!, width);
    lines.push(f.stale && f.stale.size > 0 ? paint.red(line) : paint.dim(line));
  }
  const heads = ' '.repeat(PREFIX) + cols.map(({ column, width: w }) => fit(column.head, w)).join(' ');
  lines.push(paint.enabled ? inverse(paint)(fit(heads, width)) : fit(heads, width));
  const room = Math.max(0, height - 3 - (hostRow ? 1 : 0));
  const visible = f.rows.slice(f.offset, f.offset + room);
  visible.forEach((row, i) => {
    const selected = f.offset + i === f.selected;
    const cells = cols.map(({ column, width: w }) => fit(column.text(row, now), w, column.fromStart)).join(' ');
    const mark = f.stale?.has(row.host) ? '!' : row.mark;
    const line = fit((selected ? '>' : ' ') + mark + cells, width);
    if (selected) lines.push(inverse(paint)(line));
    else lines.push(row.waiting ? paint.yellow(line) : line);
  });
  if (f.rows.length === 0) {
    // With hosts that gave no answer, "no live sessions" would be a guess: the hosts line says which.
    const none = f.stale && f.stale.size > 0 ? '  no live sessions on the hosts that answered (see the hosts line)' : '  no live sessions';
    lines.push(fit(f.filter ? `  no live session matches "${f.filter}"` : none, width));
  }
  if (height === 1) return [lines[0]!];
  while (lines.length < height - 1) lines.push(' '.repeat(width));
  lines.length = height - 1;
  lines.push(footer(f, width, paint));
  return lines;
}

/** The first row to draw so that the selected one is visible in `room` rows. */
export function scrollTo(selected: number, offset: number, room: number, count: number): number {
  if (room <= 0) return 0;
  let o = Math.min(offset, Math.max(0, count - room));
  if (selected < o) o = selected;
  if (selected >= o + room) o = selected - room + 1;
  return Math.max(0, o);
}
