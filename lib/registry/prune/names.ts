/**
 * The names prune works with (docs/prune.md), as pure functions of a folder listing: no file system
 * here, so the reader, the watcher and prune itself agree on what every name in `sessions/` is.
 *
 * - a file prune may remove: a record `<pid>.json`, a key `<pid>.<64 hex>.key`, a legacy `pid-<n>.json`;
 * - its aside copy while prune decides: `.<name>.prune-<16 hex>`, random per move, so an unlink by
 *   that name can only hit the inode the move put there;
 * - the move's journal: `.<name>.prune-<16 hex>.journal-<owner pid>`, created before the move, with the
 *   owner's start token and pidDomain inside. The owner's PID is in the name, so even a journal whose
 *   owner died between creating and writing it tells whose it was;
 * - journals of claude-ps 0.1: `.<pid>.json.prune-journal-<k>`, holding the aside name.
 *
 * Every one of these names starts with a dot, so none is a candidate (`^[1-9][0-9]*\.json$`), and
 * none ends like Claude Code's `.key` / `.key.tmp.*` files.
 */

import { isCandidateName } from '../config.js';

export type FileKind = 'record' | 'key' | 'legacy';

const ORIGINAL = String.raw`([1-9][0-9]*)\.json|([1-9][0-9]*)\.[0-9a-f]{64}\.key|pid-([1-9][0-9]*)\.json`;
// Made at their first use: a pattern built with `new RegExp` is parsed when it is made (~50 us of a
// cold start here), and a read meets a name starting with a dot only where a prune died mid-way.
let asidePattern: RegExp | undefined;
let journalPattern: RegExp | undefined;
const ASIDE = (): RegExp => (asidePattern ??= new RegExp(String.raw`^\.(${ORIGINAL})\.prune-([0-9a-f]{16})$`));
const JOURNAL = (): RegExp => (journalPattern ??= new RegExp(String.raw`^\.(${ORIGINAL})\.prune-([0-9a-f]{16})\.journal-([1-9][0-9]*)$`));
const OLD_JOURNAL = /^\.([1-9][0-9]*)\.json\.prune-journal-[0-9]+$/;
const KEY = /^([1-9][0-9]*)\.[0-9a-f]{64}\.key$/;
const LEGACY = /^pid-([1-9][0-9]*)\.json$/;
const DOT = 46; // '.'

/** A name this module knows, with what it says. */
export interface Original {
  /** The name the file has outside prune: `<pid>.json`, `<pid>.<hex>.key` or `pid-<n>.json`. */
  name: string;
  kind: FileKind;
  pid: number;
}

function safePid(text: string): number | undefined {
  const pid = Number(text);
  return Number.isSafeInteger(pid) ? pid : undefined;
}

function original(match: RegExpExecArray): Original | undefined {
  const [, name, record, key, legacy] = match;
  const kind: FileKind = record !== undefined ? 'record' : key !== undefined ? 'key' : 'legacy';
  const pid = safePid(record ?? key ?? legacy!);
  return pid === undefined ? undefined : { name: name!, kind, pid };
}

/** An aside copy: the file it was moved from, and the random part of its name. */
export interface AsideName extends Original {
  aside: string;
}

export function parseAside(name: string): AsideName | undefined {
  if (name.charCodeAt(0) !== DOT) return undefined;
  const m = ASIDE().exec(name);
  const o = m ? original(m) : undefined;
  return o && { ...o, aside: name };
}

/** A journal: the aside it announces and the PID of the prune that wrote it. */
export interface JournalName extends Original {
  journal: string;
  aside: string;
  ownerPid: number;
}

export function parseJournal(name: string): JournalName | undefined {
  if (name.charCodeAt(0) !== DOT) return undefined;
  const m = JOURNAL().exec(name);
  const o = m ? original(m) : undefined;
  const ownerPid = m ? safePid(m[6]!) : undefined;
  if (!m || !o || ownerPid === undefined) return undefined;
  return { ...o, journal: name, aside: `.${o.name}.prune-${m[5]}`, ownerPid };
}

/** A journal slot of claude-ps 0.1 (its content names the aside copy): the PID it is for. */
export function oldJournalPid(name: string): number | undefined {
  if (name.charCodeAt(0) !== DOT) return undefined;
  const m = OLD_JOURNAL.exec(name);
  return m ? safePid(m[1]!) : undefined;
}

export function asideNameFor(name: string, hex16: string): string {
  return `.${name}.prune-${hex16}`;
}

export function journalNameFor(aside: string, ownerPid: number): string {
  return `${aside}.journal-${ownerPid}`;
}

/** `<pid>.<64 hex>.key`, exactly: the PID it names, else undefined. */
export function keyPid(name: string): number | undefined {
  const m = KEY.exec(name);
  return m ? safePid(m[1]!) : undefined;
}

/** `pid-<n>.json` (older Claude Code): the PID it names, else undefined. */
export function legacyPid(name: string): number | undefined {
  const m = LEGACY.exec(name);
  return m ? safePid(m[1]!) : undefined;
}

/** True for every name prune itself creates (aside copies and journals, of this version or 0.1). */
export function isPruneLeftover(name: string): boolean {
  return parseAside(name) !== undefined || parseJournal(name) !== undefined || oldJournalPid(name) !== undefined;
}

/**
 * The stranded claims in a folder listing: aside copies of `<pid>.json` whose `<pid>.json` is not in
 * the listing. A prune that died after moving a live session's file aside leaves exactly this; the
 * reader reads such a copy as the claim it is (its record's `path` is the copy's path). Cheap when
 * there are none: one character compare per name.
 */
export function strandedClaims(names: readonly string[]): string[] {
  let asides: AsideName[] | undefined;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (name.charCodeAt(0) !== DOT) continue;
    const a = parseAside(name);
    if (a?.kind === 'record') (asides ??= []).push(a);
  }
  if (asides === undefined) return [];
  const present = new Set(names);
  return asides.filter((a) => !present.has(a.name)).map((a) => a.aside);
}

/**
 * Aside copies of `<pid>.json` whose `<pid>.json` IS in the listing. Usually an older state of the
 * same process (it wrote again while its file was aside), but a copy whose name another process's
 * record holds is *kept* aside by prune (docs/prune.md), and may be the only record of a live
 * session: the reader reads these too, and drops each one that is no second claim (scan.ts).
 */
export function shadowedCopies(names: readonly string[]): string[] {
  let out: string[] | undefined;
  let present: Set<string> | undefined;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (name.charCodeAt(0) !== DOT) continue;
    const a = parseAside(name);
    if (a?.kind !== 'record') continue;
    present ??= new Set(names);
    if (present.has(a.name)) (out ??= []).push(a.aside);
  }
  return out ?? [];
}

/** The names of a listing a reader reads: candidates, then stranded claims (see strandedClaims). */
export function claimNames(names: readonly string[]): string[] {
  const out = names.filter(isCandidateName);
  const stranded = strandedClaims(names);
  return stranded.length === 0 ? out : out.concat(stranded);
}

/** The PID a stranded claim's name carries (for a candidate name, use pidFromName). */
export function strandedPid(name: string): number | undefined {
  const a = parseAside(name);
  return a?.kind === 'record' ? a.pid : undefined;
}

/** The name a stranded claim goes back to (`.<pid>.json.prune-<hex>` → `<pid>.json`). */
export function restoredName(name: string): string | undefined {
  const a = parseAside(name);
  return a?.kind === 'record' ? a.name : undefined;
}
