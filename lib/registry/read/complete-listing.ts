/**
 * A listing of `sessions/` that is proven complete (docs/guard.md). readdir(3) of a folder past
 * ~32 KiB of entries takes several getdents(2) calls and is not atomic: a name linked in behind the
 * cursor and unlinked ahead of it is missed by both, and prune's put-back (link, then unlink the aside
 * name) is exactly that move. So a listing counts only when the folder's identity, change time,
 * modification time and size are the same before and after it, and its change time is older than the
 * first look by more than the clock step timestamps are taken with (a change in the same step could
 * otherwise keep them). Else the folder is listed again, a bounded number of times, and then its
 * contents are unknown: a RegistryUnreadableError, never a guessed "none".
 */
import { readdirSync, statSync, type BigIntStats } from 'node:fs';
import { lazyBuiltin } from '../../runtime.js';
import { listingFailure, RegistryUnreadableError } from './unreadable-folder.js';

const fsPromises = lazyBuiltin<typeof import('node:fs/promises')>('node:fs/promises');

/** Listings tried before the answer is "cannot tell". */
export const LISTING_ATTEMPTS = 5;
/**
 * Timestamps come from a coarse clock (one tick: 1 to 10 ms on Linux): a change less than this after
 * the first look may carry the very change time seen then.
 */
const FINE_STEP_NS = 20_000_000n;
/** A change time with no sub-millisecond part: a coarse filesystem (FAT: 2 s), as RACY_WINDOW_MS. */
const COARSE_STEP_NS = 2_000_000_000n;
/** Pause between attempts when the folder changed during the listing (another program at work). */
const CHANGED_PAUSE_MS = 5;

/** What one attempt gave: the names when proven complete, else how long to wait before the next. */
type Attempt = { names: string[] } | { names: undefined; waitMs: number };

function stampOf(dir: string): BigIntStats | undefined {
  return statSync(dir, { bigint: true, throwIfNoEntry: false });
}

function same(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.ctimeNs === b.ctimeNs && a.mtimeNs === b.mtimeNs && a.size === b.size;
}

/**
 * Judges one listing made between `before` (taken at `startNs`, wall clock) and `after`. Pure: the
 * tests give it the stamps a race would produce.
 */
export function judgeListing(names: string[], before: BigIntStats | undefined, after: BigIntStats | undefined, startNs: bigint): Attempt {
  if (before === undefined || after === undefined || !same(before, after)) return { names: undefined, waitMs: CHANGED_PAUSE_MS };
  const step = before.ctimeNs % 1_000_000n === 0n ? COARSE_STEP_NS : FINE_STEP_NS;
  const age = startNs - before.ctimeNs;
  if (age > step) return { names };
  // Changed just before the listing: wait until a change after it would show, then look again.
  return { names: undefined, waitMs: Number((step - age) / 1_000_000n) + 1 };
}

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/** The folder kept changing under LISTING_ATTEMPTS listings (or their reads): its sessions are unknown. */
export function notProven(dir: string): RegistryUnreadableError {
  const cause = Object.assign(new Error(`the listing of ${dir} could not be proven complete`), { code: 'EAGAIN' });
  return new RegistryUnreadableError(dir, cause, `the folder kept changing while it was listed (${LISTING_ATTEMPTS} attempts)`);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * The names in `dir`, proven complete. A missing folder is an empty registry ([]); one that cannot be
 * listed, or whose listing cannot be proven complete, throws RegistryUnreadableError.
 */
export function listComplete(dir: string): string[] {
  for (let attempt = 1; ; attempt++) {
    let result: Attempt;
    try {
      const start = nowNs();
      const before = stampOf(dir);
      const names = readdirSync(dir);
      result = judgeListing(names, before, stampOf(dir), start);
    } catch (error) {
      return listingFailure(dir, error);
    }
    if (result.names) return result.names;
    if (attempt === LISTING_ATTEMPTS) throw notProven(dir);
    Atomics.wait(sleeper, 0, 0, result.waitMs);
  }
}

/** The async twin: the listing and the pauses leave the event loop free. */
export async function listCompleteAsync(dir: string): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    let result: Attempt;
    try {
      const start = nowNs();
      const before = stampOf(dir);
      const names = await fsPromises().readdir(dir);
      result = judgeListing(names, before, stampOf(dir), start);
    } catch (error) {
      return listingFailure(dir, error);
    }
    if (result.names) return result.names;
    if (attempt === LISTING_ATTEMPTS) throw notProven(dir);
    await new Promise((resolve) => setTimeout(resolve, result.waitMs));
  }
}
