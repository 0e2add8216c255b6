/**
 * The library's read functions with a `hosts` option (docs/hosts.md, "Library"). Without `hosts`
 * each is exactly the registry's own function; with it, a thin layer over readHosts: every host
 * read in parallel (`local` = this machine, with the ordinary scan), records carrying `host` and
 * `measuredAt`, and no host that failed ever dropped in silence. The record functions reject with
 * HostsIncompleteError when any host gave no complete answer (its partial scans on the error); the
 * guard resolves true if any host says yes, false only when every host answered no, and rejects
 * otherwise. The synchronous functions cannot reach another machine and refuse `hosts` loudly.
 */
import {
  hasLiveInteractive as hasLiveInteractiveHere,
  hasLiveInteractiveAsync as hasLiveInteractiveAsyncHere,
  liveInteractiveRecords as liveInteractiveRecordsHere,
  liveInteractiveRecordsAsync as liveInteractiveRecordsAsyncHere,
  liveRecords as liveRecordsHere,
  liveRecordsAsync as liveRecordsAsyncHere,
} from '../registry/guards.js';
import { checkReadOptions } from '../registry/read/options.js';
import {
  readRecords as readRecordsHere,
  readRecordsAsync as readRecordsAsyncHere,
  scanRegistry as scanRegistryHere,
  scanRegistryAsync as scanRegistryAsyncHere,
} from '../registry/read/scan.js';
import type { ConfigDirs, ReadOptions, ScanResult, SessionRecord, SkippedCandidate } from '../registry/types.js';
import { HostsIncompleteError } from './incomplete.js';
import { anyInteractive, readHosts, type HostReadOptions, type HostRecord, type HostScan } from './read.js';

/** ReadOptions plus the hosts to read; the positional config dirs apply to `local`. */
export interface HostsReadOptions extends Omit<HostReadOptions, 'configDirs'> {
  /** ssh destinations (an alias, host, user@host); `'local'` is this machine. At least one. */
  hosts: readonly string[];
}

/** A scan over hosts: every host's records and skips, tagged, and each host's own scan. */
export interface HostsScanResult {
  records: HostRecord[];
  skipped: (SkippedCandidate & { host: string })[];
  /** One per host, in the order given: state, measuredAt, roundTripMs, clockSkewS, remote facts. */
  hosts: HostScan[];
}

type Args = [configDirs?: ConfigDirs | HostsReadOptions | ReadOptions, options?: ReadOptions | HostsReadOptions];

function isOptionsObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * (configDirs, options), or (options) alone: an object that is not an array cannot be config dirs,
 * so `readRecordsAsync({ hosts })` reads as a library user means it.
 */
function argsOf([first, second]: Args): { configDirs: ConfigDirs; options: (ReadOptions & { hosts?: unknown }) | undefined } {
  if (isOptionsObject(first) && second === undefined) return { configDirs: undefined, options: first };
  return { configDirs: first as ConfigDirs, options: second as (ReadOptions & { hosts?: unknown }) | undefined };
}

function wantsHosts(options: { hosts?: unknown } | undefined): boolean {
  return isOptionsObject(options) && options.hosts !== undefined;
}

function refuseSync(name: string, options: { hosts?: unknown } | undefined): void {
  if (wantsHosts(options)) {
    throw new TypeError(`${name}() reads this machine only and cannot take options.hosts (other machines are read over ssh): use ${name}Async()`);
  }
}

/** Checks `hosts` and reads them all: the one path every `hosts` question takes. */
async function scanHosts(configDirs: ConfigDirs, options: ReadOptions & { hosts?: unknown }): Promise<HostScan[]> {
  const hosts = options.hosts;
  if (!Array.isArray(hosts) || hosts.length === 0) {
    throw new TypeError('options.hosts must be a non-empty array of host names (ssh destinations, or "local" for this machine)');
  }
  checkReadOptions({ retryDelayMs: options.retryDelayMs, env: options.env });
  const { hosts: _hosts, ...rest } = options as HostsReadOptions;
  return readHosts(hosts as string[], { ...rest, configDirs });
}

/** Every host answered completely, or the typed error with what did arrive. */
function complete(scans: HostScan[], question: string): HostsScanResult {
  const failed = scans.filter((s) => s.state !== 'ok');
  if (failed.length > 0) throw new HostsIncompleteError(scans, failed, question);
  return { records: scans.flatMap((s) => s.records), skipped: scans.flatMap((s) => s.skipped), hosts: scans };
}

/** A synchronous read of this machine that refuses `hosts` (it cannot reach another machine). */
function thisMachineOnly<R>(name: string, read: (configDirs?: ConfigDirs, options?: ReadOptions) => R) {
  return (configDirs?: ConfigDirs, options?: ReadOptions): R => {
    const args = argsOf([configDirs, options]);
    refuseSync(name, args.options);
    return read(args.configDirs, args.options);
  };
}

