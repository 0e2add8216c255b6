/**
 * A remote answer's facts → records and skips, judged by the same code as local ones: each file by
 * lib/registry/read/schema.ts, each PID's measurement by the same probe logic the JS backends use
 * (linuxProbeInto, psProbeInto, fed with what the REMOTE kernel said), and each verdict by
 * lib/registry/verdict.ts with the remote's own pidDomain. No remote PID is ever probed here.
 */
import { tokenString } from '../backend/index.js';
import { linuxProbeInto } from '../backend/js-linux.js';
import { BSD_PID_MAX, LINUX_PID_MAX_LIMIT, psProbeInto, type PsOptions } from '../backend/ps.js';
import { STATE_NAMES, type NumericTokenForm, type ProbeState } from '../backend/types.js';
import { readPsRun } from '../proc/ps-output.js';
import type { DomainFacts } from '../registry/domain.js';
import { hasLiveInteractiveIn } from '../registry/guards.js';
import { parseClaim, type Claim } from '../registry/read/schema.js';
import type { ScanResult, SkippedCandidate } from '../registry/types.js';
import { judgeClaims, judgeVerdicts, type LivenessKey, type MeasurePids } from '../registry/verdict.js';
import type { ReaderAnswer, RemotePidFacts } from './answer.js';

/** The remote's domain facts: only its own pidDomain makes a record probeable (there). */
export function remoteFacts(answer: ReaderAnswer): DomainFacts {
  // Only 'win32' changes isLocalClaim's rule for a record without pidDomain; an unknown Unix is 'linux'.
  const platform: NodeJS.Platform = answer.platform === 'darwin' ? 'darwin' : 'linux';
  // A remote that could not say its domain matches no record that names one: those are `foreign`.
  return { platform, ours: answer.pidDomain ?? '', wsl: answer.wsl };
}

/** kill -0 as the remote answered it: the first ask, then the second (after a failed read). */
function remoteKill(facts: ReadonlyMap<number, RemotePidFacts>): (pid: number) => boolean {
  const asked = new Map<number, number>();
  return (pid) => {
    const n = asked.get(pid) ?? 0;
    asked.set(pid, n + 1);
    const f = facts.get(pid);
    // A PID the remote did not measure exists as far as we know: never `gone` on a guess.
    if (f === undefined) return true;
    const answer = n === 0 ? f.first : (f.again ?? f.first);
    return answer !== 1;
  };
}

/** The remote's measurements as a MeasurePids: states and tokens in the recorded form. */
export function remoteMeasure(answer: ReaderAnswer): MeasurePids {
  return (pids) => {
    const count = pids.length;
    const input = Int32Array.from(pids);
    const rawStates = new Uint8Array(count);
    const rawTokens = new Float64Array(count).fill(NaN);
    let form: NumericTokenForm = 'ticks';
    if (answer.probe === 'proc') {
      linuxProbeInto(
        {
          killZero: remoteKill(answer.pids),
          readStat(pid, buf) {
            const stat = answer.proc === 'ours' ? answer.pids.get(pid)?.stat : undefined;
            if (stat === undefined || stat.length === 0) return -1;
            return stat.copy(buf, 0, 0, Math.min(stat.length, buf.length));
          },
        },
        input,
        rawStates,
        rawTokens,
      );
    } else if (answer.probe === 'ps') {
      form = 'lstart';
      // What the remote's ps run obeyed: macOS's PID_MAX (the reader passes no larger PID to ps), and
      // one run for every PID (the reader ran one).
      const options: PsOptions = {
        command: 'ps',
        timeoutMs: 0,
        chunkSize: Number.MAX_SAFE_INTEGER,
        pidMax: answer.platform === 'darwin' ? BSD_PID_MAX : LINUX_PID_MAX_LIMIT,
      };
      const run = answer.ps;
      psProbeInto(input, rawStates, rawTokens, options, {
        killZero: remoteKill(answer.pids),
        runPs: () =>
          run === undefined
            ? { complete: false, rows: new Map(), spawnFailed: true }
            : { ...readPsRun({ status: run.status, stdout: run.stdout, stderr: run.stderr }), spawnFailed: false },
      });
    } else {
      rawStates.fill(3); // STATE_UNVERIFIED: the remote had no way to measure
    }
    const states: ProbeState[] = Array.from(rawStates, (s) => STATE_NAMES[s] ?? 'unverified');
    const tokens = Array.from(rawTokens, (t) => tokenString(form, t));
    return { states, tokens };
  };
}

/** The remote's folder path + name (the reader prints absolute paths as it found them). */
function remotePath(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

/** Records and skips of a remote answer, sorted by PID as a local scan's are. */
export function judgeAnswer(answer: ReaderAnswer): ScanResult {
  const claims: Claim[] = [];
  const skipped: SkippedCandidate[] = [];
  for (const folder of answer.folders) {
    for (const file of folder.files) {
      const path = remotePath(folder.dir, file.name);
      const outcome = 'bytes' in file ? parseClaim(file.bytes, path, file.pid) : file.reason;
      if (typeof outcome === 'object') claims.push(outcome);
      else skipped.push({ path, pid: file.pid, reason: outcome });
    }
  }
  const records = judgeClaims(claims, remoteFacts(answer), undefined, remoteMeasure(answer));
  const order = (a: { pid: number; path: string }, b: { pid: number; path: string }) =>
    a.pid - b.pid || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return { records: records.sort(order), skipped: skipped.sort(order) };
}

/** The guard's question for a remote scan, its unreadable files' PIDs judged by the remote's measurements. */
export function remoteHasLiveInteractive(answer: ReaderAnswer, scan: ScanResult): boolean {
  const facts = remoteFacts(answer);
  const measure = remoteMeasure(answer);
  return hasLiveInteractiveIn(scan, (claims: LivenessKey[]) => judgeVerdicts(claims, facts, undefined, measure));
}
