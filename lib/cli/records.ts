/** Shared views of records for the commands: the stable JSON shape and the table row. */
import type { SessionRecord } from '../registry/types.js';
import type { Cell, Paint } from './output.js';
import { ago, clip, printable, shortenHome } from './format.js';

/**
 * The documented `--json` shape of one record. Every key is always present (null when unknown) so
 * consumers can rely on it; `raw` is left out on purpose (it is whatever Claude Code wrote).
 */
export function recordJson(r: SessionRecord) {
  return {
    pid: r.pid,
    sessionId: r.sessionId,
    kind: r.kind,
    interactive: r.interactive,
    verdict: r.verdict,
    live: r.live,
    status: r.status ?? null,
    waitingFor: r.waitingFor ?? null,
    name: r.name ?? null,
    cwd: r.cwd ?? null,
    startedAt: r.startedAt ?? null,
    updatedAt: r.updatedAt ?? null,
    statusUpdatedAt: r.statusUpdatedAt ?? null,
    version: r.version ?? null,
    entrypoint: r.entrypoint ?? null,
    pidDomain: r.pidDomain ?? null,
    token: r.token ?? null,
    path: r.path,
  };
}

export function verdictCell(r: SessionRecord, paint: Paint): Cell {
  const colour = r.verdict === 'alive' ? paint.green : r.live ? paint.yellow : paint.red;
  return { text: r.verdict, paint: colour };
}

/** `busy 3m ago`, `waiting (permission prompt) 12s ago`, or `-` when the record has no status. */
export function statusText(r: SessionRecord, now = Date.now()): string {
  // Claude Code writes a short word here; anything else is cut so it cannot push the table apart.
  const status = r.status ? clip(printable(r.status), 16) : '-';
  const detail = r.status === 'waiting' && r.waitingFor ? ` (${clip(printable(r.waitingFor), 24)})` : '';
  const when = ago(r.statusUpdatedAt ?? r.updatedAt, now);
  return `${status}${detail}${when ? (when === 'now' ? ' now' : ` ${when} ago`) : ''}`;
}

export const LIST_HEADER = ['PID', 'KIND', 'STATUS', 'NAME', 'CWD', 'VERDICT'] as const;

export function recordRow(r: SessionRecord, paint: Paint, now = Date.now()): Cell[] {
  const status = statusText(r, now);
  return [
    String(r.pid),
    clip(printable(r.kind), 14),
    { text: status, paint: r.status === 'waiting' ? paint.yellow : undefined },
    clip(printable(r.name) || '-', 32),
    clip(printable(shortenHome(r.cwd)) || '-', 48, true),
    verdictCell(r, paint),
  ];
}
