/**
 * What each folder's texts parsed to at the last scan, by name. Parsing is a pure function of the
 * text, the path and the name's PID, and a poller reads the same unchanged records scan after scan
 * (Claude Code rewrites a file only when its state changes): a text equal to the one parsed last
 * time gets the same outcome back instead of a JSON.parse, which was a third of the JS time of a
 * 10-record scan. Claims are never changed after parsing and their `raw` is frozen, so sharing one
 * across scans is safe; every record made from it is a new frozen object with a fresh verdict.
 *
 * Kept from a folder's second batch read on: the first batch a process reads of a folder has nothing
 * to look up, and most processes read a folder once (a statusline render, a guard, `claude-ps count`,
 * a script's import and one `liveRecords()`), so they keep nothing and spend nothing keeping it: each
 * kept record cost ~0.4 KB of young garbage and a scan of its text for its cost, ~0.17 ms and ~10 KB of
 * a cold 100-record read (30 parsed). A poller parses its records once more, at its second scan. (The
 * later batches of that first scan, a re-read after the retry pause or the slices after the first of
 * a big asynchronous scan, are kept already.)
 *
 * Bounded three ways, so another program's folder cannot make us hold memory: at most MAX_FOLDERS
 * folders, a folder's entries dropped when they outnumber twice its listing, and entries kept only up
 * to MAX_ENTRY_COST each and MAX_COST in all. An entry's cost bounds what it holds, the text and the
 * parsed document: two bytes per character, and 64 bytes per value the document can hold (each `,`,
 * `{` and `[`), so a 64 KiB text of empty objects (~20 times its size once parsed) is parsed, not
 * kept. A Claude Code record (~1 KiB, ~25 values) costs ~4 KiB: a 5,000-record registry fits.
 */
import { parseClaimText, type Claim } from './schema.js';
import { childPath } from '../config.js';
import type { SkipReason } from '../types.js';

export type Parsed = Claim | SkipReason;

export type FolderMemo = Map<string, Entry>;

const MAX_FOLDERS = 16;
const MAX_COST = 24 * 1024 * 1024;
const MAX_ENTRY_COST = 64 * 1024;
/** What one value of a parsed document can take at most (an object's header, an array slot, a number). */
const VALUE_COST = 64;

interface Entry {
  text: string;
  outcome: Parsed;
  cost: number;
}

const folders = new Map<string, FolderMemo>();
/** The cost of every entry kept, over every folder. */
let kept = 0;

function drop(memo: FolderMemo): void {
  for (const e of memo.values()) kept -= e.cost;
  memo.clear();
}

/** Occurrences of `c` in `text`, counting stops past `limit`. */
function countOf(text: string, c: string, limit: number): number {
  let n = 0;
  for (let at = text.indexOf(c); at >= 0 && n <= limit; at = text.indexOf(c, at + 1)) n++;
  return n;
}

/** An upper bound of the bytes an entry holds (see above), or Infinity past MAX_ENTRY_COST. */
function costOf(text: string): number {
  let cost = 2 * text.length;
  if (cost > MAX_ENTRY_COST) return Infinity;
  // Each character spelled out: no array and iterator per record on a cold read path.
  cost += VALUE_COST * countOf(text, ',', (MAX_ENTRY_COST - cost) / VALUE_COST);
  if (cost > MAX_ENTRY_COST) return Infinity;
  cost += VALUE_COST * countOf(text, '{', (MAX_ENTRY_COST - cost) / VALUE_COST);
  if (cost > MAX_ENTRY_COST) return Infinity;
  cost += VALUE_COST * countOf(text, '[', (MAX_ENTRY_COST - cost) / VALUE_COST);
  return cost > MAX_ENTRY_COST ? Infinity : cost;
}

/**
 * The memo of one folder, about to be read (`folderSize`: the names its listing holds), or undefined
 * at this process's first batch read of it: that batch keeps nothing (above), the next ones do.
 */
export function folderMemo(dir: string, folderSize: number): FolderMemo | undefined {
  const memo = folders.get(dir);
  if (memo === undefined) {
    if (folders.size >= MAX_FOLDERS) {
      const [oldest, old] = folders.entries().next().value!;
      drop(old);
      folders.delete(oldest);
    }
    folders.set(dir, new Map());
    return undefined;
  }
  if (memo.size > 2 * folderSize + 64) {
    drop(memo);
  }
  return memo;
}

/** parseClaimText(text, <dir>/<name>, pid), or what the same text of `name` gave last time (kept in `memo` when there is one). */
export function parseRemembered(memo: FolderMemo | undefined, dir: string, name: string, text: string, pid: number): Parsed {
  if (memo === undefined) return parseClaimText(text, childPath(dir, name), pid);
  const last = memo.get(name);
  if (last !== undefined && last.text === text) return last.outcome;
  const outcome = parseClaimText(text, childPath(dir, name), pid);
  if (last !== undefined) {
    kept -= last.cost;
    memo.delete(name);
  }
  const cost = costOf(text);
  if (kept + cost <= MAX_COST) {
    memo.set(name, { text, outcome, cost });
    kept += cost;
  }
  return outcome;
}

/** For the tests: what is held now (entries: of `dir` alone when given). */
export function memoFootprint(dir?: string): { folders: number; entries: number; cost: number } {
  let entries = 0;
  if (dir !== undefined) entries = folders.get(dir)?.size ?? 0;
  else for (const m of folders.values()) entries += m.size;
  return { folders: folders.size, entries, cost: kept };
}

export const MEMO_LIMITS = { MAX_FOLDERS, MAX_COST, MAX_ENTRY_COST, VALUE_COST };
