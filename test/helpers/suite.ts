/**
 * The setup many registry suites share, as hooks of the calling describe(): one sleeping process
 * (a live PID) for the suite, a fresh registry per test, and every spawned process ended after.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { endAll, spawnSleep, type Spawned } from './processes.js';
import { makeRegistry, type RegistryFixture } from './registry-fixture.js';

export function liveAndRegistryPerTest(): { readonly live: Spawned; readonly reg: RegistryFixture } {
  let live: Spawned | undefined;
  let reg: RegistryFixture | undefined;
  beforeAll(() => {
    live = spawnSleep();
  });
  afterAll(async () => {
    await live?.end();
    await endAll();
  });
  beforeEach(() => {
    reg = makeRegistry();
  });
  afterEach(() => reg?.remove());
  return {
    get live() {
      return live!;
    },
    get reg() {
      return reg!;
    },
  };
}
