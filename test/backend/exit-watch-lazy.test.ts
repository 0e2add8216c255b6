/**
 * The addon's exit watcher (its poller class and handle calls) is not made when the addon loads, only
 * when a watcher first needs it (native/addon.cc `exitWatch`, lib/backend/exits.ts): a process that only
 * reads never pays for defining the class. Once made, it is the one object the process keeps using.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { exitNotification, openFileLimit, watchHangup } from '../../lib/backend/exits.js';
import { servingAddon } from '../../lib/backend/index.js';

const addon = servingAddon() as (Record<string, unknown> & { exitWatch?: () => Record<string, unknown> }) | undefined;

describe.skipIf(addon === undefined || process.platform !== 'linux')('the exit watcher of the addon', () => {
  it('is not among what the addon exports at load, and is made once, on first need', async () => {
    for (const name of ['FdPoller', 'exitHandle', 'hangupHandle', 'openFileLimit', 'exitMechanism']) expect(addon!).not.toHaveProperty(name);
    const made = addon!.exitWatch!;
    let calls = 0;
    addon!.exitWatch = () => {
      calls++;
      return made();
    };
    try {
      expect(exitNotification()).toEqual({ mode: 'kernel', mechanism: 'pidfd' });
      expect(openFileLimit()?.soft).toBeGreaterThan(0);
      // A pipe whose reader goes away: the hangup comes through the same poller class.
      const child = spawn('sleep', ['30'], { stdio: ['pipe', 'ignore', 'ignore'] });
      const fd = (child.stdin as unknown as { _handle: { fd: number } })._handle.fd;
      let hungUp = false;
      const stop = watchHangup(fd, () => (hungUp = true));
      expect(stop).toBeTypeOf('function');
      child.kill('SIGKILL');
      for (let i = 0; i < 200 && !hungUp; i++) await new Promise((r) => setTimeout(r, 10));
      expect(hungUp).toBe(true);
      stop!();
      expect(calls).toBe(1);
    } finally {
      addon!.exitWatch = made;
    }
  });
});
