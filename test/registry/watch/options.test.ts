/**
 * The watcher's options: one rule (watchSettings) for the library and the CLI. A wrong type is a
 * TypeError, a number out of range a RangeError, and a watcher that refuses its options holds nothing.
 */
import { describe, expect, it } from 'vitest';
import { TIMER_MAX_MS, watchSettings } from '../../../lib/registry/watch/options.js';
import { watch as libWatch } from '../../../lib/registry/watch/watch.js';
import { builtCli, removeCopy, runCli } from '../../cli/run-cli.js';
import { cleanUpEachTest, tempRegistry } from './helpers.js';

cleanUpEachTest();

describe('watchSettings', () => {
  it('fills in the defaults', () => {
    expect(watchSettings(undefined)).toMatchObject({ interval: 1000, rescanEvery: 10, retryDelayMs: 25, initial: true, exitHandles: 1024 });
  });

  it('accepts the edges of every range', () => {
    expect(watchSettings({ interval: 10 }).interval).toBe(10);
    expect(watchSettings({ interval: TIMER_MAX_MS }).interval).toBe(2 ** 31 - 1);
    expect(watchSettings({ interval: 12.5 }).interval).toBe(12.5);
    expect(watchSettings({ retryDelayMs: 0 }).retryDelayMs).toBe(0);
    expect(watchSettings({ exitHandles: 0 }).exitHandles).toBe(0);
  });

  it.each([
    [{ interval: 2 ** 31 }, RangeError, /interval/],
    [{ interval: 0.001 }, RangeError, /interval/],
    [{ interval: 9 }, RangeError, /interval/],
    [{ interval: -1 }, RangeError, /interval/],
    [{ interval: Infinity }, RangeError, /interval/],
    [{ interval: NaN }, TypeError, /interval/],
    [{ interval: '100' }, TypeError, /interval/],
    [{ interval: null }, TypeError, /interval/],
    [{ rescanEvery: 0 }, RangeError, /rescanEvery/],
    [{ rescanEvery: 1.5 }, RangeError, /rescanEvery/],
    [{ retryDelayMs: 'x' }, TypeError, /retryDelayMs/],
    [{ retryDelayMs: -1 }, RangeError, /retryDelayMs/],
    [{ retryDelayMs: 2 ** 31 }, RangeError, /retryDelayMs/],
    [{ exitHandles: -1 }, RangeError, /exitHandles/],
    [{ exitHandles: 2.5 }, RangeError, /exitHandles/],
    [{ initial: 'no' }, TypeError, /initial/],
    [{ snapshotFile: 42 }, TypeError, /snapshotFile/],
    [{ env: 'HOME' }, TypeError, /env/],
  ])('%j → %s', (options, type, message) => {
    expect(() => watchSettings(options)).toThrow(type);
    expect(() => watchSettings(options)).toThrow(message);
  });

  it('rejects options that are not an object', () => {
    expect(() => watchSettings(null)).toThrow(TypeError);
    expect(() => watchSettings(1000)).toThrow(TypeError);
  });
});

describe('watch() and the CLI use it', () => {
  it('watch() throws before it holds a timer or an OS watch', () => {
    const reg = tempRegistry();
    const before = process.getActiveResourcesInfo().length;
    expect(() => libWatch(reg.configDir, { interval: 2 ** 31 })).toThrow(RangeError);
    expect(() => libWatch(reg.configDir, { retryDelayMs: 'x' as never })).toThrow(TypeError);
    expect(() => libWatch(reg.configDir, 5 as never)).toThrow(TypeError);
    expect(process.getActiveResourcesInfo().length).toBe(before);
  });

  it('`watch --interval` outside 10..2^31-1 is a one-line usage error (exit 2), as the library says', async () => {
    const reg = tempRegistry();
    const cli = await builtCli();
    try {
      for (const value of ['2147483648', '5', '0']) {
        const r = runCli(cli, ['watch', '--interval', value, '--config-dir', reg.configDir]);
        expect(r.status).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(new RegExp(`^claude-ps: --interval must be a number from 10 to 2147483647 \\(got ${value}\\)\\n$`));
      }
    } finally {
      removeCopy(cli);
    }
  });
});
