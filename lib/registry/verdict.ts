/**
 * Liveness policy: a claim plus what the probe measured → a verdict (docs/liveness.md).
 * Backends only measure; every decision is here, in one pure function, so the batch path
 * (`judgeClaims`) and the single-claim path (`verdict`) cannot disagree.
 */
import { probeBackend, tokenAt } from '../backend/index.js';
import { STATE_NAMES, type ProbeState } from '../backend/types.js';
import { compareTokens, recordedToken } from '../proc/token.js';
import { domainFacts, isLocalClaim, type DomainFacts } from './domain.js';
import { isInteractiveKind, type Claim } from './read/schema.js';
import { DEAD_VERDICTS, type SessionRecord, type Verdict } from './types.js';

/** Linux and macOS PIDs fit in a signed 32-bit integer: a PID above it cannot exist. */
export const PID_MAX = 2147483647;

/**
 * The verdict for a local claim, given the probe's state and the current token. Conservative: only a
 * provable difference is `recycled`; a missing token, a token of another form, or one a time-zone
 * offset away from the current one (a writer that printed local time, docs/macos.md) is `unverified`.
 */
export function decideVerdict(recorded: string | undefined, state: ProbeState, current: string | undefined): Verdict {
  if (state === 'gone' || state === 'invalid') return 'gone';
  // The PID's process has exited and awaits reaping: whoever it was, the claim is provably dead.
  if (state === 'zombie') return 'zombie';
  if (recorded === undefined || current === undefined || state === 'unverified') return 'unverified';
  const same = compareTokens(recorded, current);
  if (same === undefined) return 'unverified';
  return same ? 'alive' : 'recycled';
}

/**
 * A claim and its verdict → the frozen record. Spelled out field by field: an object spread here cost
 * ~10 µs per record (more than reading the file), a literal of one fixed shape ~0.2 µs.
 */
function toRecord(c: Claim, v: Verdict): SessionRecord {
  return Object.freeze({
    path: c.path,
    pid: c.pid,
    sessionId: c.sessionId,
    token: c.token,
    pidDomain: c.pidDomain,
    kind: c.kind,
    interactive: isInteractiveKind(c.kind),
    verdict: v,
    live: !DEAD_VERDICTS.has(v),
    cwd: c.cwd,
    startedAt: c.startedAt,
    procStart: c.procStart,
    procStartFt: c.procStartFt,
    version: c.version,
    entrypoint: c.entrypoint,
    name: c.name,
    status: c.status,
    waitingFor: c.waitingFor,
    updatedAt: c.updatedAt,
    statusUpdatedAt: c.statusUpdatedAt,
    messagingSocketPath: c.messagingSocketPath,
    bridgeSessionId: c.bridgeSessionId,
    tmux: c.tmux,
    raw: c.raw,
  });
}

/** What liveness depends on: the identity claim and where it was written. */
export type LivenessKey = Pick<Claim, 'pid' | 'token' | 'pidDomain' | 'cwd'>;

/** Same process named: PID, start token and pidDomain (status, name, sessionId and clocks are not identity). */
export function sameIdentity(a: Pick<LivenessKey, 'pid' | 'token' | 'pidDomain'>, b: Pick<LivenessKey, 'pid' | 'token' | 'pidDomain'>): boolean {
  return a.pid === b.pid && a.token === b.token && a.pidDomain === b.pidDomain;
}

/** What the probe measured for one PID, its token already in the recorded form. */
export interface Measurement {
  state: ProbeState;
  token: string | undefined;
}

/** What measures many PIDs at once: this machine's backend (measurePids), or another host's answer (lib/hosts). */
export type MeasurePids = (pids: readonly number[]) => { states: ProbeState[]; tokens: (string | undefined)[] };

/**
 * The probe's typed arrays, one set per process, grown on need: three fresh ones per call (each an
 * ArrayBuffer of its own past 64 bytes) cost more in allocation and GC tracking than probing a few PIDs.
 * measurePids never calls out while it holds them, and copies its answers out before it returns.
 */
let scratchPids = new Int32Array(64);
let scratchStates = new Uint8Array(64);
let scratchTokens = new Float64Array(64);

