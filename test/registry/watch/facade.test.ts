/**
 * The Watcher is a class over its engine (lib/registry/watch/engine.ts, in the library's extras): what
 * a subclass or a wrapper does with it reaches the engine as it reached the one class before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Watcher, watch } from '../../../lib/registry/watch/watch.js';

const work = mkdtempSync(join(tmpdir(), 'cps-facade-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the Watcher over its engine', () => {
  it('an iterator left early ends the watcher through its own close(), which a subclass may override', async () => {
    const calls: string[] = [];
    class Mine extends Watcher {
      override close(): void {
        calls.push('close');
        super.close();
      }
    }
    const w = new Mine(join(work, 'none'));
    // What `break` in a for await does: the iterator's return().
    await w[Symbol.asyncIterator]().return?.();
    expect(calls).toEqual(['close']);
    expect(w.isClosed).toBe(true);
  });

  it('answers through a Proxy around it (reactive wrappers)', () => {
    const w = watch(join(work, 'none'));
    try {
      const wrapped = new Proxy(w, {});
      expect(wrapped.records()).toEqual([]);
      expect(wrapped.isClosed).toBe(false);
    } finally {
      w.close();
    }
  });

  it('a constructor that fails says why, even to a subclass that asks isClosed as it closes', () => {
    class Asking extends Watcher {
      override emit(event: string | symbol, ...args: unknown[]): boolean {
        if (event === 'close') expect(this.isClosed).toBe(true);
        return super.emit(event, ...args);
      }
    }
    expect(() => new Asking(join(work, 'none'), { snapshotFile: join(work, 'no-such-folder', 'snap.json') })).toThrow(/snap\.json|ENOENT/);
  });
});
