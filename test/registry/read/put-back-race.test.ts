/**
 * The stress proof of docs/guard.md "complete listings": one live interactive session, 4,000 key files
 * in `sessions/`, and a child doing prune's put-back move (link, then unlink the other name) again and
 * again, so that at every instant one of the record's names exists. readdir(3) of a folder that size
 * takes several getdents(2) calls and misses both names now and then; the guard must never answer
 * "no" for it (it may say "cannot tell": the folder never stops changing). Before the fix the same
 * harness gave 127 false "no" in 808 checks (native backend).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, removeCopy, runCli } from '../../cli/run-cli.js';
import { hasLiveInteractive, hasLiveInteractiveAsync, REGISTRY_UNREADABLE } from '../../../lib/index.js';
import { judgeListing, type Look } from '../../../lib/registry/read/complete-listing.js';
import { selectBackendForSuite } from '../../helpers/backends.js';
import { spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { tokenOf } from '../../helpers/tokens.js';
import type { BigIntStats } from 'node:fs';

const MOVER = fileURLToPath(new URL('../../fixtures/put-back-mover.mjs', import.meta.url));
const KEY_FILES = 4000;
/** Per backend: long enough for hundreds of checks on a loaded 2-core box. */
const STRESS_MS = Number(process.env.CPS_PUT_BACK_STRESS_MS ?? 4000);
/** The harness proof: readdir alone must show the defect within this long. */
const HARNESS_MS = 20_000;

interface Counts {
  checks: number;
  no: number;
  yes: number;
  cannotTell: number;
}

function startMover(reg: RegistryFixture, pid: number): ChildProcess {
  return spawn(process.execPath, [MOVER, reg.sessions, String(pid)], { stdio: ['ignore', 'ignore', 'inherit'] });
}

async function stopMover(mover: ChildProcess): Promise<void> {
  if (mover.exitCode !== null || mover.signalCode !== null) return;
  const exited = new Promise((resolve) => mover.once('exit', resolve));
  mover.kill('SIGKILL'); // by its PID: our own child
  await exited;
}

function holdsRecord(names: readonly string[], pid: number): boolean {
  return names.some((n) => n === `${pid}.json` || n.startsWith(`.${pid}.json.prune-`));
}

