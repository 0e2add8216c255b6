/** Probe only: the batch probe of mixed PIDs, per backend, beside a plain C loop and plain Node. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { straightforwardProbe } from '../lib/baselines.mjs';
import { fmtRatio, fmtTime, table, targetLine } from '../lib/format.mjs';
import { asBackend } from '../lib/instances.mjs';
import { cProgram, inProcess, inProcessSpawning, interleaved } from '../lib/measure.mjs';

function stateCounts(results) {
  const counts = { alive: 0, zombie: 0, gone: 0, unverified: 0 };
  for (const r of results) counts[r.state] = (counts[r.state] ?? 0) + 1;
  return counts;
}

/**
 * Checks an implementation's answer against the fixture. Our own processes cannot change state, but
 * on a busy machine other programs may take a few of the "dead" PIDs: that drift is reported, not an error.
 */
function checker(n, mix, notes) {
  let drift = 0;
  const check = (name, got) => {
    const ours = got.zombie === mix.zombie && got.alive >= mix.live + mix.recycled;
    const total = got.alive + got.gone + got.unverified === mix.live + mix.recycled + mix.dead;
    if (!ours || !total) notes.push(`${name} disagrees at ${n}: ${JSON.stringify(got)}`);
    else drift = Math.max(drift, got.alive + got.unverified - mix.live - mix.recycled);
  };
  return { check, drift: () => drift };
}

export function probeSection({ libs, fixtures, bins, workDir, quick }) {
  const sizes = [1000, 10000];
  const results = new Map();
  const notes = [];
  for (const n of sizes) {
    const { pids } = fixtures.registries.get(n);
    const pidFile = join(workDir, `pids-${n}.txt`);
    writeFileSync(pidFile, pids.join('\n'));
    const { mix } = fixtures.registries.get(n);
    const { check, drift } = checker(n, mix, notes);
    const impls = [
      cProgram('C loop (kill + stat read)', bins.probe, [pidFile], ([alive, zombie, gone, unverified]) =>
        check('C loop', { alive, zombie, gone, unverified }),
      ),
      inProcess('native `probe()`', () => libs.native.probe(pids), (f) => asBackend('native', f)),
      inProcess('JS backend `probe()`', () => libs.js.probe(pids), (f) => asBackend('js', f)),
      inProcessSpawning('ps backend `probe()` (wall time: spawns `ps`)', () => libs.ps.probe(pids), (f) => asBackend('ps', f)),
      inProcess('straightforward Node', () => straightforwardProbe(pids)),
    ];
    for (const impl of impls.slice(1, 3).concat(impls[4])) check(impl.name, stateCounts(impl.call()));
    const psStates = stateCounts(libs.ps.probe(pids));
    results.set(n, interleaved(impls, { rounds: quick ? 3 : n >= 10000 ? 5 : 11 }));
    notes.push(
      `${n.toLocaleString('en-US')} PIDs: ${mix.live + mix.recycled} live, ${mix.zombie} zombie, ${mix.dead} dead` +
        (drift() ? ` (${drift()} of the dead PIDs were taken by other programs during the run)` : '') +
        `; ps backend answered ${JSON.stringify(psStates)}`,
    );
  }
  const names = [...results.get(sizes[0]).keys()];
  const c = (n) => results.get(n).get(names[0]);
  const rows = names.map((name) => [
    name,
    ...sizes.flatMap((n) => {
      const ns = results.get(n).get(name);
      return [fmtTime(ns), fmtTime(ns / n), fmtRatio(ns, c(n))];
    }),
  ]);
  const header = ['implementation', ...sizes.flatMap((n) => [`${n.toLocaleString('en-US')} PIDs`, 'per PID', 'vs C'])];
  const targets = [];
  for (const n of sizes) {
    const native = results.get(n).get('native `probe()`');
    const js = results.get(n).get('JS backend `probe()`');
    const plain = results.get(n).get('straightforward Node');
    targets.push(targetLine(`probe, native vs C loop, ${n.toLocaleString('en-US')} PIDs`, fmtRatio(native, c(n)), '≤ 1.10x', native / c(n) <= 1.1));
    targets.push(
      targetLine(`probe, JS backend speed-up over straightforward Node, ${n.toLocaleString('en-US')} PIDs`, fmtRatio(plain, js), '≥ 1.50x', plain / js >= 1.5),
    );
  }
  const markdown = [
    '## Probe only (one batch of mixed PIDs)',
    '',
    'Mix: 20% live, 10% live with another token (recycled claims), 1% zombies, the rest PIDs no process holds. ' +
      'Library rows call the public `probe(pids)` (result objects included); the C loop is `bench/c/probe.c`.',
    '',
    table(header, rows),
    '',
    `Checked answers: ${notes.join('; ')}.`,
  ].join('\n');
  return { markdown, targets };
}
