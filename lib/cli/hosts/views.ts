/**
 * What the reading commands print for several hosts: the per-host state in every output (a host
 * that gave no answer is named, with why, never left out), the records with their host, and when
 * each host was measured. Remote text (details, record fields) is printed through `printable`.
 */
import type { HostRecord, HostScan } from '../../hosts/read.js';
import { ago, printable } from '../format.js';
import type { Cell, Paint } from '../output.js';
import { recordJson, recordRow, LIST_HEADER } from '../records.js';

/** Exit status of list, count and summary when a host gave no complete answer (docs/hosts.md). */
export const INCOMPLETE_EXIT = 3;

export function answered(scan: HostScan): boolean {
  return scan.state === 'ok';
}

export function exitFor(scans: readonly HostScan[]): number {
  return scans.every(answered) ? 0 : INCOMPLETE_EXIT;
}

export function hostJson(scan: HostScan) {
  return {
    host: scan.host,
    state: scan.state,
    detail: scan.detail ?? null,
    measuredAt: scan.measuredAt ?? null,
    clockSkewS: scan.clockSkewS ?? null,
    roundTripMs: scan.roundTripMs,
  };
}

export function hostRecordJson(r: HostRecord) {
  return { host: r.host, measuredAt: r.measuredAt, ...recordJson(r) };
}

/** `host-b: unreachable (ssh: connect to host … refused)`, one line whatever the remote said. */
export function problemLine(scan: HostScan): string {
  return `${printable(scan.host)}: ${scan.state}${scan.detail ? ` (${printable(scan.detail)})` : ''}`;
}

/** One line per host: its state, how many live records, when measured. */
export function hostLines(scans: readonly HostScan[], paint: Paint, now = Date.now()): string[] {
  return scans.map((s) => {
    if (s.state !== 'ok' && s.state !== 'unreadable') return paint.red(problemLine(s));
    const live = s.records.filter((r) => r.live).length;
    const when = ago(s.measuredAt, now);
    const skew = s.clockSkewS !== undefined && Math.abs(s.clockSkewS) >= 5 ? `, its clock ${s.clockSkewS > 0 ? '+' : ''}${s.clockSkewS}s` : '';
    const line = `${printable(s.host)}: ${live} live, measured ${when === 'now' ? 'now' : `${when} ago`} (${s.roundTripMs} ms${skew})`;
    return s.state === 'unreadable' ? paint.yellow(`${line}; ${problemLine(s)}`) : line;
  });
}

export const HOST_LIST_HEADER = ['HOST', ...LIST_HEADER] as const;

export function hostRecordRow(r: HostRecord, paint: Paint, now = Date.now()): Cell[] {
  return [printable(r.host), ...recordRow(r, paint, now)];
}

export function allRecords(scans: readonly HostScan[]): HostRecord[] {
  return scans.flatMap((s) => s.records);
}
