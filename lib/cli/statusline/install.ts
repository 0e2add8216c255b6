/**
 * `claude-ps statusline --install` / `--uninstall` (docs/statusline.md, "The settings snippet"): the
 * snippet written into the config dir's settings.json. The old file is kept beside it first
 * (`settings.json.claude-ps-backup`), the new one replaces it atomically with the same mode, and a
 * statusLine that is not this snippet is never replaced without --force nor ever removed.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, lstatSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isOurStatusLine, statusLineSetting, type SnippetOptions } from './snippet.js';

export const BACKUP_SUFFIX = '.claude-ps-backup';

export class InstallError extends Error {}

type Settings = Record<string, unknown>;

function readSettings(path: string): { settings: Settings; mode: number | undefined } {
  let text: string;
  let mode: number | undefined;
  try {
    const st = lstatSync(path);
    if (!st.isFile()) throw new InstallError(`${path} is not a regular file; not touching it`);
    mode = st.mode & 0o777;
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof InstallError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { settings: {}, mode: undefined };
    throw new InstallError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new InstallError(`${path} is not valid JSON (${(error as Error).message}); fix it first`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InstallError(`${path} does not hold a JSON object`);
  return { settings: value as Settings, mode };
}

function writeSettings(path: string, settings: Settings, mode: number | undefined, existed: boolean): string | undefined {
  let backup: string | undefined;
  if (existed) {
    backup = path + BACKUP_SUFFIX;
    copyFileSync(path, backup);
  }
  const temp = join(path, '..', `.settings.json.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, JSON.stringify(settings, null, 2) + '\n', { flag: 'wx', mode: mode ?? 0o644 });
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // never made
    }
    throw new InstallError(`cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return backup;
}

export interface InstallResult {
  path: string;
  /** What was done: written, already there, removed, or nothing of ours to remove. */
  action: 'installed' | 'unchanged' | 'uninstalled' | 'absent';
  backup?: string;
}

export function installStatusLine(path: string, claudePs: string, force: boolean, options: SnippetOptions = {}): InstallResult {
  const { settings, mode } = readSettings(path);
  const wanted = statusLineSetting(claudePs, options);
  const current = settings.statusLine;
  if (JSON.stringify(current) === JSON.stringify(wanted)) return { path, action: 'unchanged' };
  if (current !== undefined && !isOurStatusLine(current) && !force) {
    throw new InstallError(`${path} already has a statusLine of its own (${JSON.stringify(current).slice(0, 120)}); --force replaces it (a backup is kept)`);
  }
  const backup = writeSettings(path, { ...settings, statusLine: wanted }, mode, mode !== undefined);
  return { path, action: 'installed', backup };
}

export function uninstallStatusLine(path: string): InstallResult {
  const { settings, mode } = readSettings(path);
  if (settings.statusLine === undefined) return { path, action: 'absent' };
  if (!isOurStatusLine(settings.statusLine)) {
    throw new InstallError(`${path} has a statusLine that is not claude-ps's snippet; left as it is`);
  }
  const { statusLine: _removed, ...rest } = settings;
  const backup = writeSettings(path, rest, mode, true);
  return { path, action: 'uninstalled', backup };
}
