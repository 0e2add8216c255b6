// Soak test for watch (`npm run soak`; not part of CI's test run): hundreds of claims churned for
// minutes under one watcher that also keeps a snapshot file. Memory and open file descriptors must stay
// flat: exits non-zero if RSS grows by 5 MB or more, or the count of descriptors other than exit handles
// changes, between the end of the warm-up and the end of the churn, or if a pidfd is held for anything
// but a record the kernel watches (live sessions come and go, and their exit handles with them). Also
// checks that the events, applied in order, reproduce the registry.
//
// The churn runs in a child process (the driver) so that only the watcher and its consumer are measured.
//
//   SOAK_SECONDS=120 npm run soak   (default 180; SOAK_WARMUP=30 s, SOAK_CLAIMS=300, SOAK_INTERVAL_MS=100,
//                                    SOAK_LIVE=20 live processes; SOAK_VERBOSE=1 prints a line every 30 s)
import { fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { readRecords, watch } from '../dist/index.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const CLAIMS = Number(process.env.SOAK_CLAIMS ?? 300);
const INTERVAL = Number(process.env.SOAK_INTERVAL_MS ?? 100);
const LIVE = Number(process.env.SOAK_LIVE ?? 20);
const RSS_LIMIT = 5 * 1024 * 1024;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

// V8 grows its young generation (up to 2 x 16 MB) the first time allocation pressure calls for it,
// which can land after any fixed warm-up and looks like 16 MB of "growth". The measured process runs
// with the young generation pinned at that usual maximum from the start, so only the library's own
// memory is left to measure: `npm run soak` re-runs this file with these flags.
const PINNED = ['--min-semi-space-size=16', '--max-semi-space-size=16'];
const DRIVER = process.argv[2] === '--driver';
const WRAPPER = !DRIVER && !process.execArgv.includes(PINNED[0]);
const configDir = DRIVER ? process.argv[3] : WRAPPER ? '' : mkdtempSync(join(tmpdir(), 'cps-soak-'));
const sessions = join(configDir, 'sessions');
if (!DRIVER && !WRAPPER) mkdirSync(sessions, { mode: 0o700 });
const snapshotFile = join(configDir, 'snapshot.json');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;

// Live claims belong to our own `sleep`s (killed by PID, then replaced); the rest name PIDs that do not
// exist (above any pid_max), and some live PIDs are claimed with a wrong start token (recycled).
const live = new Map(); // pid → child
function startSleep() {
  const child = spawn('sleep', ['3600'], { stdio: 'ignore' });
  live.set(child.pid, child);
  child.once('exit', () => live.delete(child.pid));
  return child.pid;
}
function tokenOf(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return line.slice(line.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

const STATUSES = ['busy', 'idle', 'waiting', 'shell'];
let writes = 0;
let seq = 0;
function writeClaim(pid, token) {
  const doc = { pid, sessionId: `s-${pid}-${seq++ % 7}`, procStart: token, cwd: '/tmp/soak', kind: seq % 5 ? 'interactive' : 'bg',
    status: STATUSES[seq % 4], name: `soak ${seq}`, statusUpdatedAt: Date.now() };
  writeFileSync(join(sessions, `${pid}.json`), JSON.stringify(doc)); // in place, as Claude Code writes
  writes++;
}
function randomOf(list) {
  return list[Math.floor(Math.random() * list.length)];
}
function churnStep() {
  const files = readdirSync(sessions);
  const r = Math.random();
  if (r < 0.05 && live.size > 0) {
    const pid = randomOf([...live.keys()]);
    live.get(pid).kill('SIGKILL'); // → died
    startSleep();
  } else if (r < 0.25 && files.length > 0) {
    unlinkSync(join(sessions, randomOf(files))); // → removed
  } else if (r < 0.35 && live.size > 0) {
    const pid = randomOf([...live.keys()]);
    writeClaim(pid, String(Number(tokenOf(pid) ?? 1) + 1)); // recycled
  } else if (r < 0.55 && live.size > 0) {
    const pid = randomOf([...live.keys()]);
    writeClaim(pid, tokenOf(pid));
  } else if (files.length < CLAIMS || r < 0.8) {
    writeClaim(5_000_000 + Math.floor(Math.random() * CLAIMS), String(1000 + Math.floor(Math.random() * 1e6)));
  } else {
    const name = randomOf(files);
    const pid = Number(name.slice(0, -5));
    writeClaim(pid, live.has(pid) ? tokenOf(pid) : '12345');
  }
}

// The driver runs in a child process, so that its spawning, writing and reaping do not count in the
// watcher's RSS and fds. It churns while running; 'pause' stops it (it answers 'paused'), 'stop' ends it.
async function driver() {
  for (let i = 0; i < LIVE; i++) startSleep();
  let state = 'run';
  process.on('message', (m) => (state = m));
  let told = false;
  while (state !== 'stop') {
    if (state === 'run') {
      told = false;
      for (let i = 0; i < 5; i++) churnStep();
      await sleep(2);
    } else {
      if (!told) process.send({ paused: writes });
      told = true;
      await sleep(10);
    }
  }
  for (const child of live.values()) child.kill('SIGKILL');
  process.send({ stopped: writes });
  process.disconnect();
}

function startDriver() {
  const child = fork(fileURLToPath(import.meta.url), ['--driver', configDir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = (key) => new Promise((resolve) => {
    const on = (m) => {
      if (m && key in m) {
        child.off('message', on);
        resolve(m[key]);
      }
    };
    child.on('message', on);
  });
  return {
    run: () => child.send('run'),
    pause: () => (child.send('pause'), next('paused')),
    stop: async () => {
      child.send('stop');
      const n = await next('stopped');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      return n;
    },
  };
}

/** Open descriptors: kernel exit handles (pidfds, one per live record the kernel watches) apart from the rest. */
function descriptors() {
  let pidfds = 0;
  let other = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    let target = '';
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // the listing's own descriptor, closed by now
    }
    if (target === 'anon_inode:[pidfd]') pidfds++;
    else other++;
  }
  return { pidfds, other };
}

let watcher;
function measure() {
  gc();
  gc();
  const m = process.memoryUsage();
  const { pidfds, other } = descriptors();
  const handles = watcher ? watcher.exitWatch().kernel.length : 0;
  return { rss: m.rss, heap: m.heapUsed, heapTotal: m.heapTotal, fds: other, pidfds, handles };
}
const show = (m) =>
  `rss ${mb(m.rss)}, heap ${mb(m.heap)} of ${mb(m.heapTotal)}, open fds ${m.fds} + ${m.pidfds} pidfds (${m.handles} records watched by the kernel)`;

async function main() {
  // The consumer: applies events to its own view, by path, checking that the sequence is well formed.
  const view = new Map();
  const counts = { added: 0, changed: 0, died: 0, removed: 0 };
  let malformed = 0;
  let errors = 0;
  const w = (watcher = watch(configDir, { interval: INTERVAL, snapshotFile }));
  w.on('error', (err) => {
    console.error('watch error:', err);
    errors++;
  });
  const consumer = (async () => {
    for await (const e of w) {
      counts[e.type]++;
      if ((e.type === 'added') === view.has(e.record.path)) malformed++;
      if (e.type === 'removed') view.delete(e.record.path);
      else view.set(e.record.path, e.record);
    }
  })();
  // Measured while the registry is quiet (driver paused), after the watcher has caught up.
  const quietMeasure = async (d) => {
    await d.pause();
    await sleep(Math.max(5 * INTERVAL, 500));
    return measure();
  };

  const warmup = Number(process.env.SOAK_WARMUP ?? 30);
  console.log(`soak: ${SECONDS}s of churn over ~${CLAIMS} claims, ${LIVE} live processes, interval ${INTERVAL} ms (warm-up ${warmup}s)`);
  const d = startDriver();
  await sleep(warmup * 1000);
  const start = await quietMeasure(d);
  console.log(`start: ${show(start)}`);
  d.run();
  const t0 = Date.now();
  for (let left = SECONDS; left > 0; left -= 30) {
    await sleep(Math.min(30, left) * 1000);
    if (process.env.SOAK_VERBOSE) console.log(`  ${((Date.now() - t0) / 1000).toFixed(0)}s (under churn): ${show(measure())}`);
  }
  const end = await quietMeasure(d);
  const seconds = (Date.now() - t0) / 1000;
  console.log(`end:   ${show(end)}`);
  const writes = await d.stop();

  // Once quiet for a while (the stopped driver's sleeps have died), the view must equal a fresh read.
  await sleep(Math.max(12 * INTERVAL, 1500));
  const truth = readRecords(configDir);
  const mismatches =
    truth.filter((r) => {
      const v = view.get(r.path);
      return !v || v.sessionId !== r.sessionId || v.name !== r.name || v.verdict !== r.verdict;
    }).length + Math.abs(view.size - truth.length);
  const snap = JSON.parse(readFileSync(snapshotFile, 'utf8'));
  w.close();
  await consumer;
  rmSync(configDir, { recursive: true, force: true });

  const growth = end.rss - start.rss;
  console.log(`churn: ${writes} writes in ${seconds.toFixed(0)}s (with warm-up); events ${JSON.stringify(counts)}`);
  console.log(`end state: ${truth.length} records, view ${view.size}, mismatches ${mismatches}, malformed ${malformed}, errors ${errors}, snapshot sessions ${Object.keys(snap.sessions).length}`);
  console.log(`rss growth ${mb(growth)} (must be < ${mb(RSS_LIMIT)}), fd change ${end.fds - start.fds} (must be 0)`);
  // Exit handles come and go with live sessions: each must belong to a record the kernel watches.
  const handlesHeld = start.pidfds === start.handles && end.pidfds === end.handles;
  console.log(`pidfds ${start.pidfds} → ${end.pidfds}, records watched by the kernel ${start.handles} → ${end.handles} (must match)`);
  const ok = growth < RSS_LIMIT && end.fds === start.fds && handlesHeld && mismatches === 0 && malformed === 0 && errors === 0;
  console.log(ok ? 'soak: PASS' : 'soak: FAIL');
  process.exit(ok ? 0 : 1);
}

if (DRIVER) await driver();
else if (WRAPPER) {
  const child = spawn(process.execPath, [...PINNED, ...process.execArgv, fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else await main();
