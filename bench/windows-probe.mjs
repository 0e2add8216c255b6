/**
 * The win32 batch probe beside a JS `process.kill(pid, 0)` loop, in one run under node.exe
 * (`npm run test:windows -- --bench`, or `node scripts/test-windows.mjs --bench`). Wine translates
 * every Windows call into wineserver requests, so these figures say how the two compare under Wine,
 * not what either costs on Windows: they are no measure of Windows speed.
 */
import { spawn } from 'node:child_process';
import { probe } from '../dist/index.js';

const SIZES = [10, 100, 1000];
const ROUNDS = 15;
const children = [];
for (let i = 0; i < 4; i++) children.push(spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' }));
await Promise.all(children.map((c) => new Promise((r) => c.once('spawn', r))));
// Measured once the children have finished starting: node.exe's start-up under Wine is busy work
// in wineserver, which every probe of the first second would wait behind.
while (!probe(children.map((c) => c.pid)).every((r) => r.state === 'alive')) await new Promise((r) => setTimeout(r, 50));
await new Promise((r) => setTimeout(r, 2000));

function killZero(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code !== 'ESRCH';
  }
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const lines = [
  '| PIDs (4 live) | native batch probe (µs/PID) | JS `process.kill(pid, 0)` loop (µs/PID) | ratio | batch (ms) | loop (ms) |',
  '|---:|---:|---:|---:|---:|---:|',
];
for (const n of SIZES) {
  const pids = Array.from({ length: n }, (_, i) => (i < children.length ? children[i].pid : 0x40000000 + i * 4));
  const native = [];
  const js = [];
  // Untimed rounds first (the first calls into the addon and into Wine are slower), then interleaved
  // rounds: both see the same machine load.
  for (let r = 0; r < 10; r++) {
    probe(pids);
    for (const pid of pids) killZero(pid);
  }
  for (let r = 0; r < ROUNDS; r++) {
    let t = process.hrtime.bigint();
    probe(pids);
    native.push(Number(process.hrtime.bigint() - t) / 1000 / n);
    t = process.hrtime.bigint();
    for (const pid of pids) killZero(pid);
    js.push(Number(process.hrtime.bigint() - t) / 1000 / n);
  }
  const a = median(native);
  const b = median(js);
  lines.push(`| ${n} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(2)}x | ${((a * n) / 1000).toFixed(1)} | ${((b * n) / 1000).toFixed(1)} |`);
}
for (const c of children) c.kill();
console.log(`node ${process.version} ${process.platform}-${process.arch} under Wine, medians of ${ROUNDS} interleaved rounds, wall time`);
console.log('(the batch probe also reads each live PID\'s creation time and exit state; kill(pid, 0) only asks existence)');
console.log(lines.join('\n'));
