/**
 * The remote reader's answer (lib/hosts/reader.sh, format 1) → plain facts, or why it is not an
 * answer. The text comes from another machine: it is checked line by line against the one shape
 * the shipped reader prints, and anything else (an unknown line, a bad hex field, a line out of
 * its place, a folder, file or PID twice, a missing `end`, too many bytes) makes the whole answer
 * `bad answer`, never a partial registry read as complete. One odd candidate name is one skip.
 * Nothing here decides liveness: lib/hosts/judge.ts hands the facts to lib/registry/verdict.ts.
 */
import { isCandidateName } from '../registry/config.js';

export const READER_FORMAT = 1;

/** More than any registry holds (a record is ≤ 256 KiB, ~2.2 bytes of answer per byte). */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export type RemotePlatform = 'linux' | 'darwin' | 'other';

/**
 * How the remote read a candidate: its bytes, or the reason it did not. `pid` is the name's number,
 * rounded beyond a safe integer as a local scan's is (no record can match such a name).
 */
export type RemoteFile =
  | { name: string; pid: number; bytes: Buffer }
  | { name: string; pid: number; reason: 'symlink' | 'not-regular' | 'too-large' | 'unreadable' };

export interface RemoteFolder {
  /** The remote's `<config dir>/sessions` path, as it named it. */
  dir: string;
  /**
   * `unproven`: listed, but the folder kept changing around every listing (or the remote has no
   * stat(1) to stamp it), so a name may be missing from it: its sessions are unknown, as `unreadable`.
   */
  listing: 'ok' | 'missing' | 'unreadable' | 'unproven';
  /** Why the listing failed or is unproven, as the remote said (one line, untrusted text). */
  listingError?: string;
  files: RemoteFile[];
}

/** What the remote measured of one PID: kill(pid, 0) before and after, and its /proc stat bytes. */
export interface RemotePidFacts {
  /** kill -0 said: 0 exists (or EPERM), 1 no such process, 2 an answer that could not be read. */
  first: 0 | 1 | 2;
  stat: Buffer | undefined;
  again: 0 | 1 | 2 | undefined;
}

export interface ReaderAnswer {
  format: number;
  /** The remote's clock, epoch seconds, when it started (undefined: it has no `date +%s`). */
  clockS: number | undefined;
  platform: RemotePlatform;
  probe: 'proc' | 'ps' | 'none';
  pidDomain: string | undefined;
  wsl: boolean;
  /** /proc of the reader's PID namespace (ours), of another one (foreign), or none. */
  proc: 'ours' | 'foreign' | 'none';
  folders: RemoteFolder[];
  pids: Map<number, RemotePidFacts>;
  /** The one `ps -o pid=,stat=,lstart=` run, when the probe is ps. */
  ps?: { status: number | null; stdout: string; stderr: string };
}

export type ParsedAnswer = { ok: true; answer: ReaderAnswer } | { ok: false; why: string };

const HEX = /^(?:[0-9a-f]{2})*$/;
/** A PID as the reader prints it: its file name's digits, any number of them (see fileName). */
const DIGITS = /^[1-9][0-9]*$/;

class Bad extends Error {}

function hexBytes(field: string | undefined, what: string): Buffer {
  if (field === undefined || !HEX.test(field)) throw new Bad(`${what} is not hex`);
  return Buffer.from(field, 'hex');
}

function hexText(field: string | undefined, what: string): string {
  return hexBytes(field, what).toString('utf8');
}

function pidDigits(field: string | undefined): string {
  if (field === undefined || !DIGITS.test(field)) throw new Bad('a PID field is not a PID');
  return field;
}

function killAnswer(field: string | undefined): 0 | 1 | 2 {
  if (field === '0' || field === '1' || field === '2') return Number(field) as 0 | 1 | 2;
  throw new Bad('a kill answer is not 0, 1 or 2');
}

function oneOf<T extends string>(field: string | undefined, allowed: readonly T[], what: string): T {
  if (field !== undefined && (allowed as readonly string[]).includes(field)) return field as T;
  throw new Bad(`${what} is not one of ${allowed.join(', ')}`);
}

const HEADER_KEYS = ['clock', 'platform', 'probe', 'domain', 'wsl', 'proc'] as const;

/** `date +%s` (at most 12 digits: past the year 30000), or `-` when the remote has none. */
function clockOf(field: string): number | undefined {
  if (field === '-') return undefined;
  if (!/^[1-9][0-9]{0,11}$/.test(field)) throw new Bad('the clock is not epoch seconds or "-"');
  return Number(field);
}

