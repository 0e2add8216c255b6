/**
 * The asides a reading command owes a person on stderr (stdout stays the answer): the candidates it
 * could not read, and — when it found nothing — a config dir that looks like a sessions folder
 * (docs/guard.md), which is not the same as "Claude Code has not run here".
 */
import { misplacedConfigDirs, misplacedSentence } from '../registry/read/misplaced.js';
import type { ScanResult } from '../registry/types.js';
import type { Context } from './command.js';
import { printable } from './format.js';
import { skipNote } from './skips.js';

/**
 * Says what needs saying about `scan`; returns true when it explained an empty answer by a misplaced
 * config dir (list then skips its "no registry here" aside).
 */
export function noteRegistry(ctx: Context, dirs: readonly string[], scan: ScanResult): boolean {
  const skipped = skipNote(scan.skipped);
  if (skipped) ctx.note(`claude-ps: ${printable(skipped)}\n`);
  if (scan.records.length > 0 || scan.skipped.length > 0) return false;
  const misplaced = misplacedConfigDirs(dirs, ctx.env);
  for (const found of misplaced) ctx.note(`claude-ps: ${printable(misplacedSentence(found, passParent(ctx, found.parent)))}\n`);
  return misplaced.length > 0;
}

/** How this user names the parent: the option they used, or the variable the default came from. */
export function passParent(ctx: Pick<Context, 'configDirs'>, parent: string): string {
  return ctx.configDirs ? `--config-dir ${parent}` : `CLAUDE_CONFIG_DIR=${parent}`;
}
