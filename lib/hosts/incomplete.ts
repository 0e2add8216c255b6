/**
 * The typed error of the library's `hosts` option (docs/hosts.md, "Library"): some host gave no
 * complete answer, so the question asked of all of them has no honest answer. It carries every
 * host's scan, the partial results included, so a caller that can use what did arrive has it, and
 * one that cannot fails closed by doing nothing.
 */
import type { HostRecord, HostScan, HostState } from './read.js';

export const HOSTS_INCOMPLETE = 'ERR_HOSTS_INCOMPLETE';

/** One host's part of the answer, as the error reports it. */
export interface HostOutcome {
  host: string;
  state: HostState;
  /** Why (untrusted text from the remote or ssh: print it with care); undefined for a plain `ok`. */
  detail: string | undefined;
  /** That host's guard answer: true, false (proven), or undefined (cannot tell). */
  interactive: boolean | undefined;
}

// Control, bidi and other invisible characters of a remote's text never reach a message.
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;

function said(outcome: HostOutcome): string {
  const detail = outcome.detail === undefined ? '' : ` (${outcome.detail.replace(UNSAFE, '?').slice(0, 200)})`;
  return `${outcome.host}: ${outcome.state === 'ok' ? 'cannot tell' : outcome.state}${detail}`;
}

export class HostsIncompleteError extends Error {
  override name = 'HostsIncompleteError';
  readonly code: typeof HOSTS_INCOMPLETE = HOSTS_INCOMPLETE;
  /** Every host asked, in the order given, with its state. */
  readonly hosts: HostOutcome[];
  /** The hosts that are the reason (not `ok`, or `ok` without a guard answer). */
  readonly failed: HostOutcome[];
  /** Every host's scan as readHosts gave it: records of the hosts that answered are in there. */
  readonly scans: HostScan[];

  constructor(scans: HostScan[], failed: readonly HostScan[], question: string) {
    const outcome = (s: HostScan): HostOutcome => ({ host: s.host, state: s.state, detail: s.detail, interactive: s.interactive });
    const list = failed.map(outcome);
    super(`${question}: ${list.length} of ${scans.length} hosts gave no complete answer: ${list.map(said).join('; ')}`);
    this.hosts = scans.map(outcome);
    this.failed = list;
    this.scans = scans;
  }

  /** The records of the hosts that answered completely (state `ok`): a partial view, never the whole. */
  get partialRecords(): HostRecord[] {
    return this.scans.filter((s) => s.state === 'ok').flatMap((s) => s.records);
  }
}