/** A Bad at a known line (the header's own lines). */
class At extends Bad {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

function headerOf(lines: readonly string[]): ReaderAnswer {
  const m = /^claude-ps-reader ([1-9][0-9]{0,5})$/.exec(lines[0] ?? '');
  if (!m) throw new Bad('it does not start with "claude-ps-reader"');
  const format = Number(m[1]);
  if (format !== READER_FORMAT) throw new Bad(`answer format ${format}, this claude-ps reads format ${READER_FORMAT}`);
  /** Line i + 1 is `KEY VALUE`, the value checked there (so a refusal names its line). */
  const value = <T>(i: number, parse: (v: string) => T): T => {
    const key = HEADER_KEYS[i]!;
    const [k, v, ...rest] = (lines[i + 1] ?? '').split(' ');
    if (k !== key || v === undefined || rest.length > 0) throw new At(i + 1, `expected the "${key}" line`);
    try {
      return parse(v);
    } catch (error) {
      throw error instanceof Bad && !(error instanceof At) ? new At(i + 1, error.message) : error;
    }
  };
  return {
    format,
    clockS: value(0, clockOf),
    platform: value(1, (v) => oneOf(v, ['linux', 'darwin', 'other'] as const, 'platform')),
    probe: value(2, (v) => oneOf(v, ['proc', 'ps', 'none'] as const, 'probe')),
    pidDomain: value(3, (v) => (v === '-' ? undefined : hexText(v, 'domain'))),
    wsl: value(4, (v) => oneOf(v, ['0', '1'] as const, 'wsl') === '1'),
    proc: value(5, (v) => oneOf(v, ['ours', 'foreign', 'none'] as const, 'proc')),
    folders: [],
    pids: new Map(),
  };
}

/**
 * The body's one shape, as reader.sh prints it: for each config dir a `dir` line, then exactly one
 * `listing` line (`ok` only for a listing proven complete), then (only after `listing ok`) its `file` lines, each name once; then one `pid`
 * line per PID of a file it read or could not read, each PID once; then at most one `ps` line (probe
 * ps only); then `end`. A folder with no listing line would read as listed and empty (a guard's
 * "no"); a file or a PID twice would count one session twice or let the later measurement win.
 */
class Body {
  private phase: 'folders' | 'pids' | 'ps' = 'folders';
  private folder: { at: RemoteFolder; listed: boolean; names: Set<string> } | undefined;
  private readonly dirs = new Set<string>();
  /** PIDs (as printed) of the files read or unreadable: the ones the reader measures. */
  private readonly measurable = new Set<string>();
  private readonly measured = new Set<string>();

  constructor(private readonly answer: ReaderAnswer) {}

  line(fields: string[]): void {
    const kind = fields[0];
    if (kind === 'dir' && fields.length === 2) return this.dir(fields[1]);
    if (kind === 'listing' && (fields.length === 2 || fields.length === 3)) return this.listing(fields);
    if (kind === 'file' && (fields.length === 3 || fields.length === 4)) return this.file(fields);
    if (kind === 'pid' && fields.length === 5) return this.pid(fields);
    if (kind === 'ps' && fields.length === 4) return this.ps(fields);
    throw new Bad(`an unexpected line (${JSON.stringify(kind?.slice(0, 20) ?? '')})`);
  }

  /** At `end`, and before any line past the folders: the last folder said how its listing went. */
  foldersDone(): void {
    if (this.answer.folders.length === 0) throw new Bad('it names no sessions folder');
    if (this.folder !== undefined && !this.folder.listed) throw new Bad('a folder has no "listing" line');
  }

  private dir(field: string | undefined): void {
    if (this.phase !== 'folders') throw new Bad('a "dir" line after the measurements');
    if (this.folder !== undefined && !this.folder.listed) throw new Bad('a folder has no "listing" line');
    const dir = hexText(field, 'a folder path');
    if (this.dirs.has(field!)) throw new Bad('a sessions folder is named twice');
    this.dirs.add(field!);
    const at: RemoteFolder = { dir, listing: 'missing', files: [] };
    this.folder = { at, listed: false, names: new Set() };
    this.answer.folders.push(at);
  }

