/** Pure formatting helpers for the human-readable output. */
import { homedir } from 'node:os';

/** How long ago an epoch-ms instant was, in one short unit: `now`, `42s`, `3m`, `5h`, `2d`. */
export function ago(epochMs: number | undefined, now = Date.now()): string {
  if (epochMs === undefined || !Number.isFinite(epochMs)) return '';
  const s = Math.floor((now - epochMs) / 1000);
  if (s < 1) return 'now';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** `/home/me/src/app` → `~/src/app`. */
export function shortenHome(path: string | undefined, home = homedir()): string {
  if (path === undefined) return '';
  if (home && home !== '/' && (path === home || path.startsWith(home + '/'))) return '~' + path.slice(home.length);
  return path;
}

/** Cuts a string to `max` characters with an ellipsis; `fromStart` keeps the end (for paths). */
export function clip(s: string, max: number, fromStart = false): string {
  if (s.length <= max) return s;
  return fromStart ? '…' + s.slice(s.length - max + 1) : s.slice(0, max - 1) + '…';
}

/** Control characters in registry strings must not reach the terminal (a name could hold escapes). */
export function printable(s: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  return s === undefined ? '' : s.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ');
}
