/**
 * `node bench/ab-scan.mjs BASELINE [--n 10,1000] [--backend js]`: liveRecords() of this tree beside
 * another build (BASELINE: a package root with a built dist/) on the bench's fixture, interleaved
 * rounds, the median of per-round new/old CPU-time ratios, so a change's effect on the scan is read
 * side by side rather than from two runs on a shared machine.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildFixtures } from './lib/fixtures.mjs';
import { asBackend } from './lib/instances.mjs';
import { inProcess, interleaved, medianRatio } from './lib/measure.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { n: { type: 'string', default: '10,1000' }, backend: { type: 'string', default: 'js' }, rounds: { type: 'string', default: '15' } },
});
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const baseline = positionals[0];
if (!baseline) throw new Error('usage: node bench/ab-scan.mjs BASELINE [--n 10,1000] [--backend js|native]');
mkdirSync(here('./build/'), { recursive: true });
const holder = join(here('./build/'), 'cps-holder');
execFileSync('cc', ['-O2', '-Wall', '-o', holder, here('./c/holder.c')], { stdio: 'inherit' });
const sizes = values.n.split(',').map(Number);
const fixtures = await buildFixtures(holder, sizes);
try {
  const backend = values.backend;
  const load = (root) => asBackend(backend, () => import(`${pathToFileURL(join(resolve(root), 'dist/index.js')).href}?ab=${backend}`))();
  const [before, after] = [await load(baseline), await load(here('..'))];
  for (const lib of [before, after]) asBackend(backend, () => lib.backend())();
  for (const n of sizes) {
    const { configDir } = fixtures.registries.get(n);
    const impls = [
      inProcess('before', () => before.liveRecords(configDir), (f) => asBackend(backend, f)),
      inProcess('after', () => after.liveRecords(configDir), (f) => asBackend(backend, f)),
    ];
    const results = interleaved(impls, { rounds: Number(values.rounds), warmMs: 300 });
    console.log(`${backend} N=${n}: after/before ${medianRatio(results, 'after', 'before').toFixed(3)} (before ${(results.get("before") / 1e3).toFixed(1)} µs, after ${(results.get("after") / 1e3).toFixed(1)} µs)`);
  }
} finally {
  await fixtures.end();
}