  private listing(fields: string[]): void {
    const f = this.folder;
    if (f === undefined || f.listed || this.phase !== 'folders') throw new Bad('a "listing" line that follows no "dir" line');
    const listing = oneOf(fields[1], ['ok', 'missing', 'unreadable', 'unproven'] as const, 'a listing');
    const explained = listing === 'unreadable' || listing === 'unproven';
    if (explained !== (fields.length === 3)) throw new Bad('a listing line is malformed');
    f.at.listing = listing;
    if (fields.length === 3) f.at.listingError = hexText(fields[2], 'a listing error');
    f.listed = true;
  }

  private file(fields: string[]): void {
    const f = this.folder;
    if (f === undefined || !f.listed || f.at.listing !== 'ok' || this.phase !== 'folders') {
      throw new Bad('a "file" line outside a listed folder');
    }
    const name = fields[1]!;
    if (!isCandidateName(name)) throw new Bad('a file name is not <pid>.json');
    if (f.names.has(name)) throw new Bad('a file is named twice in one folder');
    f.names.add(name);
    const digits = name.slice(0, -'.json'.length);
    // A name beyond a safe integer is one skipped candidate, as in a local scan (lib/registry/read/scan.ts):
    // it keeps its rounded number for reports, and no record can match it (parseClaim wants a safe pid).
    const pid = Number(digits);
    if (fields[2] === 'ok' && fields.length === 4) {
      f.at.files.push({ name, pid, bytes: hexBytes(fields[3], 'a record') });
    } else if (fields.length === 3) {
      const reason = oneOf(fields[2], ['symlink', 'not-regular', 'too-large', 'unreadable'] as const, 'a file reason');
      f.at.files.push({ name, pid, reason });
      if (reason !== 'unreadable') return;
    } else throw new Bad('a file line is malformed');
    this.measurable.add(digits);
  }

  private pid(fields: string[]): void {
    if (this.phase === 'ps') throw new Bad('a "pid" line after the "ps" line');
    if (this.phase === 'folders') this.foldersDone();
    this.phase = 'pids';
    const digits = pidDigits(fields[1]);
    const first = killAnswer(fields[2]);
    const stat = fields[3] === '-' ? undefined : hexBytes(fields[3], 'a stat line');
    const again = fields[4] === '-' ? undefined : killAnswer(fields[4]);
    // The reader reads a stat only for a PID that exists, and asks kill again only without one.
    if (first === 1 ? stat !== undefined || again !== undefined : (stat === undefined) === (again === undefined)) {
      throw new Bad('a pid line is malformed');
    }
    if (!this.measurable.has(digits)) throw new Bad('a "pid" line names no file that was read');
    if (this.measured.has(digits)) throw new Bad('a PID is measured twice');
    this.measured.add(digits);
    const pid = Number(digits);
    // Beyond a safe integer it names no process (its file is a skip, judged `gone` past PID_MAX).
    if (Number.isSafeInteger(pid)) this.answer.pids.set(pid, { first, stat, again });
  }

  private ps(fields: string[]): void {
    if (this.answer.probe !== 'ps' || this.phase === 'ps') throw new Bad('a "ps" line where the reader prints none');
    if (this.phase === 'folders') this.foldersDone();
    this.phase = 'ps';
    const status = /^[0-9]{1,3}$/.test(fields[1]!) ? Number(fields[1]) : null;
    this.answer.ps = {
      status,
      stdout: hexBytes(fields[2], 'ps output').toString('latin1'),
      stderr: fields[3] === '-' ? '' : hexBytes(fields[3], 'ps errors').toString('latin1'),
    };
  }
}

/** Parses a whole answer. Never throws. */
export function parseAnswer(text: string): ParsedAnswer {
  if (text.length > MAX_ANSWER_BYTES) return { ok: false, why: `the answer is over ${MAX_ANSWER_BYTES} bytes` };
  const lines = text.split('\n');
  let at = 0;
  try {
    const answer = headerOf(lines);
    const body = new Body(answer);
    for (at = HEADER_KEYS.length + 1; at < lines.length; at++) {
      const fields = lines[at]!.split(' ');
      if (fields[0] === 'end' && fields.length === 1) {
        if (lines.slice(at + 1).join('\n') !== '') throw new Bad('text after "end"');
        body.foldersDone();
        return { ok: true, answer };
      }
      body.line(fields);
    }
    throw new Bad('it ends before its "end" line (cut off)');
  } catch (error) {
    if (!(error instanceof Bad)) throw error;
    return { ok: false, why: `line ${(error instanceof At ? error.line : at) + 1}: ${error.message}` };
  }
}
