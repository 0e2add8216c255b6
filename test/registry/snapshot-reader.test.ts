/**
 * A reader in another process, reading the snapshot file in a tight loop, never sees a partial
 * document, while the file is rewritten by writeSnapshot directly and by a watcher keeping it current.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { snapshot, writeSnapshot } from '../../lib/registry/snapshot.js';
import type { Watcher } from '../../lib/registry/watch/watch.js';
import { spawnSleep } from '../helpers/processes.js';
import { cleanUpEachTest, collect, tempRegistry, watch, type TempRegistry } from './watch/helpers.js';

let reg: TempRegistry | undefined;
let w: Watcher | undefined;
cleanUpEachTest();

/** Reads `file` until told to stop (stdin closes); prints {reads, bad, versions} as JSON. */
const READER = `
const fs = require('fs');
const file = process.argv[1];
let reads = 0, bad = 0, stop = false;
const versions = new Set();
process.stdin.on('end', () => { stop = true; });
process.stdin.resume();
function loop() {
  const until = Date.now() + 20;
  while (Date.now() < until) {
    let text;
    try { text = fs.readFileSync(file, 'utf8'); } catch (e) { if (e.code === 'ENOENT') continue; throw e; }
    reads++;
    try { const doc = JSON.parse(text); if (doc.version !== 1 || typeof doc.sessions !== 'object') bad++; versions.add(doc.written + ':' + Object.keys(doc.sessions).length); }
    catch { bad++; }
  }
  if (stop) { console.log(JSON.stringify({ reads, bad, versions: versions.size })); process.exit(0); }
  setImmediate(loop); // let the 'end' event in
}
loop();
`;

function startReader(file: string): { stop(): Promise<{ reads: number; bad: number; versions: number }> } {
  const child = spawn(process.execPath, ['-e', READER, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
      return JSON.parse(out);
    },
  };
}

it('direct rewrites of a large document are never seen half-written', async () => {
  reg = tempRegistry();
  const procs = Array.from({ length: 10 }, () => spawnSleep());
  for (const p of procs) reg.write(p.pid, { name: 'n'.repeat(1000), cwd: '/c'.repeat(500) });
  const file = join(reg.configDir, 'snapshot.json');
  const base = snapshot(reg.configDir);
  writeSnapshot(file, base);
  const reader = startReader(file);
  await new Promise((r) => setTimeout(r, 200)); // the reader is up and looping
  for (let i = 0; i < 120; i++) {
    // Vary the size, so a torn read could not pass for a whole document.
    const sessions = Object.fromEntries(Object.entries(base.sessions).slice(0, 1 + (i % 10)));
    writeSnapshot(file, { ...base, written: base.written + i, sessions });
    if (i % 10 === 0) await new Promise((r) => setImmediate(r));
  }
  const result = await reader.stop();
  expect(result.bad).toBe(0);
  expect(result.reads).toBeGreaterThan(0);
  expect(result.versions).toBeGreaterThan(1); // it did see the file change
  for (const p of procs) await p.end();
});

it('a watcher with snapshotFile keeps the file current, and a reader never sees it half-written', async () => {
  reg = tempRegistry();
  const procs = Array.from({ length: 5 }, () => spawnSleep());
  const file = join(reg.configDir, 'live.json');
  w = watch(reg.configDir, { interval: 20, snapshotFile: file });
  expect(existsSync(file)).toBe(true); // written at the start
  const c = collect(w);
  const reader = startReader(file);
  for (let round = 0; round < 40; round++) {
    for (const p of procs) reg.write(p.pid, { status: round % 2 ? 'busy' : 'idle', name: `r${round}` });
    await new Promise((r) => setTimeout(r, 15));
  }
  await c.next((e) => e.record.name === 'r39' && e.record.pid === procs.at(-1)!.pid, 'last round');
  await procs[0]!.end();
  await c.next((e) => e.type === 'died', 'died');
  await c.quiet(200); // one more interval: the trailing write is done
  const result = await reader.stop();
  expect(result.bad).toBe(0);
  expect(result.versions).toBeGreaterThan(1);
  const { readFileSync } = await import('node:fs');
  const final = JSON.parse(readFileSync(file, 'utf8'));
  expect(Object.keys(final.sessions)).toHaveLength(5);
  expect(final.sessions[`session-${procs[0]!.pid}`]).toMatchObject({ live: false, name: 'r39' });
  expect(final.sessions[`session-${procs[1]!.pid}`]).toMatchObject({ live: true, name: 'r39', verdict: 'alive' });
  for (const p of procs) await p.end();
});
