/**
 * Which PID space a record belongs to. Claude Code writes `pidDomain` (since about 2.1.258) and never
 * probes a record from another domain; we compute ours the same way and add a conservative rule for
 * records written before the field existed.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { lazyBuiltin } from '../runtime.js';

// node:os for Windows' host name only: not loaded where it is not needed.
const os = lazyBuiltin<typeof import('node:os')>('node:os');

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
  if (platform === 'win32') return `win32:${os().hostname().toLowerCase()}`;
  return `linux:${readTrimmed('/etc/machine-id')}:${readLink('/proc/self/ns/pid')}`;
}

let cachedDomain: string | undefined;

/** Our pidDomain, computed once per process. */
export function ourPidDomain(): string {
  return (cachedDomain ??= computePidDomain());
}

let cachedWsl: boolean | undefined;

/**
 * True on WSL, where the sessions folder may be shared with Windows, whose PIDs we cannot probe. The
 * kernel's release names Microsoft in any case; looked for without a regular expression, which a cold
 * process would compile for this one test.
 */
export function isWsl(): boolean {
  if (cachedWsl === undefined) {
    cachedWsl =
      process.platform === 'linux' &&
      (process.env.WSL_DISTRO_NAME !== undefined || readTrimmed('/proc/sys/kernel/osrelease').toLowerCase().includes('microsoft'));
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

let cachedFacts: DomainFacts | undefined;

/** This process's facts (each part is fixed for the life of the process), one frozen object. */
export function domainFacts(): DomainFacts {
  return (cachedFacts ??= Object.freeze({ platform: process.platform, ours: ourPidDomain(), wsl: isWsl() }));
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
 * The end of the key `"pidDomain"`. Searched for instead of the whole key: its first character is rare
 * in a record (every other key and value is full of quotes), so the search skips along by memchr
 * (about 45 ns for a 600-byte record against 175 ns for the whole key).
 */
const KEY_TAIL = 'Domain"';
let spelledFor: string | undefined;
let spelled: string | undefined;

/** `:"<ours>"`, built once per domain (not per record); undefined when ours cannot be spelled unescaped. */
function domainValue(ours: string): string | undefined {
  if (ours !== spelledFor) {
    spelledFor = ours;
    spelled = ours.includes('"') ? undefined : `:"${ours}"`;
  }
  return spelled;
}

/**
 * True when a document's text proves, without parsing it, that the claim is local: every way it could
 * be foreign (isLocalClaim) is ruled out on the raw bytes. With no backslash there are no escapes, so
 * every key is spelled literally and no string holds a quote. Then either
 * - no `pidDomain` key appears anywhere, and no cwd can be a Windows path (those need `\` or `X:/`), or
 * - `Domain"` appears exactly once, as the key `"pidDomain"` followed by `:"<ours>"`, and the document
 *   nests no object (no `{` but the one that opens it), so that key is the top-level one; else the
 *   cwd rule above must hold too (a nested pidDomain says nothing of the top level).
 * Anything less certain answers false, and the caller parses the document.
 */
export function isProvablyLocalText(text: string, facts: DomainFacts): boolean {
  if (facts.platform === 'win32' || facts.wsl) return false;
  if (text.includes('\\')) return false;
  const tail = text.indexOf(KEY_TAIL);
  if (tail < 0) return !text.includes(':/');
  const value = domainValue(facts.ours);
  if (value === undefined || tail < 4 || !text.startsWith('"pid', tail - 4) || !text.startsWith(value, tail + KEY_TAIL.length)) {
    return false;
  }
  if (text.indexOf(KEY_TAIL, tail + KEY_TAIL.length + value.length) >= 0) return false;
  const open = text.indexOf('{');
  if (open >= 0 && text.indexOf('{', open + 1) < 0) return true;
  return !text.includes(':/');
}
