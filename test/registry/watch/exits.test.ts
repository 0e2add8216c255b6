/**
 * Exits from the kernel, with real processes: with the native backend a live record gets a pidfd
 * (within the budget) and its `died` arrives as the process ends, long before the next interval; with
 * the JS and ps backends (no handles) the interval probe reports it. Handles are released on died,
 * removed and close(), and never keep a process alive or outlive a worker thread.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readlinkSync, rmSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { exitNotification } from '../../../lib/backend/exits.js';
import type { WatchEvent } from '../../../lib/registry/watch/diff.js';
import { BACKENDS, selectBackendForSuite } from '../../helpers/backends.js';
import { ownThreadId, procState, spawnSleep, until, type Spawned } from '../../helpers/processes.js';
import { cleanUpEachTest, collect, runScript, tempRegistry, watch } from './helpers.js';

cleanUpEachTest();
// The previous test's watchers were closed; libuv finishes closing their handles on a later turn.
beforeEach(() => until(() => pidfds() === 0, 'the previous test\'s pidfds to close'));

/** Open pidfds of this process (what the kernel path holds). */
function pidfds(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === 'anon_inode:[pidfd]') n++;
    } catch {
      // closed while listed
    }
  }
  return n;
}

/** A child of a shell that never reaps it: a zombie once its `sleep` ends, `seconds` from now. */
async function spawnFutureZombie(seconds: number): Promise<Spawned & { zombiePid: number }> {
  const child = spawn('sh', ['-c', `sleep ${seconds} & echo $!; exec sleep 120`], { stdio: ['ignore', 'pipe', 'ignore'] });
  const zombiePid = await new Promise<number>((resolve) => {
    let text = '';
    child.stdout!.on('data', (d: Buffer) => {
      text += d;
      if (text.includes('\n')) resolve(Number(text.split('\n')[0]));
    });
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    pid: child.pid!,
    zombiePid,
    async end() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

describe.each(BACKENDS)('exits (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  const kernel = backendName === 'native';
  // With handles, the interval is an hour: only the kernel can report the exit in time. Without, the probe must.
  const interval = kernel ? 3_600_000 : 100;

  it(`says where exits come from: ${kernel ? 'the kernel' : 'the interval probe'}`, () => {
    expect(exitNotification().mode).toBe(kernel ? 'kernel' : 'interval');
  });

  it('SIGKILL and a normal exit: died, and the handle is released', async () => {
    const reg = tempRegistry(true, backendName);
    const killed = spawnSleep();
    const exiting = spawnSleep(3); // exits by itself, after the watcher has seen it alive
    reg.write(killed.pid);
    reg.write(exiting.pid);
    const before = pidfds();
    const w = watch(reg.configDir, { interval });
    const c = collect(w);
    expect(w.exitWatch().kernel).toEqual(kernel ? [killed.pid, exiting.pid].sort((a, b) => a - b) : []);
    expect(pidfds() - before).toBe(kernel ? 2 : 0);
    await killed.end();
    const diedKilled = await c.next((e) => e.type === 'died' && e.record.pid === killed.pid, 'died after SIGKILL');
    expect(['gone', 'zombie']).toContain(diedKilled.record.verdict);
    await c.next((e) => e.type === 'died' && e.record.pid === exiting.pid, 'died after exit(0)');
    expect(w.exitWatch()).toEqual({ kernel: [], interval: [] });
    await until(() => pidfds() === before, `the pidfds to close (${pidfds()} now, ${before} before)`);
    await exiting.end();
  });

  it.skipIf(backendName === 'ps')('a process that turns zombie while watched: died, verdict zombie', async () => {
    const reg = tempRegistry(true, backendName);
    const z = await spawnFutureZombie(0.5);
    try {
      reg.write(z.zombiePid);
      const w = watch(reg.configDir, { interval });
      const c = collect(w);
      expect(w.exitWatch().kernel).toEqual(kernel ? [z.zombiePid] : []);
      const died = await c.next((e) => e.type === 'died' && e.record.pid === z.zombiePid, 'died as a zombie');
      expect(died.record.verdict).toBe('zombie');
      expect(procState(z.zombiePid)).toBe('Z');
    } finally {
      await z.end();
    }
  });

  it('PID reuse: a record whose PID now belongs to another process gets no handle; the new owner\'s record does', async () => {
    const reg = tempRegistry(true, backendName);
    const p = spawnSleep();
    const right = backendName === 'ps' ? undefined : '1'; // a token of the right form that is not p's
    reg.write(p.pid, backendName === 'ps' ? { procStart: 'Mon Jan  1 00:00:00 2001' } : { procStart: right });
    const w = watch(reg.configDir, { interval });
    const c = collect(w);
    const first = await c.next((e) => e.record.pid === p.pid, 'the recycled record');
    expect(first.record.verdict).toBe('recycled');
    expect(w.exitWatch()).toEqual({ kernel: [], interval: [] });
    reg.write(p.pid); // a new session on the reused PID, with its real token
    await c.next((e) => e.type === 'changed' && e.record.verdict === 'alive', 'the new owner, alive');
    expect(w.exitWatch().kernel).toEqual(kernel ? [p.pid] : []);
    await p.end();
    await c.next((e) => e.type === 'died' && e.record.pid === p.pid, 'died for the new owner');
  });

  it('removed and close() release handles', async () => {
    const reg = tempRegistry(true, backendName);
    const a = spawnSleep();
    const b = spawnSleep();
    reg.write(a.pid);
    reg.write(b.pid);
    const before = pidfds();
    const w = watch(reg.configDir, { interval });
    const c = collect(w);
    expect(pidfds() - before).toBe(kernel ? 2 : 0);
    rmSync(reg.path(a.pid));
    await c.next((e) => e.type === 'removed' && e.record.pid === a.pid, 'removed');
    expect(w.exitWatch().kernel).toEqual(kernel ? [b.pid] : []);
    await until(() => pidfds() - before === (kernel ? 1 : 0), 'the removed record\'s pidfd to close');
    w.close();
    await until(() => pidfds() === before, 'every pidfd to close');
    await a.end();
    await b.end();
  });

  it('a handle budget of 2 with 5 sessions: 2 by the kernel, 3 by the probe, all five died; freed handles are reused', async () => {
    const reg = tempRegistry(true, backendName);
    const procs = [spawnSleep(), spawnSleep(), spawnSleep(), spawnSleep(), spawnSleep()];
    for (const p of procs) reg.write(p.pid);
    const w = watch(reg.configDir, { interval: 200, exitHandles: 2 });
    const c = collect(w);
    const split = w.exitWatch();
    expect(split.kernel).toHaveLength(kernel ? 2 : 0);
    expect(split.interval).toHaveLength(kernel ? 3 : 5);
    // End the two the kernel watches: their slots go to two of the others.
    const watched = procs.filter((p) => split.kernel.includes(p.pid));
    for (const p of watched) await p.end();
    for (const p of watched) await c.next((e: WatchEvent) => e.type === 'died' && e.record.pid === p.pid, `died ${p.pid}`);
    if (kernel) {
      await until(() => w.exitWatch().kernel.length === 2, 'the freed handles to be reused');
      expect(w.exitWatch().interval).toHaveLength(1);
    }
    for (const p of procs) await p.end();
    const died = () => c.events.filter((e) => e.type === 'died').map((e) => e.record.pid);
    await until(() => died().length === 5, 'died for all five');
    expect(died().sort()).toEqual(procs.map((p) => p.pid).sort());
  });

  it.runIf(kernel)('a PID the kernel gives no handle for (a thread ID: not a process leader) falls back to the probe', () => {
    const reg = tempRegistry(true, backendName);
    const tid = ownThreadId();
    reg.write(tid);
    const w = watch(reg.configDir, { interval });
    expect(w.records()[0]!.verdict).toBe('alive');
    expect(w.exitWatch()).toEqual({ kernel: [], interval: [tid] });
  });

  it.runIf(kernel)('a descriptor limit (EMFILE) is passing: once descriptors are free again, every record gets its handle', async () => {
    const reg = tempRegistry(true, backendName);
    const procs = [spawnSleep(), spawnSleep(), spawnSleep(), spawnSleep(), spawnSleep(), spawnSleep()];
    for (const p of procs) reg.write(p.pid);
    // In a child (this worker must never run out of descriptors): every descriptor taken but a few, a
    // watcher started, then the descriptors given back. Several spares, so that one of them leaves
    // room to read the records but not to open every handle.
    const run = await runScript(
      `import { closeSync, openSync } from 'node:fs';
       import { watch } from './lib/registry/watch/watch.ts';
       const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
       const out = [];
       for (let spare = 2; spare <= 8; spare++) {
         const held = [];
         try { for (;;) held.push(openSync('/dev/null', 'r')); } catch {}
         for (let i = 0; i < spare; i++) closeSync(held.pop());
         const w = watch(process.argv[2], { interval: 100 });
         w.on('error', () => {});
         await sleep(300);
         const during = { records: w.records().length, ...w.exitWatch() };
         for (const fd of held) closeSync(fd);
         await sleep(1000);
         out.push({ during, after: w.exitWatch() });
         w.close();
         await sleep(50);
       }
       console.log(JSON.stringify(out));`,
      [reg.configDir],
      60_000,
    );
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as { during: { records: number; kernel: number[]; interval: number[] }; after: { kernel: number[]; interval: number[] } }[];
    // The attack bit: some watcher read all six records and could open only some of their handles.
    expect(out.some((o) => o.during.records === 6 && o.during.kernel.length > 0 && o.during.interval.length > 0)).toBe(true);
    const all = procs.map((p) => p.pid).sort((a, b) => a - b);
    for (const o of out) expect({ kernel: [...o.after.kernel].sort((a, b) => a - b), interval: o.after.interval }).toEqual({ kernel: all, interval: [] });
    for (const p of procs) await p.end();
  });

  it.runIf(kernel)('handles never keep the process alive after close(), nor outlive a worker thread', async () => {
    const reg = tempRegistry(true, backendName);
    const procs = [spawnSleep(), spawnSleep(), spawnSleep()];
    for (const p of procs) reg.write(p.pid);
    const run = await runScript(
      `import { Worker, isMainThread, parentPort } from 'node:worker_threads';
       import { readdirSync, readlinkSync } from 'node:fs';
       import { watch } from './lib/registry/watch/watch.ts';
       const pidfds = () => readdirSync('/proc/self/fd').filter((fd) => { try { return readlinkSync('/proc/self/fd/' + fd) === 'anon_inode:[pidfd]'; } catch { return false; } }).length;
       const dir = process.argv[2];
       if (!isMainThread) {
         const w = watch(dir, { interval: 3600000 });
         parentPort.postMessage(w.exitWatch().kernel.length); // then never closed: the worker is terminated
       } else {
         const w = watch(dir, { interval: 3600000 });
         const held = w.exitWatch().kernel.length;
         w.close();
         const worker = new Worker(new URL(import.meta.url), { argv: [dir] });
         worker.once('message', async (inWorker) => {
           const during = pidfds();
           await worker.terminate();
           setTimeout(() => console.log(JSON.stringify({ held, inWorker, during, after: pidfds() })), 100);
         });
       }`,
      [reg.configDir],
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0); // it ended by itself: nothing kept its loop alive
    expect(JSON.parse(run.stdout)).toEqual({ held: 3, inWorker: 3, during: 3, after: 0 });
    for (const p of procs) await p.end();
  });
});
