/**
 * What each folder's texts parsed to at the last scan, by name. Parsing is a pure function of the
 * text, the path and the name's PID, and a poller reads the same unchanged records scan after scan
 * (Claude Code rewrites a file only when its state changes): a text equal to the one parsed last
 * time gets the same outcome back instead of a JSON.parse, which was a third of the JS time of a
 * 10-record scan. Claims are never changed after parsing and their `raw` is frozen, so sharing one
 * across scans is safe; every record made from it is a new frozen object with a fresh verdict.
 *
 * Bounded three ways, so another program's folder cannot make us hold memory: at most MAX_FOLDERS
 * folders, a folder's entries dropped when they outnumber twice its listing, and texts kept only
 * up to MAX_TEXT each and MAX_BYTES in all (hostile 256 KiB files are parsed, never kept).
 */
import { sep } from 'node:path';
import { parseClaimText, type Claim } from './schema.js';
import type { SkipReason } from '../types.js';

export type Parsed = Claim | SkipReason;

interface Entry {
  text: string;
  outcome: Parsed;
}

export type FolderMemo = Map<string, Entry>;

const MAX_FOLDERS = 16;
/** Claude Code's records are 0.5-1.5 KiB: a 10,000-record registry fits. */
const MAX_BYTES = 16 * 1024 * 1024;
const MAX_TEXT = 64 * 1024;

const folders = new Map<string, FolderMemo>();
/** Characters of text kept, over every folder. */
let kept = 0;

function drop(memo: FolderMemo): void {
  for (const e of memo.values()) kept -= e.text.length;
  memo.clear();
}

/** The memo of one folder, about to be read; `folderSize`: the names its listing holds. */
export function folderMemo(dir: string, folderSize: number): FolderMemo {
  let memo = folders.get(dir);
  if (memo === undefined) {
    if (folders.size >= MAX_FOLDERS) {
      const [oldest, old] = folders.entries().next().value!;
      drop(old);
      folders.delete(oldest);
    }
    folders.set(dir, (memo = new Map()));
  } else if (memo.size > 2 * folderSize + 64) {
    drop(memo);
  }
  return memo;
}

/**
 * parseClaimText(text, <dir>/<name>, pid), or what the same text of `name` gave last time. `dir` is
 * absolute and normalised (resolveSessionsDirs), so concatenation is a correct join.
 */
export function parseRemembered(memo: FolderMemo, dir: string, name: string, text: string, pid: number): Parsed {
  const last = memo.get(name);
  if (last !== undefined && last.text === text) return last.outcome;
  const outcome = parseClaimText(text, dir.endsWith(sep) ? dir + name : dir + sep + name, pid);
  if (last !== undefined) {
    kept -= last.text.length;
    memo.delete(name);
  }
  if (text.length <= MAX_TEXT && kept + text.length <= MAX_BYTES) {
    memo.set(name, { text, outcome });
    kept += text.length;
  }
  return outcome;
}

/** For the tests: what is held now. */
export function memoFootprint(): { folders: number; entries: number; chars: number } {
  let entries = 0;
  for (const m of folders.values()) entries += m.size;
  return { folders: folders.size, entries, chars: kept };
}

export const MEMO_LIMITS = { MAX_FOLDERS, MAX_BYTES, MAX_TEXT };