/** ONE backend probe for many PIDs (each 1..PID_MAX): states by name, tokens in the recorded form. */
export function measurePids(pids: readonly number[]): { states: ProbeState[]; tokens: (string | undefined)[] } {
  const count = pids.length;
  const states: ProbeState[] = new Array(count);
  const tokens: (string | undefined)[] = new Array(count);
  if (count === 0) return { states, tokens };
  if (scratchPids.length < count) {
    const size = Math.max(count, scratchPids.length * 2);
    scratchPids = new Int32Array(size);
    scratchStates = new Uint8Array(size);
    scratchTokens = new Float64Array(size);
  }
  const input = scratchPids.subarray(0, count);
  for (let k = 0; k < count; k++) input[k] = pids[k]!;
  const rawStates = scratchStates;
  const rawTokens = scratchTokens;
  const backendImpl = probeBackend();
  backendImpl.probeInto(input, rawStates, rawTokens);
  for (let k = 0; k < count; k++) {
    states[k] = STATE_NAMES[rawStates[k]!] ?? 'unverified';
    tokens[k] = tokenAt(backendImpl.tokenForm, rawTokens, k);
  }
  return { states, tokens };
}

/**
 * The verdicts of many claims from ONE backend probe. Foreign claims are never probed; a PID above
 * PID_MAX is `gone` without a system call. `measured` holds answers a caller already probed for, after
 * reading the claims (a live-only scan does): those PIDs are not probed again. `measure` is this
 * machine's probe; another host's records are judged with that host's facts and measurements
 * (lib/hosts/judge.ts), so none of them is ever probed against a local PID.
 */
export function judgeVerdicts(
  claims: readonly LivenessKey[],
  facts: DomainFacts = domainFacts(),
  measured?: ReadonlyMap<number, Measurement>,
  measure: MeasurePids = measurePids,
): Verdict[] {
  const count = claims.length;
  const verdicts: Verdict[] = new Array(count);
  const slot: number[] = new Array(count).fill(-1); // index into the probe batch, or -1
  const pids: number[] = [];
  for (let i = 0; i < count; i++) {
    const c = claims[i]!;
    const known = measured?.get(c.pid);
    if (!isLocalClaim(c.pidDomain, c.cwd, facts)) verdicts[i] = 'foreign';
    else if (c.pid > PID_MAX) verdicts[i] = 'gone';
    else if (known !== undefined) verdicts[i] = decideVerdict(c.token, known.state, known.token);
    else slot[i] = pids.push(c.pid) - 1;
  }
  const { states, tokens } = measure(pids);
  for (let i = 0; i < count; i++) {
    const k = slot[i]!;
    if (k >= 0) verdicts[i] = decideVerdict(claims[i]!.token, states[k]!, tokens[k]);
  }
  return verdicts;
}

/** Claims → frozen records, liveness resolved in one batch probe, in the claims' order. */
export function judgeClaims(
  claims: readonly Claim[],
  facts: DomainFacts = domainFacts(),
  measured?: ReadonlyMap<number, Measurement>,
  measure: MeasurePids = measurePids,
): SessionRecord[] {
  const verdicts = judgeVerdicts(claims, facts, measured, measure);
  // Pushed, not Array.prototype.map: map's array has one elements kind when the builtin makes it and
  // another when TurboFan inlines it into an optimized caller, and the caller's next use of the array
  // (finish()'s sort) then deoptimized it and made V8 compile it again (~10-30 ms of CPU once per
  // process, in a poller's first second of scans).
  const records: SessionRecord[] = [];
  for (let i = 0; i < claims.length; i++) records.push(toRecord(claims[i]!, verdicts[i]!));
  return records;
}

function checkClaim(fn: string, pid: unknown, token: unknown, pidDomain: unknown): void {
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid < 1) {
    throw new TypeError(`${fn}(pid, token?, pidDomain?): pid must be a positive safe integer`);
  }
  if (token !== undefined && typeof token !== 'string') throw new TypeError(`${fn}: token must be a string or undefined`);
  if (pidDomain !== undefined && typeof pidDomain !== 'string') {
    throw new TypeError(`${fn}: pidDomain must be a string or undefined`);
  }
}

/**
 * The verdict for one claim, now. `token` is the recorded start token (normalised with
 * recordedToken: blank is absent); `pidDomain` as recorded (absent: taken as local, except on WSL).
 */
export function verdict(pid: number, token?: string, pidDomain?: string): Verdict {
  checkClaim('verdict', pid, token, pidDomain);
  return judgeVerdicts([{ pid, token: recordedToken(token), pidDomain, cwd: undefined }])[0]!;
}

/** True unless the claim is provably dead (`gone`, `recycled`, `zombie`). */
export function isLive(pid: number, token?: string, pidDomain?: string): boolean {
  checkClaim('isLive', pid, token, pidDomain);
  return !DEAD_VERDICTS.has(verdict(pid, token, pidDomain));
}
