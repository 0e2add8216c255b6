/**
 * What prune reads a file as, by kind, and when such a file may go (docs/prune.md):
 * - a record `<pid>.json`: a claim; it goes when its claim is provably dead (gone, recycled, zombie);
 * - a key `<pid>.<64 hex>.key` (`{"peerToken", "procStart", "pidDomain"}`): it names a process by its
 *   own procStart and pidDomain, and goes under the same rule as a record;
 * - a legacy `pid-<n>.json` (snake_case `session_id`, no start token): it goes only when no process has
 *   that PID (`gone`): without a token, a PID that exists may be the same old process.
 * Every read is the reader's safe one (no symlink followed, regular files only, bounded).
 */
import { readCandidateFile } from '../read/candidates.js';
import { parseClaim, type Claim } from '../read/schema.js';
import { recordedToken } from '../../proc/token.js';
import { DEAD_VERDICTS, type Verdict } from '../types.js';
import type { LivenessKey } from '../verdict.js';
import type { FileKind } from './names.js';

/** A file read as a document of its kind: what its liveness is judged on. */
export interface Doc {
  kind: FileKind;
  key: LivenessKey;
  /** Records only: the claim (the aside copy's path when read from one). */
  claim?: Claim;
  /** Legacy files: what doctor and the CLI show. */
  sessionId?: string;
  cwd?: string;
}

function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const doc: unknown = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    return typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The document in a file, or undefined: missing, not a regular file, unreadable, or not of its kind. */
export function readDoc(path: string, kind: FileKind, pid: number): Doc | undefined {
  return readDocAt(path, kind, pid).doc;
}

/** readDoc, and the file's mtime when it could be read (copies of one name go back newest first). */
export function readDocAt(path: string, kind: FileKind, pid: number): { doc: Doc | undefined; mtimeMs?: number } {
  const read = readCandidateFile(path);
  if (!read.ok) return { doc: undefined };
  return { doc: docOf(read.bytes, path, kind, pid), mtimeMs: read.mtimeMs };
}

function docOf(bytes: Uint8Array, path: string, kind: FileKind, pid: number): Doc | undefined {
  if (kind === 'record') {
    const claim = parseClaim(bytes, path, pid);
    return typeof claim === 'string' ? undefined : { kind, key: claim, claim };
  }
  const raw = parseObject(bytes);
  if (raw === undefined) return undefined;
  if (kind === 'key') {
    const token = recordedToken(raw.procStart);
    return { kind, key: { pid, token, pidDomain: text(raw.pidDomain), cwd: undefined } };
  }
  const sessionId = text(raw.session_id);
  if (sessionId === undefined) return undefined;
  return { kind, key: { pid, token: undefined, pidDomain: undefined, cwd: undefined }, sessionId, cwd: text(raw.cwd) };
}

/** True when a document of this kind with this verdict may be removed. */
export function mayRemove(kind: FileKind, verdict: Verdict): boolean {
  return kind === 'legacy' ? verdict === 'gone' : DEAD_VERDICTS.has(verdict);
}

export { sameIdentity } from '../verdict.js';
