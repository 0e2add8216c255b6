/**
 * Where the registry lives: the config dir(s), their `sessions/` folders, and which file names are
 * candidates. Pure except for the realpath used to read a shared folder once, and the passwd lookup
 * when HOME is empty.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { ConfigDirs } from './types.js';
import { lazyBuiltin } from '../runtime.js';

// node:os only where $HOME does not answer (Windows, an unset HOME): loading it is ~0.3 ms of a cold start.
const os = lazyBuiltin<typeof import('node:os')>('node:os');

/**
 * `CLAUDE_CONFIG_DIR`, else `~/.claude`, NFC-normalised as Claude Code does. An empty value means unset
 * (an empty HOME too): otherwise the default would be `./sessions` under whatever folder the caller
 * happens to run in, and a guard would answer for the wrong folder (docs/guard.md).
 */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (typeof env !== 'object' || env === null) throw new TypeError('defaultConfigDir(env): env must be an object like process.env');
  const configured: unknown = env.CLAUDE_CONFIG_DIR;
  if (configured !== undefined && typeof configured !== 'string') {
    throw new TypeError('defaultConfigDir(env): env.CLAUDE_CONFIG_DIR must be a string or undefined');
  }
  return (configured || join(homeDir(), '.claude')).normalize('NFC');
}

/**
 * `os.homedir()`, which is `$HOME` even when empty (read here without node:os where that is what it
 * would return, off Windows); then the passwd entry, as with HOME unset.
 */
function homeDir(): string {
  const fromEnv = process.platform === 'win32' ? undefined : process.env.HOME;
  const home = fromEnv ?? os().homedir();
  if (home !== '') return home;
  let fromPasswd = '';
  try {
    fromPasswd = os().userInfo().homedir;
  } catch {
    // no passwd entry for this user
  }
  if (fromPasswd === '') {
    throw new Error('HOME is empty and this user has no home folder: name the config dir (CLAUDE_CONFIG_DIR, configDirs)');
  }
  return fromPasswd;
}

/** `<configDir>/sessions`. */
export function sessionsDir(configDir: string): string {
  if (typeof configDir !== 'string') throw new TypeError('sessionsDir(configDir): configDir must be a string');
  return join(configDir, 'sessions');
}

/**
 * The PID of a canonical `<pid>.json` name (`^[1-9][0-9]*\.json$`), NaN for any other name; a PID
 * beyond a safe integer comes back rounded. A character loop, not the pattern: every scan tests
 * every listed name, twice (about a fifth of the JS time of a 10-record scan went to the regex).
 */
function candidatePid(name: string): number {
  const digits = name.length - 5;
  if (digits < 1 || !name.endsWith('.json')) return NaN;
  let pid = 0;
  for (let i = 0; i < digits; i++) {
    const d = name.charCodeAt(i) - 48;
    if (d < 0 || d > 9 || (i === 0 && d === 0)) return NaN;
    pid = pid * 10 + d;
  }
  return pid;
}

/** Canonical decimal `<pid>.json` only: `0123.json`, `12.json.tmp`, `123.<hex>.key`, `notes.json` are not. */
export function isCandidateName(name: string): boolean {
  return !Number.isNaN(candidatePid(name));
}

/** The PID in a candidate's name, or undefined for a non-candidate (or a PID beyond a safe integer). */
export function pidFromName(name: string): number | undefined {
  const pid = candidatePid(name);
  return Number.isSafeInteger(pid) ? pid : undefined;
}

function configDirList(configDirs: ConfigDirs, env: NodeJS.ProcessEnv | undefined): readonly string[] {
  if (configDirs === undefined) return [defaultConfigDir(env)];
  const list: readonly unknown[] =
    typeof configDirs === 'string' ? [configDirs] : Array.isArray(configDirs) ? configDirs : [configDirs];
  if (list.some((d) => typeof d !== 'string')) {
    throw new TypeError('configDirs must be a string, an array of strings, or undefined');
  }
  // '' would resolve to the current folder, and no path holds a NUL: both are mistakes, not folders.
  if (list.some((d) => d === '' || (d as string).includes('\0'))) {
    throw new TypeError('configDirs: each config dir must be a non-empty path without NUL characters');
  }
  return list as readonly string[];
}

function realKey(dir: string): string {
  try {
    // The native realpath(3) is one call; the JS one lstat()s every path component.
    return realpathSync.native(dir);
  } catch {
    return dir; // missing or unreadable: the read finds nothing there
  }
}

/**
 * True for a POSIX absolute path with nothing path.resolve would change: no empty, `.` or `..` segment
 * and no trailing slash. Its sessions folder is then itself + `/sessions`, with no node:path call: a
 * cold process compiles join, normalize and resolve at their first call (~0.1 ms here), for a path
 * that is already in their form (test/registry/config-fast-path.test.ts holds the two equal).
 */
export function isPlainAbsolute(path: string): boolean {
  if (path.charCodeAt(0) !== 47 || path.length < 2 || path.charCodeAt(path.length - 1) === 47) return false;
  return !path.includes('//') && !path.includes('/./') && !path.includes('/../') && !path.endsWith('/.') && !path.endsWith('/..');
}

/** The last single absolute config dir resolved, and its sessions folder. */
let lastAbsolute: string | undefined;
let lastResolved = '';

/**
 * The `sessions/` folders to read: absolute, in the order given, with folders that resolve (realpath)
 * to the same place kept once, under the first path given for them (records then carry the paths the
 * caller named). A folder that does not exist is kept: reading it yields an empty registry.
 */
export function resolveSessionsDirs(configDirs: ConfigDirs, env: NodeJS.ProcessEnv = process.env): string[] {
  // A poller names the same absolute folder on every call: its resolution depends on nothing else.
  if (configDirs === lastAbsolute && lastAbsolute !== undefined) return [lastResolved];
  // (A NUL still goes to configDirList, which refuses it.)
  if (typeof configDirs === 'string' && sep === '/' && isPlainAbsolute(configDirs) && !configDirs.includes('\0')) {
    lastAbsolute = configDirs;
    lastResolved = `${configDirs}/sessions`;
    return [lastResolved];
  }
  const dirs = configDirList(configDirs, env).map((configDir) => resolve(sessionsDir(configDir)));
  // One folder has nothing to be deduplicated against: skip the realpath (a third of an empty scan).
  if (dirs.length === 1) {
    // Not on Windows, where a path rooted without a drive (\x) resolves against the current drive.
    if (typeof configDirs === 'string' && process.platform !== 'win32' && isAbsolute(configDirs)) {
      lastAbsolute = configDirs;
      lastResolved = dirs[0]!;
    }
    return dirs;
  }
  const seen = new Set<string>();
  return dirs.filter((dir) => {
    const key = realKey(dir);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A file in a folder resolveSessionsDirs returned (absolute, normalised): concatenation is a correct join. */
export function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}
