/**
 * Which PID space a record belongs to. Claude Code writes `pidDomain` (since about 2.1.258) and never
 * probes a record from another domain; we compute ours the same way and add a conservative rule for
 * records written before the field existed.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

function readTrimmed(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function readLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

/** Our pidDomain for a platform, as Claude Code computes it (a missing part stays empty: `linux::`). */
export function computePidDomain(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'darwin';
  if (platform === 'win32') return `win32:${hostname().toLowerCase()}`;
  return `linux:${readTrimmed('/etc/machine-id')}:${readLink('/proc/self/ns/pid')}`;
}

let cachedDomain: string | undefined;

/** Our pidDomain, computed once per process. */
export function ourPidDomain(): string {
  return (cachedDomain ??= computePidDomain());
}

let cachedWsl: boolean | undefined;

/** True on WSL, where the sessions folder may be shared with Windows, whose PIDs we cannot probe. */
export function isWsl(): boolean {
  if (cachedWsl === undefined) {
    cachedWsl =
      process.platform === 'linux' &&
      (process.env.WSL_DISTRO_NAME !== undefined || /microsoft/i.test(readTrimmed('/proc/sys/kernel/osrelease')));
  }
  return cachedWsl;
}

/** `C:\…`, `C:/…` or a UNC path `\\server\…`: a cwd written by a Windows process. */
const WINDOWS_PATH = /^(?:[A-Za-z]:[\\/]|\\\\)/;

export interface DomainFacts {
  platform: NodeJS.Platform;
  ours: string;
  wsl: boolean;
}

export function domainFacts(): DomainFacts {
  return { platform: process.platform, ours: ourPidDomain(), wsl: isWsl() };
}

/**
 * True when a claim belongs to our PID space and may be probed. With a `pidDomain`: it must equal
 * ours. Without one (older writers), as Claude Code guesses: on Windows a cwd starting with `/` is
 * foreign; elsewhere the record is local, except on WSL and when the cwd is a Windows path, where a
 * probe could hit an unrelated local process (so "foreign", which is never pruned).
 */
export function isLocalClaim(pidDomain: string | undefined, cwd: string | undefined, facts: DomainFacts): boolean {
  if (pidDomain !== undefined) return pidDomain === facts.ours;
  if (facts.platform === 'win32') return !(cwd !== undefined && cwd.startsWith('/'));
  if (facts.wsl) return false;
  return !(cwd !== undefined && WINDOWS_PATH.test(cwd));
}

/**
 * True when a document's text proves, without parsing it, that the claim is local: every way it could
 * be foreign (isLocalClaim) is ruled out on the raw bytes. With no backslash there are no escapes, so
 * every key is spelled literally; then the top-level `pidDomain` is either absent or the single
 * literal `"pidDomain":"<ours>"`, and no cwd can be a Windows path (those need `\` or `X:/`).
 * Anything less certain answers false, and the caller parses the document.
 */
export function isProvablyLocalText(text: string, facts: DomainFacts): boolean {
  if (facts.platform === 'win32' || facts.wsl) return false;
  if (text.includes('\\') || text.includes(':/')) return false;
  const key = '"pidDomain"';
  const at = text.indexOf(key);
  if (at < 0) return true;
  if (text.indexOf(key, at + 1) >= 0 || facts.ours.includes('"')) return false;
  return text.startsWith(`:"${facts.ours}"`, at + key.length);
}
