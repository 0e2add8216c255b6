/**
 * Reading several machines' registries at once: `local` with the ordinary scan, every other host
 * with the reader over ssh, all in parallel. Each host's answer says where and when it was measured,
 * and a host that gave none says why (docs/hosts.md); none is ever an empty registry on a guess.
 */
import { hasLiveInteractiveIn, provenNo } from '../registry/guards.js';
import { MisplacedConfigDirError } from '../registry/read/misplaced.js';
import { scanRegistryAsync } from '../registry/read/scan.js';
import { RegistryUnreadableError } from '../registry/read/unreadable-folder.js';
import type { ConfigDirs, ReadOptions, SessionRecord, SkippedCandidate } from '../registry/types.js';
import { MAX_ANSWER_BYTES, parseAnswer, type ReaderAnswer, type RemoteFolder } from './answer.js';
import { judgeAnswer, remoteHasLiveInteractive } from './judge.js';
import { readerInput } from './reader-text.js';
import { sshGate } from './ssh-gate.js';
import { checkHostName, checkTimeoutMs, lastLine, runOverSsh, type HostFailure } from './transport.js';

/** The name that means this machine, read without ssh. */
export const LOCAL_HOST = 'local';

export type HostState = 'ok' | 'unreadable' | HostFailure;

/** A record and where and when it was measured (`measuredAt`: this machine's clock, ms). */
export type HostRecord = SessionRecord & { readonly host: string; readonly measuredAt: number };

export interface HostScan {
  host: string;
  /** `ok`; `unreadable`: it answered, but a sessions folder could not be listed; else why no answer. */
  state: HostState;
  /**
   * Why, for every state but `ok`, and for an `ok` whose guard answer is undefined (untrusted text
   * from the remote or ssh: print it with care).
   */
  detail: string | undefined;
  /** When the answer arrived (this machine's clock, ms since the epoch); undefined without one. */
  measuredAt: number | undefined;
  /** The remote's clock minus ours when it answered, in seconds (rounded), where it said its clock. */
  clockSkewS: number | undefined;
  roundTripMs: number;
  records: HostRecord[];
  skipped: (SkippedCandidate & { host: string })[];
  /** The guard's answer for this host: true, false (proven), or undefined (cannot tell). */
  interactive: boolean | undefined;
  /** What the remote said of itself (undefined for `local` and for hosts that gave no answer). */
  remote?: Pick<ReaderAnswer, 'platform' | 'probe' | 'pidDomain' | 'wsl' | 'proc'> & { folders: Omit<RemoteFolder, 'files'>[] };
}

export interface HostReadOptions extends ReadOptions {
  /** Config dirs read on `local` (default CLAUDE_CONFIG_DIR, else ~/.claude). */
  configDirs?: ConfigDirs;
  /** Config dirs the remotes read (default: each remote's CLAUDE_CONFIG_DIR, else its ~/.claude). */
  remoteConfigDirs?: readonly string[];
  /** Per host, the whole read (default 15 s). */
  timeoutMs?: number;
}

function tag<T extends object>(items: readonly T[], host: string, measuredAt: number): (T & { host: string; measuredAt: number })[] {
  return items.map((r) => Object.freeze({ ...r, host, measuredAt }));
}

async function readLocal(options: HostReadOptions): Promise<HostScan> {
  const started = performance.now();
  const base = { host: LOCAL_HOST, clockSkewS: 0, records: [], skipped: [] };
  try {
    const scan = await scanRegistryAsync(options.configDirs, options);
    const measuredAt = Date.now();
    const yes = hasLiveInteractiveIn(scan);
    // The local guard's own rule before a "no": a sessions folder given as a config dir proves nothing.
    const misplaced = yes ? undefined : misplacedDetail(options);
    return {
      ...base,
      state: 'ok',
      detail: misplaced,
      measuredAt,
      roundTripMs: Math.round(performance.now() - started),
      records: tag(scan.records, LOCAL_HOST, measuredAt),
      skipped: scan.skipped.map((s) => ({ ...s, host: LOCAL_HOST })),
      interactive: yes ? true : misplaced === undefined ? false : undefined,
    };
  } catch (error) {
    if (!(error instanceof RegistryUnreadableError)) throw error;
    return { ...base, state: 'unreadable', detail: error.message, measuredAt: Date.now(), roundTripMs: 0, interactive: undefined };
  }
}

