/**
 * The remote reader's answer (lib/hosts/reader.sh, format 1) → plain facts, or why it is not an
 * answer. The text comes from another machine: it is checked line by line against the one shape
 * the shipped reader prints, and anything else (an unknown line, a bad hex field, a missing `end`,
 * too many bytes) makes the whole answer `bad answer`, never a partial registry read as complete.
 * Nothing here decides liveness: lib/hosts/judge.ts hands the facts to lib/registry/verdict.ts.
 */
import { isCandidateName } from '../registry/config.js';

export const READER_FORMAT = 1;

/** More than any registry holds (a record is ≤ 256 KiB, ~2.2 bytes of answer per byte). */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export type RemotePlatform = 'linux' | 'darwin' | 'other';

/** How the remote read a candidate: its bytes, or the reason it did not. */
export type RemoteFile =
  | { name: string; pid: number; bytes: Buffer }
  | { name: string; pid: number; reason: 'symlink' | 'not-regular' | 'too-large' | 'unreadable' };

export interface RemoteFolder {
  /** The remote's `<config dir>/sessions` path, as it named it. */
  dir: string;
  listing: 'ok' | 'missing' | 'unreadable';
  /** Why the listing failed, as the remote's `ls` said (one line, untrusted text). */
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
const PID = /^[1-9][0-9]{0,15}$/;

class Bad extends Error {}

function hexBytes(field: string | undefined, what: string): Buffer {
  if (field === undefined || !HEX.test(field)) throw new Bad(`${what} is not hex`);
  return Buffer.from(field, 'hex');
}

function hexText(field: string | undefined, what: string): string {
  return hexBytes(field, what).toString('utf8');
}

function pidOf(field: string | undefined): number {
  if (field === undefined || !PID.test(field)) throw new Bad('a PID field is not a PID');
  const pid = Number(field);
  if (!Number.isSafeInteger(pid)) throw new Bad('a PID field is not a PID');
  return pid;
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

/** Parses a whole answer. Never throws. */
export function parseAnswer(text: string): ParsedAnswer {
  if (text.length > MAX_ANSWER_BYTES) return { ok: false, why: `the answer is over ${MAX_ANSWER_BYTES} bytes` };
  const lines = text.split('\n');
  let at = 0;
  try {
    const first = lines[0] ?? '';
    const m = /^claude-ps-reader ([0-9]{1,6})$/.exec(first);
    if (!m) throw new Bad('it does not start with "claude-ps-reader"');
    const format = Number(m[1]);
    if (format !== READER_FORMAT) throw new Bad(`answer format ${format}, this claude-ps reads format ${READER_FORMAT}`);
    const header = new Map<string, string>();
    for (const key of HEADER_KEYS) {
      at++;
      const [k, v, ...rest] = (lines[at] ?? '').split(' ');
      if (k !== key || v === undefined || rest.length > 0) throw new Bad(`expected the "${key}" line`);
      header.set(key, v);
    }
    const clock = header.get('clock')!;
    const answer: ReaderAnswer = {
      format,
      clockS: clock === '-' ? undefined : /^[0-9]{1,12}$/.test(clock) ? Number(clock) : undefined,
      platform: oneOf(header.get('platform'), ['linux', 'darwin', 'other'] as const, 'platform'),
      probe: oneOf(header.get('probe'), ['proc', 'ps', 'none'] as const, 'probe'),
      pidDomain: header.get('domain') === '-' ? undefined : hexText(header.get('domain'), 'domain'),
      wsl: oneOf(header.get('wsl'), ['0', '1'] as const, 'wsl') === '1',
      proc: oneOf(header.get('proc'), ['ours', 'foreign', 'none'] as const, 'proc'),
      folders: [],
      pids: new Map(),
    };
    let folder: RemoteFolder | undefined;
    for (at++; at < lines.length; at++) {
      const fields = lines[at]!.split(' ');
      const kind = fields[0];
      if (kind === 'end' && fields.length === 1) {
        const trailing = lines.slice(at + 1).join('\n');
        if (trailing !== '') throw new Bad('text after "end"');
        return { ok: true, answer };
      }
      if (kind === 'dir' && fields.length === 2) {
        folder = { dir: hexText(fields[1], 'a folder path'), listing: 'ok', files: [] };
        answer.folders.push(folder);
      } else if (kind === 'listing' && folder !== undefined && fields.length >= 2 && fields.length <= 3) {
        folder.listing = oneOf(fields[1], ['ok', 'missing', 'unreadable'] as const, 'a listing');
        if (fields.length === 3) folder.listingError = hexText(fields[2], 'a listing error');
      } else if (kind === 'file' && folder !== undefined && (fields.length === 3 || fields.length === 4)) {
        const name = fields[1]!;
        if (!isCandidateName(name)) throw new Bad('a file name is not <pid>.json');
        const pid = pidOf(name.slice(0, -'.json'.length));
        if (fields[2] === 'ok' && fields.length === 4) folder.files.push({ name, pid, bytes: hexBytes(fields[3], 'a record') });
        else if (fields.length === 3) {
          folder.files.push({ name, pid, reason: oneOf(fields[2], ['symlink', 'not-regular', 'too-large', 'unreadable'] as const, 'a file reason') });
        } else throw new Bad('a file line is malformed');
      } else if (kind === 'pid' && fields.length === 5) {
        const pid = pidOf(fields[1]);
        answer.pids.set(pid, {
          first: killAnswer(fields[2]),
          stat: fields[3] === '-' ? undefined : hexBytes(fields[3], 'a stat line'),
          again: fields[4] === '-' ? undefined : killAnswer(fields[4]),
        });
      } else if (kind === 'ps' && fields.length === 4 && answer.ps === undefined) {
        const status = /^[0-9]{1,3}$/.test(fields[1]!) ? Number(fields[1]) : null;
        answer.ps = {
          status,
          stdout: hexBytes(fields[2], 'ps output').toString('latin1'),
          stderr: fields[3] === '-' ? '' : hexBytes(fields[3], 'ps errors').toString('latin1'),
        };
      } else {
        throw new Bad(`an unexpected line (${JSON.stringify(kind?.slice(0, 20) ?? '')})`);
      }
    }
    throw new Bad('it ends before its "end" line (cut off)');
  } catch (error) {
    if (!(error instanceof Bad)) throw error;
    return { ok: false, why: `line ${at + 1}: ${error.message}` };
  }
}