for (const backendName of ['native', 'js'] as const) {
  describe(`a put-back racing the guard, 4,000 key files (${backendName} backend)`, () => {
    selectBackendForSuite(backendName);
    let sleep: Spawned;
    let reg: RegistryFixture;

    beforeAll(() => {
      sleep = spawnSleep();
      reg = makeRegistry('cps-put-back-');
      reg.write(sleep.pid, sessionRecord(sleep.pid, { procStart: tokenOf(sleep.pid, backendName) }));
      const key = 'ab'.repeat(32);
      for (let i = 0; i < KEY_FILES; i++) writeFileSync(reg.path(`${100000 + i}.${key}.key`), 'k');
    });
    afterAll(async () => {
      await sleep?.end();
      reg?.remove();
    });

    if (backendName === 'native') {
      it('the harness can tell: a bare readdir misses both names of the moving record', async () => {
        const mover = startMover(reg, sleep.pid);
        try {
          await new Promise((resolve) => setTimeout(resolve, 100));
          let listings = 0;
          let missed = 0;
          const end = Date.now() + HARNESS_MS;
          while (missed === 0 && Date.now() < end) {
            listings++;
            if (!holdsRecord(readdirSync(reg.sessions), sleep.pid)) missed++;
            if (listings % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
          }
          console.log(`put-back harness: first bare readdir missing both names after ${listings} listings`);
          expect(missed).toBe(1);
        } finally {
          await stopMover(mover);
        }
      }, HARNESS_MS + 10_000);
    }

    if (backendName === 'native') {
      it('`claude-ps has-interactive` exits 0 (yes) or 3 (cannot tell, one line), never 1', async () => {
        const cli = await builtCli();
        const mover = startMover(reg, sleep.pid);
        const seen = new Map<number | null, number>();
        try {
          await new Promise((resolve) => setTimeout(resolve, 100));
          for (let i = 0; i < 12; i++) {
            const r = runCli(cli, ['has-interactive', '--config-dir', reg.configDir]);
            seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
            if (r.status === 3) {
              expect(r.stderr).toBe(
                `claude-ps: cannot tell: cannot list ${reg.sessions} (EAGAIN: the folder kept changing while it was listed, 5 times): the sessions it holds are unknown\n`,
              );
            } else expect(r.status).toBe(0);
          }
        } finally {
          await stopMover(mover);
          removeCopy(cli);
        }
        console.log(`put-back CLI: exit codes ${JSON.stringify([...seen])}`);
        expect(seen.has(1)).toBe(false);
      }, 120_000);
    }

    it('never answers "no" while the live session exists (sync and async), then "yes" once the moves stop', async () => {
      const mover = startMover(reg, sleep.pid);
      const counts: Counts = { checks: 0, no: 0, yes: 0, cannotTell: 0 };
      const tally = (answer: () => boolean): void => {
        counts.checks++;
        try {
          if (answer()) counts.yes++;
          else counts.no++;
        } catch (error) {
          expect(error).toMatchObject({ code: REGISTRY_UNREADABLE, reason: 'EAGAIN', path: reg.sessions });
          counts.cannotTell++;
        }
      };
      try {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const end = Date.now() + STRESS_MS;
        while (Date.now() < end) {
          tally(() => hasLiveInteractive(reg.configDir, { retryDelayMs: 0 }));
          let asyncAnswer: boolean | Error;
          try {
            asyncAnswer = await hasLiveInteractiveAsync(reg.configDir, { retryDelayMs: 0 });
          } catch (error) {
            asyncAnswer = error as Error;
          }
          tally(() => {
            if (asyncAnswer instanceof Error) throw asyncAnswer;
            return asyncAnswer;
          });
        }
      } finally {
        await stopMover(mover);
      }
      console.log(`put-back stress (${backendName}): ${JSON.stringify(counts)}`);
      expect(counts.checks).toBeGreaterThan(20);
      expect(counts.no).toBe(0);
      // The moves stopped: the folder settles and the answer is proven again.
      expect(hasLiveInteractive(reg.configDir)).toBe(true);
      expect(await hasLiveInteractiveAsync(reg.configDir)).toBe(true);
    }, STRESS_MS + 30_000);
  });
}

describe('judgeListing: a listing counts only between identical stamps a change could not have kept', () => {
  const NS = 1_000_000n;
  const CHANGED = 1_000_000_123_456n;
  const stamp = (over: Partial<Record<'dev' | 'ino' | 'ctimeNs' | 'mtimeNs' | 'size', bigint>> = {}): BigIntStats =>
    ({ dev: 1n, ino: 2n, ctimeNs: CHANGED, mtimeNs: CHANGED, size: 4096n, ...over }) as BigIntStats;
  const look = (over: Partial<Look> = {}): Look => ({
    names: ['1.json'],
    before: stamp(),
    after: stamp(),
    wallNs: CHANGED + 500n * NS, // half a second after the last change
    monoNs: 10n ** 12n,
    ...over,
  });

  it('identical and quiet: the names', () => {
    expect(judgeListing(look())).toEqual({ names: ['1.json'] });
  });

  it('any field changed, or a side missing: list again soon', () => {
    for (const after of [stamp({ ctimeNs: CHANGED + 1n }), stamp({ mtimeNs: 1n }), stamp({ size: 4097n }), stamp({ ino: 3n }), stamp({ dev: 9n }), undefined]) {
      expect(judgeListing(look({ after }))).toEqual({ names: undefined, waitMs: 5 });
    }
    expect(judgeListing(look({ before: undefined })).names).toBeUndefined();
  });

  it('changed within one clock step before the first look: wait until a change would show, then list again', () => {
    expect(judgeListing(look({ wallNs: CHANGED + 5n * NS }))).toEqual({ names: undefined, waitMs: 16 });
    // A filesystem with whole-second (or coarser) stamps: two seconds.
    const coarse = stamp({ ctimeNs: 1_000_000_000_000n, mtimeNs: 1_000_000_000_000n });
    expect(judgeListing(look({ before: coarse, after: coarse, wallNs: 1_000_000_000_000n + 500n * NS }))).toEqual({ names: undefined, waitMs: 1501 });
    expect(judgeListing(look({ names: [], before: coarse, after: coarse, wallNs: 1_000_000_000_000n + 2001n * NS }))).toEqual({ names: [] });
  });

  it('a change time ahead of the wall clock: proven only by a second identical look more than a step later', () => {
    const ahead = { wallNs: CHANGED - 3_600_000n * NS }; // the clock was set back an hour
    const first = look(ahead);
    expect(judgeListing(first)).toEqual({ names: undefined, waitMs: 21 }); // one step, never the hour
    const later = (over: Partial<Look>) => look({ ...ahead, monoNs: first.monoNs + 21n * NS, ...over });
    expect(judgeListing(later({}), first)).toEqual({ names: ['1.json'] });
    expect(judgeListing(later({ monoNs: first.monoNs + 19n * NS }), first).names).toBeUndefined(); // too soon
    expect(judgeListing(later({ names: ['1.json', '.1.json.prune-0123456789abcdef'] }), first).names).toBeUndefined();
    expect(judgeListing(later({ names: ['.1.json.prune-0123456789abcdef'] }), first).names).toBeUndefined();
    const moved = stamp({ ctimeNs: CHANGED + 7n });
    expect(judgeListing(later({ before: moved, after: moved }), first).names).toBeUndefined();
  });
});
