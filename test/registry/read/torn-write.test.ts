/**
 * Claude Code rewrites its record in place (truncate, then write). A reader racing that writer must
 * get the record or a reasoned skip — never a record with a wrong verdict.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanRegistry } from '../../../lib/index.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { tokenOf } from '../../helpers/tokens.js';

// Truncates and rewrites the file in two writes (a wider torn window than one), forever.
const WRITER = `
const fs = require('node:fs');
const [path, a, b] = process.argv.slice(1);
for (let i = 0; ; i++) {
  const text = i % 2 ? a : b;
  const fd = fs.openSync(path, 'w');
  const half = text.length >> 1;
  fs.writeSync(fd, text.slice(0, half));
  fs.writeSync(fd, text.slice(half));
  fs.closeSync(fd);
}`;

describe.each(BACKENDS)('torn writes (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  let reg: RegistryFixture;
  let live: Spawned;

  beforeAll(() => {
    reg = makeRegistry();
    live = spawnSleep();
  });
  afterAll(async () => {
    await live.end();
    await endAll();
    reg.remove();
  });

  it('returns the record or a reasoned skip while a writer truncates and rewrites it', async () => {
    const token = tokenOf(live.pid, backendName);
    const a = JSON.stringify(sessionRecord(live.pid, { procStart: token, status: 'busy', name: 'a'.repeat(4000) }));
    const b = JSON.stringify(sessionRecord(live.pid, { procStart: token, status: 'idle', name: 'b'.repeat(6000) }));
    const path = reg.write(live.pid, a);
    const writer = spawn(process.execPath, ['-e', WRITER, path, a, b], { stdio: 'ignore' });
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    const seen = { record: 0, skipped: 0 };
    try {
      for (let i = 0; i < 400; i++) {
        const { records, skipped } = scanRegistry(reg.configDir, { retryDelayMs: 0 });
        for (const r of records) {
          expect(r.verdict).toBe('alive');
          expect([JSON.parse(a).sessionId, JSON.parse(b).sessionId]).toContain(r.sessionId);
          expect(r.token).toBe(token);
          seen.record++;
        }
        for (const s of skipped) {
          expect(s).toEqual({ path, pid: live.pid, reason: 'unparseable' });
          seen.skipped++;
        }
        expect(records.length + skipped.length).toBe(1);
      }
    } finally {
      writer.kill('SIGKILL');
      await exited;
    }
    expect(seen.record).toBeGreaterThan(0);
  });
});
