/**
 * A config dir that is really a `sessions/` folder: `--config-dir ~/.claude/sessions` (or
 * CLAUDE_CONFIG_DIR set to it) is an easy slip. Its own `sessions/` does not exist, so a reader sees
 * an empty registry, and a guard would answer "no human here" over a folder full of live sessions.
 * A config dir with no `sessions/` that itself holds candidate names (`<pid>.json`) is therefore never
 * a "no": the guard refuses it (docs/guard.md), and the CLI's readers say what they found.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { isCandidateName, resolveSessionsDirs } from '../config.js';
import type { ConfigDirs } from '../types.js';
import { RegistryUnreadableError } from './unreadable-folder.js';

/** `error.code` of a MisplacedConfigDirError. */
export const MISPLACED_CONFIG_DIR = 'ERR_MISPLACED_CONFIG_DIR';

/** What a config dir without `sessions/` holds, when it holds candidate names. */
export interface MisplacedConfigDir {
  /** The config dir as resolved (absolute). */
  configDir: string;
  /** Its `sessions/`, which does not exist. */
  sessionsDir: string;
  /** How many `<pid>.json` names it holds itself. */
  candidates: number;
  /** The folder to pass instead: the config dir's parent. */
  parent: string;
}

export class MisplacedConfigDirError extends Error {
  override name = 'MisplacedConfigDirError';
  readonly code: typeof MISPLACED_CONFIG_DIR = MISPLACED_CONFIG_DIR;
  /** The config dir that was given. */
  readonly path: string;
  /** The folder to pass instead. */
  readonly parent: string;
  readonly candidates: number;

  readonly found: MisplacedConfigDir;

  constructor(found: MisplacedConfigDir) {
    super(misplacedSentence(found));
    this.found = found;
    this.path = found.configDir;
    this.parent = found.parent;
    this.candidates = found.candidates;
  }
}

/**
 * `/x/.claude/sessions looks like a sessions folder, not a config dir: …; pass its parent, /x/.claude`;
 * `pass` replaces the advice (the CLI names its option: `--config-dir /x/.claude`).
 */
export function misplacedSentence(found: MisplacedConfigDir, pass = `${found.parent}, instead`): string {
  const noun = found.candidates === 1 ? 'a session record (<pid>.json)' : `${found.candidates} session records (<pid>.json)`;
  return `${found.configDir} looks like a sessions folder, not a config dir: it has no sessions/ and holds ${noun} itself; pass its parent, ${pass}`;
}

function missing(path: string): boolean {
  try {
    lstatSync(path);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * The config dirs whose `sessions/` does not exist and which hold `<pid>.json` names themselves.
 * `strict` (the guard): a config dir that cannot be listed, so that this cannot be told, throws
 * RegistryUnreadableError instead of passing as an empty registry.
 */
export function misplacedConfigDirs(configDirs: ConfigDirs, env?: NodeJS.ProcessEnv, strict = false): MisplacedConfigDir[] {
  const found: MisplacedConfigDir[] = [];
  for (const sessionsDir of resolveSessionsDirs(configDirs, env)) {
    if (!missing(sessionsDir)) continue;
    const configDir = dirname(sessionsDir);
    let names: string[];
    try {
      names = readdirSync(configDir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (strict && code !== 'ENOENT' && code !== 'ENOTDIR') {
        throw new RegistryUnreadableError(configDir, error, 'it has no sessions/, and whether it is a sessions folder itself cannot be told');
      }
      continue;
    }
    const candidates = names.filter(isCandidateName).length;
    if (candidates > 0) found.push({ configDir, sessionsDir, candidates, parent: dirname(configDir) });
  }
  return found;
}

/** For the guard: throws MisplacedConfigDirError for the first misplaced config dir. */
export function refuseMisplaced(configDirs: ConfigDirs, env?: NodeJS.ProcessEnv): void {
  const [first] = misplacedConfigDirs(configDirs, env, true);
  if (first) throw new MisplacedConfigDirError(first);
}
