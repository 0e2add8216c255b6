/**
 * A listing of `sessions/` that is proven complete (docs/guard.md). readdir(3) of a folder past
 * ~32 KiB of entries takes several getdents(2) calls and is not atomic: a name linked in behind the
 * cursor and unlinked ahead of it is missed by both, and prune's put-back (link, then unlink the aside
 * name) is exactly that move. So a listing counts only when the folder's identity, change time,
 * modification time and size are the same before and after it, and a change during it could not have
 * kept them (judgeListing). Else the folder is listed again, a bounded number of times, and then its
 * contents are unknown: a RegistryUnreadableError, never a guessed "none".
 */
import { readdirSync, statSync } from 'node:fs';
import { folderLister } from '../../backend/index.js';
import type { FolderStamp } from '../../backend/list-folder.js';
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

/** One listing and the stamps around it. */
export interface Look {
  names: string[];
  before: FolderStamp | undefined;
  after: FolderStamp | undefined;
  /** Wall clock (ns) just before `before`: compared with the folder's change time. */
  wallNs: bigint;
  /** Monotonic clock (ns) just before `before`: how long two looks span, whatever the wall clock does. */
  monoNs: bigint;
}

/** What a look proves: the names when the listing is complete, else how long to wait before the next. */
export type Judged = { names: string[] } | { names: undefined; waitMs: number };

function stampOf(dir: string): FolderStamp | undefined {
  return statSync(dir, { bigint: true, throwIfNoEntry: false });
}

function same(a: FolderStamp, b: FolderStamp): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.ctimeNs === b.ctimeNs && a.mtimeNs === b.mtimeNs && a.size === b.size;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((n) => set.has(n));
}

/**
 * Judges a look, given the previous one of the same listing call (if any). Complete when the stamps
 * around it are identical and either
 * - the change time is older than the first stat by more than a clock step (a change during the
 *   listing would have moved it), or
 * - the previous look had the very same stamps and names and began more than a step earlier: a change
 *   hidden from both would have had to fall in the change time's own clock step, which ended before
 *   this look. This one needs no trust in the wall clock (a clock set back, a server's clock ahead).
 * Pure: the tests give it the stamps a race would produce.
 */
export function judgeListing(look: Look, previous?: Look): Judged {
  const { names, before, after } = look;
  if (before === undefined || after === undefined || !same(before, after)) return { names: undefined, waitMs: CHANGED_PAUSE_MS };
  const step = before.ctimeNs % 1_000_000n === 0n ? COARSE_STEP_NS : FINE_STEP_NS;
  const age = look.wallNs - before.ctimeNs;
  if (age > step) return { names };
  if (previous?.before && same(previous.before, before) && look.monoNs - previous.monoNs > step && sameNames(previous.names, names)) {
    return { names };
  }
  // Changed within a step of the first look (or the clocks disagree): one step on, look again.
  const wait = age > 0n ? step - age : step;
  return { names: undefined, waitMs: Number(wait / 1_000_000n) + 1 };
}

/** Wall clock (ns), read just before the first stamp of a look. */
function wallClockNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/** The folder kept changing under LISTING_ATTEMPTS listings (or their reads): its sessions are unknown. */
export function notProven(dir: string): RegistryUnreadableError {
  const cause = Object.assign(new Error(`the listing of ${dir} could not be proven complete`), { code: 'EAGAIN' });
  return new RegistryUnreadableError(dir, cause, `the folder kept changing while it was listed, ${LISTING_ATTEMPTS} times`);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * The names in `dir`, proven complete. A missing folder is an empty registry ([]); one that cannot be
 * listed, or whose listing cannot be proven complete, throws RegistryUnreadableError.
 */
export function listComplete(dir: string): string[] {
  const list = folderLister();
  let previous: Look | undefined;
  for (let attempt = 1; ; attempt++) {
    let current: Look;
    try {
      // In this order: the clocks, the first stamp, the listing, the second stamp. Plain locals and
      // one literal: spreading a helper's object here cost ~8 µs per listing (a third of it at N=10).
      const wallNs = wallClockNs();
      const monoNs = process.hrtime.bigint();
      if (list !== undefined) {
        // The addon: the stamps are fstat(2) of the very descriptor the names are read from, in one
        // crossing. What they prove is the same: that folder did not change while it was listed.
        const { names, before, after } = list(dir);
        current = { names, before, after, wallNs, monoNs };
      } else {
        const before = stampOf(dir);
        const names = readdirSync(dir);
        current = { names, before, after: stampOf(dir), wallNs, monoNs };
      }
    } catch (error) {
      return listingFailure(dir, error);
    }
    const verdict = judgeListing(current, previous);
    if (verdict.names) return verdict.names;
    if (attempt === LISTING_ATTEMPTS) throw notProven(dir);
    previous = current;
    Atomics.wait(sleeper, 0, 0, verdict.waitMs);
  }
}

/** The async twin: the listing and the pauses leave the event loop free. */
export async function listCompleteAsync(dir: string): Promise<string[]> {
  let previous: Look | undefined;
  for (let attempt = 1; ; attempt++) {
    let current: Look;
    try {
      const wallNs = wallClockNs();
      const monoNs = process.hrtime.bigint();
      const before = stampOf(dir);
      const names = await fsPromises().readdir(dir);
      current = { names, before, after: stampOf(dir), wallNs, monoNs };
    } catch (error) {
      return listingFailure(dir, error);
    }
    const verdict = judgeListing(current, previous);
    if (verdict.names) return verdict.names;
    if (attempt === LISTING_ATTEMPTS) throw notProven(dir);
    previous = current;
    await new Promise((resolve) => setTimeout(resolve, verdict.waitMs));
  }
}
