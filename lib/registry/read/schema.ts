/**
 * A candidate's bytes → a typed claim, or why it is not a record. `pid` and `sessionId` are strict
 * (they are the identity); every other field is lenient: a wrong type reads as absent, never as an
 * error, because the writer is another program whose format drifts between versions.
 */
import { NUMBER_FIELDS, STRING_FIELDS, type LenientFields } from './fields.js';
import { recordedToken } from '../../proc/token.js';
import { BACKGROUND_KINDS, type SessionRecord, type SkipReason } from '../types.js';

/** A record before its liveness is known. */
export type Claim = Omit<SessionRecord, 'verdict' | 'live' | 'interactive'>;

export { LENIENT_FIELDS, type LenientFields } from './fields.js';

// A number field must be finite: JSON.parse gives Infinity for 1e400, which no clock reads.
const isLenientNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The lenient fields of a parsed document, as fields.ts declares them: each is its value when of
 * its type, else absent. The definition; parseClaimText spells the same rule out field by field
 * (a property test holds the two equal). Why this is hand-written rather than a zod schema:
 * docs/architecture.md.
 */
export function readLenientFields(raw: Record<string, unknown>): LenientFields {
  const fields: Record<string, string | number> = {};
  for (const key of STRING_FIELDS) {
    const v = raw[key];
    if (typeof v === 'string') fields[key] = v;
  }
  for (const key of NUMBER_FIELDS) {
    const v = raw[key];
    if (isLenientNumber(v)) fields[key] = v;
  }
  return fields as LenientFields;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (isLenientNumber(v) ? v : undefined);

const BACKGROUND = new Set(BACKGROUND_KINDS);

/** A record is interactive unless its kind is a background kind (missing and unknown kinds are). */
export function isInteractiveKind(kind: string): boolean {
  return !BACKGROUND.has(kind);
}

function decode(bytes: Uint8Array): string {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buf.toString('utf8');
}

/**
 * Freezes a parsed document and every object and array in it, so a record's `raw` is immutable all
 * the way down: a claim (and so its raw) is shared by the records of later scans of an unchanged file
 * (parse-memo.ts), and a caller changing raw.peerFeatures must not change what the next scan returns.
 * Iterative: a document may nest 20,000 levels. Lean on the read path, which runs once per process
 * cold (a statusline's, a guard's), in V8's interpreter: index loops over Object.values (own values
 * only), not for-of (a result object per step); an array of primitives is frozen where it is met,
 * and the stack of objects still to freeze is made only for a document that nests deeper than that,
 * as no Claude Code record does (its one array holds strings). 30 records cold: ~125 us, from ~170.
 */
function deepFreeze(doc: object): void {
  let pending: object[] | undefined;
  for (let o: object | undefined = doc; o !== undefined; o = pending?.pop()) {
    Object.freeze(o);
    const values: readonly unknown[] = Array.isArray(o) ? o : Object.values(o);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v !== 'object' || v === null) continue;
      if (Array.isArray(v)) {
        Object.freeze(v);
        pending = freezeElements(v, pending);
      } else (pending ??= []).push(v);
    }
  }
}

/** Pushes the objects and arrays among an array's elements onto `pending` (made on first need). */
function freezeElements(a: readonly unknown[], pending: object[] | undefined): object[] | undefined {
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    if (typeof v === 'object' && v !== null) (pending ??= []).push(v);
  }
  return pending;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Syntax errors, and a RangeError should some engine recurse on deeply nested input.
    return undefined;
  }
}

/**
 * Parses a candidate's bytes. `pidFromName` is the PID in the file name: the record's `pid` must be a
 * safe integer ≥ 1 equal to it. Returns the claim, or the reason it is skipped. Never throws.
 */
export function parseClaim(bytes: Uint8Array, path: string, pidFromName: number): Claim | SkipReason {
  return parseClaimText(decode(bytes), path, pidFromName);
}

/** parseClaim for text already decoded (the batch reader decodes straight from its shared buffer). */
export function parseClaimText(text: string, path: string, pidFromName: number): Claim | SkipReason {
  if (text.length === 0) return 'unparseable';
  const doc = parseJson(text);
  if (doc === undefined) return 'unparseable';
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return 'not-object';
  const raw = doc as Record<string, unknown>;
  const pid = raw.pid;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid < 1 || pid !== pidFromName) return 'pid-mismatch';
  const sessionId = raw.sessionId;
  if (typeof sessionId !== 'string' || sessionId === '') return 'no-session-id';
  // Each field read once by name: a loop over the field lists read them by a variable key, a
  // megamorphic load per field per record. The claim is not frozen here: the record made from it is
  // (verdict.ts), and freezing twice costs at 10,000 records. Its raw is, all the way down.
  const procStart = str(raw.procStart);
  const procStartFt = str(raw.procStartFt);
  deepFreeze(raw);
  return {
    path,
    pid,
    sessionId,
    token: recordedToken(procStart) ?? recordedToken(procStartFt),
    pidDomain: str(raw.pidDomain),
    kind: str(raw.kind) ?? 'interactive',
    cwd: str(raw.cwd),
    startedAt: num(raw.startedAt),
    procStart,
    procStartFt,
    version: str(raw.version),
    entrypoint: str(raw.entrypoint),
    name: str(raw.name),
    status: str(raw.status),
    waitingFor: str(raw.waitingFor),
    updatedAt: num(raw.updatedAt),
    statusUpdatedAt: num(raw.statusUpdatedAt),
    messagingSocketPath: str(raw.messagingSocketPath),
    bridgeSessionId: str(raw.bridgeSessionId),
    tmux: str(raw.tmux),
    raw,
  };
}
