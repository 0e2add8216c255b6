/**
 * Two pruners racing on the same records, in two processes: every dead file is removed once and
 * reported by exactly one of them; live files stay; nothing is left aside. The pruners inherit
 * CLAUDE_PS_BACKEND, so under ps each of them runs its own `ps` (two spawns per pruner per round).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord } from '../../helpers/registry-fixture.js';
import { anotherToken, tokenOf } from '../../helpers/tokens.js';
import { bundleChild, freePids } from './helpers.js';

const DEAD_PER_ROUND = 100;
const ROUNDS = 2;

// Bundled under the package root (not /tmp), so the child finds binding.gyp and can load the addon.
const CHILD_DIR = join(process.cwd(), 'node_modules', '.cache', `claude-ps-prune-race-${process.pid}`);

let CHILD: string;

beforeAll(async () => {
  CHILD = await bundleChild(
    CHILD_DIR,
    `import { existsSync } from 'node:fs';
    import { readRecords, prune } from './lib/index.ts';
    const [configDir, go] = process.argv.slice(2);
    const records = readRecords(configDir);
    process.stdout.write('ready\\n');
    while (!existsSync(go)) {} // start both pruners at once
    const removed = prune(records);
    process.stdout.write(JSON.stringify(removed.map((r) => r.path)) + '\\n');`,
  );
});

afterAll(() => rmSync(CHILD_DIR, { recursive: true, force: true }));

function startPruner(configDir: string, go: string): { child: ChildProcess; ready: Promise<void>; output: Promise<string[]> } {
  const child = spawn(process.execPath, [CHILD, configDir, go], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  let text = '';
  let onReady: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  const output = new Promise<string[]>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.startsWith('ready\n')) onReady();
    });
    child.once('exit', (code) => {
      const lines = text.trim().split('\n');
      if (code !== 0 || lines[0] !== 'ready' || lines.length !== 2) reject(new Error(`pruner exited ${code}: ${text}`));
      else resolve(JSON.parse(lines[1]!) as string[]);
    });
  });
  return { child, ready, output };
}

describe.each(BACKENDS)('two pruners racing (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  let alive: Spawned;
  let reused: Spawned;

  beforeAll(() => {
    alive = spawnSleep();
    reused = spawnSleep();
  });
  afterAll(async () => {
    await alive.end();
    await reused.end();
    await endAll();
  });

  it('each dead file is removed once and reported by exactly one pruner', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const reg = makeRegistry();
      try {
        const dead = freePids(DEAD_PER_ROUND).map((pid) => reg.write(pid, sessionRecord(pid, { procStart: '12345' })));
        // A recycled PID (a live process with another start token) is dead too.
        const token = tokenOf(reused.pid, backendName);
        dead.push(reg.write(reused.pid, sessionRecord(reused.pid, { procStart: anotherToken(token) })));
        const live = [
          reg.write(alive.pid, sessionRecord(alive.pid, { procStart: tokenOf(alive.pid, backendName) })),
          reg.write(process.pid, sessionRecord(process.pid)), // no token: unverified, never pruned
        ];
        const go = join(reg.configDir, 'go');
        const a = startPruner(reg.configDir, go);
        const b = startPruner(reg.configDir, go);
        await Promise.all([a.ready, b.ready]);
        writeFileSync(go, '');
        const [byA, byB] = await Promise.all([a.output, b.output]);

        const both = byA.filter((p) => byB.includes(p));
        expect(both).toEqual([]);
        expect([...byA, ...byB].sort()).toEqual([...dead].sort());
        for (const path of dead) expect(existsSync(path)).toBe(false);
        expect(readdirSync(reg.sessions).sort()).toEqual(live.map((p) => p.slice(reg.sessions.length + 1)).sort());
        if (round === ROUNDS - 1) console.log(`[prune-race ${backendName}] last round: A removed ${byA.length}, B removed ${byB.length}`);
      } finally {
        reg.remove();
      }
    }
  });
});