/** Why this machine's "no" cannot stand (docs/guard.md), or undefined when it can. */
function misplacedDetail(options: HostReadOptions): string | undefined {
  try {
    provenNo(options.configDirs, options);
    return undefined;
  } catch (error) {
    if (error instanceof MisplacedConfigDirError || error instanceof RegistryUnreadableError) return error.message;
    throw error;
  }
}

async function readRemote(host: string, options: HostReadOptions): Promise<HostScan> {
  const outcome = await runOverSsh(host, readerInput(options.remoteConfigDirs), {
    env: options.env,
    timeoutMs: options.timeoutMs,
    maxBytes: MAX_ANSWER_BYTES,
  });
  const none = { host, records: [], skipped: [], interactive: undefined, clockSkewS: undefined, roundTripMs: outcome.roundTripMs };
  if (!outcome.ok) return { ...none, state: outcome.failure, detail: outcome.detail, measuredAt: undefined };
  const parsed = parseAnswer(outcome.stdout);
  if (!parsed.ok) {
    // What the remote printed instead (a missing sh, a ForceCommand of its own) says more than the line.
    const said = lastLine(outcome.stderr);
    const detail = `${parsed.why}${outcome.status ? `; exit ${outcome.status}` : ''}${said ? `; stderr: ${said}` : ''}`;
    return { ...none, state: 'bad answer', detail, measuredAt: undefined };
  }
  const answer = parsed.answer;
  const scan = judgeAnswer(answer);
  // A folder that could not be listed, or whose listing is not proven complete: its sessions are unknown.
  const unlisted = answer.folders.filter((f) => f.listing === 'unreadable' || f.listing === 'unproven');
  const yes = remoteHasLiveInteractive(answer, scan);
  const measuredAt = outcome.measuredAt;
  return {
    ...none,
    state: unlisted.length > 0 ? 'unreadable' : 'ok',
    detail: unlisted.length > 0 ? unlisted.map((f) => `${f.dir}: ${f.listingError || 'cannot be listed'}`).join('; ') : undefined,
    measuredAt,
    clockSkewS: answer.clockS === undefined ? undefined : Math.round(answer.clockS - measuredAt / 1000),
    records: tag(scan.records, host, measuredAt),
    skipped: scan.skipped.map((s) => ({ ...s, host })),
    // An unlisted folder may hold a human's session: only a yes can be told then.
    interactive: yes ? true : unlisted.length > 0 ? undefined : false,
    remote: {
      platform: answer.platform,
      probe: answer.probe,
      pidDomain: answer.pidDomain,
      wsl: answer.wsl,
      proc: answer.proc,
      folders: answer.folders.map(({ files: _files, ...folder }) => folder),
    },
  };
}

/**
 * Reads every host in parallel, `local` without ssh. Resolves with one HostScan per host, in the
 * order given (duplicates once). Throws only for programmer errors (a bad host name or option).
 */
export async function readHosts(hosts: readonly string[], options: HostReadOptions = {}): Promise<HostScan[]> {
  if (!Array.isArray(hosts)) throw new TypeError('readHosts(hosts): hosts must be an array of names');
  const names = [...new Set(hosts.map((h) => (h === LOCAL_HOST ? h : checkHostName(h))))];
  checkTimeoutMs(options.timeoutMs, 'readHosts');
  const gate = sshGate();
  return Promise.all(names.map((host) => (host === LOCAL_HOST ? readLocal(options) : gate(() => readRemote(host, options)))));
}

/** The guard over many hosts: yes if any says yes, no only when every host answered no, else cannot tell. */
export function anyInteractive(scans: readonly HostScan[]): boolean | undefined {
  if (scans.some((s) => s.interactive === true)) return true;
  return scans.every((s) => s.interactive === false) ? false : undefined;
}
