/**
 * `node --expose-gc bench/gap.mjs [--backend js|native] [--big 10000]`: the library's and the tuned
 * peer's N=10 liveRecords, timed before and after ONE read of the big folder in the same process.
 * A per-process state that grows with everything ever read shows as an "after/before" well above 1
 * for the library while the peer's stays at ~1.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildFixtures, ourPidDomain } from './lib/fixtures.mjs';
import { loadBackend, asBackend } from './lib/instances.mjs';
import { tunedLiveRecords } from './lib/peers.mjs';

const { values } = parseArgs({ options: { backend: { type: 'string', default: 'js' }, big: { type: 'string', default: '10000' }, ms: { type: 'string', default: '600' } } });
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
mkdirSync(here('./build/'), { recursive: true });
const holder = join(here('./build/'), 'cps-holder');
execFileSync('cc', ['-O2', '-Wall', '-o', holder, here('./c/holder.c')], { stdio: 'inherit' });
const big = Number(values.big);
const fixtures = await buildFixtures(holder, big === 10 ? [10] : [10, big]);
const domain = ourPidDomain();
try {
  const lib = await loadBackend(values.backend);
  const small = fixtures.registries.get(10);
  const lr = asBackend(values.backend, (dir) => lib.liveRecords(dir));
  const time = (fn) => {
    const until = performance.now() + Number(values.ms);
    let calls = 0;
    const t0 = process.cpuUsage();
    while (performance.now() < until) { fn(); calls++; }
    const t = process.cpuUsage(t0);
    return (t.user + t.system) / calls;
  };
  const libCall = () => lr(small.configDir);
  const peerCall = () => tunedLiveRecords(small.sessionsDir, domain);
  const round = (label) => {
    globalThis.gc?.();
    const a = time(libCall), b = time(peerCall);
    console.log(`${label}: library ${a.toFixed(1)} µs, peer ${b.toFixed(1)} µs, ratio ${(a / b).toFixed(2)}`);
    return [a, b];
  };
  for (let w = 0; w < Number(process.env.GAP_WARM ?? 1); w++) { time(libCall); time(peerCall); }
  const before = [round('before'), round('before')];
  const reads = Number(process.env.GAP_BIG_READS ?? 1);
  for (let i = 0; i < reads && big !== 10; i++) lr(fixtures.registries.get(big).configDir);
  if (process.env.GAP_BIG_PEER) tunedLiveRecords(fixtures.registries.get(big).sessionsDir, domain);
  const after = [round('after'), round('after'), round('after')];
  const m = (xs, k) => Math.min(...xs.map((x) => x[k]));
  console.log(`after/before: library ${(m(after, 0) / m(before, 0)).toFixed(2)}, peer ${(m(after, 1) / m(before, 1)).toFixed(2)}`);
} finally {
  await fixtures.end();
}
