/**
 * What a watcher reports when a record at one path is replaced by another: pure functions, so the
 * event rules are testable without files or processes.
 */
import { DEAD_VERDICTS, type SessionRecord } from '../types.js';

export type WatchEvent =
  /** A record appeared at a path that had none (including every record present when the watch starts). */
  | { type: 'added'; record: SessionRecord }
  /** The record at a path differs from the last one reported, and did not just turn provably dead. */
  | { type: 'changed'; record: SessionRecord; previous: SessionRecord; fields: readonly string[] }
  /** The verdict turned provably dead (`gone`, `recycled`, `zombie`) from one that was not. */
  | { type: 'died'; record: SessionRecord; previous: SessionRecord; fields: readonly string[] }
  /** The file is gone (or stayed a non-record): `record` is the last one reported. */
  | { type: 'removed'; record: SessionRecord };

export type WatchEventType = WatchEvent['type'];

/**
 * Deep equality of two parsed JSON values, walked with an explicit stack: a document nested thousands
 * of levels deep (still far under the 256 KiB cap) must not overflow the call stack, as a recursive
 * walk or `JSON.stringify` would. Key order does not matter; JSON has no cycles.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  const stack: unknown[] = [a, b];
  while (stack.length > 0) {
    const y = stack.pop();
    const x = stack.pop();
    if (Object.is(x, y)) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false;
    const xArray = Array.isArray(x);
    if (xArray !== Array.isArray(y)) return false;
    if (xArray) {
      const xs = x as unknown[];
      const ys = y as unknown[];
      if (xs.length !== ys.length) return false;
      for (let i = 0; i < xs.length; i++) stack.push(xs[i], ys[i]);
      continue;
    }
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    const keys = Object.keys(xo);
    if (keys.length !== Object.keys(yo).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(yo, key)) return false;
      stack.push(xo[key], yo[key]);
    }
  }
  return true;
}

/**
 * The names of the record's own fields, and of the document's top-level keys (a field that is not
 * typed, such as `nameSince`, or a mistyped one), whose values differ. Sorted; `raw` itself is never
 * listed.
 */
export function changedFields(previous: SessionRecord, record: SessionRecord): string[] {
  const fields = new Set<string>();
  for (const key of Object.keys(record) as Array<keyof SessionRecord>) {
    if (key !== 'raw' && !sameValue(previous[key], record[key])) fields.add(key);
  }
  const before = previous.raw;
  const after = record.raw;
  if (before !== after) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (!sameValue(before[key], after[key])) fields.add(key);
    }
  }
  fields.delete('raw');
  return [...fields].sort();
}

/** The event for a record replacing the one last reported at its path, or undefined when nothing differs. */
export function transition(previous: SessionRecord | undefined, record: SessionRecord): WatchEvent | undefined {
  if (previous === undefined) return { type: 'added', record };
  const fields = changedFields(previous, record);
  if (fields.length === 0) return undefined;
  const died = !DEAD_VERDICTS.has(previous.verdict) && DEAD_VERDICTS.has(record.verdict);
  return { type: died ? 'died' : 'changed', record, previous, fields };
}
