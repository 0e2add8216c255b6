/**
 * Claude Code writes its record without a rename, so a reader can find it empty. The reader reads such
 * a file once more after `retryDelayMs`. The pause is driven by fake timers so the test can fill the
 * file exactly between the two reads (no timing assumptions).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { scanRegistryAsync } from '../../../lib/index.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { tokenOf } from '../../helpers/tokens.js';

const realSetTimeout = globalThis.setTimeout;
const realPause = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));

/** Resolves once the scan has done its first read and is waiting for the re-read (bounded). */
async function untilPaused(): Promise<void> {
  for (let i = 0; vi.getTimerCount() === 0; i++) {
    if (i > 2000) throw new Error('the scan never paused for a re-read');
    await realPause(5);
  }
}

describe.each(BACKENDS)('one re-read after a pause (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  let reg: RegistryFixture;
  let live: Spawned;

  beforeAll(() => {
    reg = makeRegistry();
    live = spawnSleep();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await live.end();
    await endAll();
    reg.remove();
  });

  it('an empty file completed during the pause is read as the record', async () => {
    reg.write(live.pid, '');
    // The file is new, so the folder just changed: its listing waits one clock step to be proven
    // complete (docs/guard.md). Let that pass in real time, so the one timer is the re-read pause.
    await realPause(30);
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const scan = scanRegistryAsync(reg.configDir, { retryDelayMs: 25 });
    await untilPaused();
    reg.write(live.pid, sessionRecord(live.pid, { procStart: tokenOf(live.pid, backendName) }));
    vi.advanceTimersByTime(25);
    const { records, skipped } = await scan;
    expect(skipped).toEqual([]);
    expect(records.map((r) => [r.pid, r.verdict])).toEqual([[live.pid, 'alive']]);
  });

  it('a half-written file still torn after the pause is skipped as unparseable', async () => {
    reg.write(live.pid, '{"pid":');
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const scan = scanRegistryAsync(reg.configDir, { retryDelayMs: 25 });
    await untilPaused();
    vi.advanceTimersByTime(25);
    expect((await scan).skipped.map((s) => s.reason)).toEqual(['unparseable']);
  });

  it('a valid file needs no pause', async () => {
    reg.write(live.pid, sessionRecord(live.pid));
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    // With fake timers and no advance, a scan that paused would never resolve.
    expect((await scanRegistryAsync(reg.configDir, { retryDelayMs: 25 })).records).toHaveLength(1);
  });

  it('rejects a bad retryDelayMs as a programmer error', async () => {
    await expect(scanRegistryAsync(reg.configDir, { retryDelayMs: -1 })).rejects.toThrow(TypeError);
  });
});