export const scanRegistry = thisMachineOnly('scanRegistry', scanRegistryHere);
export const readRecords = thisMachineOnly('readRecords', readRecordsHere);
export const liveRecords = thisMachineOnly('liveRecords', liveRecordsHere);
export const liveInteractiveRecords = thisMachineOnly('liveInteractiveRecords', liveInteractiveRecordsHere);
/** The local guard (docs/guard.md); over hosts, hasLiveInteractiveAsync. */
export const hasLiveInteractive = thisMachineOnly('hasLiveInteractive', hasLiveInteractiveHere);

/** The records over hosts of a complete answer, `pick`ed; else the typed error. */
async function overHosts<R>(args: Args, question: string, pick: (scan: HostsScanResult) => R): Promise<R> {
  const { configDirs, options } = argsOf(args);
  return pick(complete(await scanHosts(configDirs, options!), question));
}

/** Every record and skip of every host; rejects with HostsIncompleteError if a host gave no complete answer. */
export async function scanRegistryAsync(options: HostsReadOptions): Promise<HostsScanResult>;
export async function scanRegistryAsync(configDirs: ConfigDirs, options: HostsReadOptions): Promise<HostsScanResult>;
export async function scanRegistryAsync(configDirs?: ConfigDirs, options?: ReadOptions): Promise<ScanResult>;
export async function scanRegistryAsync(...args: Args): Promise<ScanResult | HostsScanResult> {
  const { configDirs, options } = argsOf(args);
  if (!wantsHosts(options)) return scanRegistryAsyncHere(configDirs, options);
  return overHosts(args, 'scanRegistryAsync', (scan) => scan);
}

export async function readRecordsAsync(options: HostsReadOptions): Promise<HostRecord[]>;
export async function readRecordsAsync(configDirs: ConfigDirs, options: HostsReadOptions): Promise<HostRecord[]>;
export async function readRecordsAsync(configDirs?: ConfigDirs, options?: ReadOptions): Promise<SessionRecord[]>;
export async function readRecordsAsync(...args: Args): Promise<SessionRecord[] | HostRecord[]> {
  const { configDirs, options } = argsOf(args);
  if (!wantsHosts(options)) return readRecordsAsyncHere(configDirs, options);
  return overHosts(args, 'readRecordsAsync', (scan) => scan.records);
}

export async function liveRecordsAsync(options: HostsReadOptions): Promise<HostRecord[]>;
export async function liveRecordsAsync(configDirs: ConfigDirs, options: HostsReadOptions): Promise<HostRecord[]>;
export async function liveRecordsAsync(configDirs?: ConfigDirs, options?: ReadOptions): Promise<SessionRecord[]>;
export async function liveRecordsAsync(...args: Args): Promise<SessionRecord[] | HostRecord[]> {
  const { configDirs, options } = argsOf(args);
  if (!wantsHosts(options)) return liveRecordsAsyncHere(configDirs, options);
  return overHosts(args, 'liveRecordsAsync', (scan) => scan.records.filter((r) => r.live));
}

export async function liveInteractiveRecordsAsync(options: HostsReadOptions): Promise<HostRecord[]>;
export async function liveInteractiveRecordsAsync(configDirs: ConfigDirs, options: HostsReadOptions): Promise<HostRecord[]>;
export async function liveInteractiveRecordsAsync(configDirs?: ConfigDirs, options?: ReadOptions): Promise<SessionRecord[]>;
export async function liveInteractiveRecordsAsync(...args: Args): Promise<SessionRecord[] | HostRecord[]> {
  const { configDirs, options } = argsOf(args);
  if (!wantsHosts(options)) return liveInteractiveRecordsAsyncHere(configDirs, options);
  return overHosts(args, 'liveInteractiveRecordsAsync', (scan) => scan.records.filter((r) => r.live && r.interactive));
}

/**
 * The guard over hosts: true if any host says yes (even while others fail), false only when every
 * host answered and none has a live interactive session; otherwise rejects with HostsIncompleteError
 * (code ERR_HOSTS_INCOMPLETE), never false. Without `hosts`, the local guard (docs/guard.md).
 */
export async function hasLiveInteractiveAsync(options: HostsReadOptions): Promise<boolean>;
export async function hasLiveInteractiveAsync(configDirs: ConfigDirs, options: HostsReadOptions): Promise<boolean>;
export async function hasLiveInteractiveAsync(configDirs?: ConfigDirs, options?: ReadOptions): Promise<boolean>;
export async function hasLiveInteractiveAsync(...args: Args): Promise<boolean> {
  const { configDirs, options } = argsOf(args);
  if (!wantsHosts(options)) return hasLiveInteractiveAsyncHere(configDirs, options);
  const scans = await scanHosts(configDirs, options!);
  const answer = anyInteractive(scans);
  if (answer !== undefined) return answer;
  throw new HostsIncompleteError(scans, scans.filter((s) => s.interactive === undefined), 'hasLiveInteractiveAsync');
}
