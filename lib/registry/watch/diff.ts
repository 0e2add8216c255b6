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

function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  // Nested values of a parsed document (arrays, objects): equal when they serialise the same.
  return JSON.stringify(a) === JSON.stringify(b);
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
