/** Counting records by status, shared by `summary`, the statusline and the hosts views. */
import type { SessionRecord } from '../registry/types.js';
import { COUNT_KEYS, type Counts } from './template.js';

const STATUSES = new Set(['busy', 'waiting', 'idle', 'shell']);

export function countRecords(records: readonly SessionRecord[], interactiveOnly: boolean): Counts {
  const c = Object.fromEntries(COUNT_KEYS.map((k) => [k, 0])) as Counts;
  for (const r of records) {
    if (interactiveOnly && !r.interactive) continue;
    if (!r.live) {
      c.dead++;
      continue;
    }
    c.live++;
    if (r.interactive) c.interactive++;
    else c.background++;
    const status = r.status !== undefined && STATUSES.has(r.status) ? (r.status as keyof Counts) : 'other';
    c[status]++;
  }
  return c;
}
