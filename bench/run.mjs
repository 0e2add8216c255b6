/**
 * `npm run bench`: builds its own fixtures (real processes and registry folders), measures the library
 * beside plain C and plain Node baselines in the same run, prints markdown tables, writes
 * bench/results/latest.md and bench/results/scaling.svg, and ends every process it started.
 * `--quick` (or BENCH_QUICK=1) runs fewer rounds, for checking the harness itself; `--wall` ranks by
 * wall time instead of CPU time; `--only scan,probe` runs just those sections (by their first word).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scalingChart } from './lib/chart.mjs';
import { buildFixtures } from './lib/fixtures.mjs';
import { machineLine } from './lib/format.mjs';
import { clockName, setClock } from './lib/measure.mjs';
import { loadBackend } from './lib/instances.mjs';
import { probeSection } from './sections/probe.mjs';
import { processSection } from './sections/process.mjs';
import { scanSection } from './sections/scan.mjs';
import { statuslineSection } from './sections/statusline.mjs';
import { watchSection } from './sections/watch.mjs';
import { hostsSection } from './sections/hosts.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
setClock(process.argv.includes('--wall') ? 'wall' : 'cpu');
const SIZES = [10, 100, 1000, 10000];
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? new Set(process.argv[onlyAt + 1]?.split(',')) : undefined;

/** Compiles bench/c/*.c with cc -O2 into bench/build/ (git-ignored). */
function compileBaselines() {
  const out = here('./build/');
  mkdirSync(out, { recursive: true });
  const bins = {};
  for (const [key, file, exe] of [
    ['holder', 'holder.c', 'cps-holder'],
    ['probe', 'probe.c', 'cps-probe'],
    ['scan', 'scan.c', 'cps-scan'],
    ['run', 'run.c', 'cps-run'],
  ]) {
    bins[key] = join(out, exe);
    execFileSync('cc', ['-O2', '-Wall', '-o', bins[key], here(`./c/${file}`)], { stdio: 'inherit' });
  }
  return bins;
}

/** Our fixture processes all carry the holder's name; none may outlive the bench. */
function leftovers() {
  const ps = execFileSync('ps', ['-e', '-o', 'pid=,comm='], { encoding: 'utf8' });
  return ps.split('\n').filter((line) => line.trim().endsWith('cps-holder'));
}

async function main() {
  if (!existsSync(here('../dist/index.js'))) throw new Error('dist/index.js is missing: run `npm run build` first');
  const bins = compileBaselines();
  const workDir = mkdtempSync(join(tmpdir(), 'claude-ps-bench-work-'));
  const loadBefore = loadavg()[0];
  const started = Date.now();
  const fixtures = await buildFixtures(bins.holder, SIZES);
  console.error(`bench: fixtures took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  let ending;
  const cleanUp = () => (ending ??= fixtures.end().finally(() => rmSync(workDir, { recursive: true, force: true })));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => cleanUp().finally(() => process.exit(130)));
  }
  const parts = [];
  const targets = [];
  const regressions = [];
  let series = [];
  try {
    const libs = { native: await loadBackend('native'), js: await loadBackend('js'), ps: await loadBackend('ps') };
    const context = { libs, fixtures, bins, workDir, quick };
    for (const [label, section] of [
      ['probe', probeSection],
      ['scan', scanSection],
      ['watch', watchSection],
      ['whole process', processSection],
      ['statusline', statuslineSection],
      ['hosts', (c) => hostsSection({ ...c, localConfigDir: fixtures.registries.get(10).configDir })],
    ]) {
      if (only && !only.has(label.split(' ')[0])) continue;
      const started = Date.now();
      const result = await section(context);
      console.error(`bench: ${label} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
      parts.push(result.markdown);
      targets.push(...result.targets);
      regressions.push(...(result.regressions ?? []));
      if (result.series) series = result.series;
    }
  } finally {
    await cleanUp();
  }
  const left = leftovers();
  const report = [
    '# claude-ps benchmark',
    '',
    `Machine: ${machineLine()}`,
    '',
    `Load average (1 min) at start ${loadBefore.toFixed(1)}, at end ${loadavg()[0].toFixed(1)}: other work on the ` +
      'machine slows every row alike; ratios are steadier than absolute times.',
    '',
    `Reproduce: \`npm run bench\` (medians of interleaved rounds${quick ? '; QUICK run, fewer rounds' : ''}). ` +
      `Times are ${clockName()} unless a column says otherwise (\`node bench/run.mjs --wall\` ranks by wall time). ` +
      'Ratios compare implementations measured side by side in this run.',
    '',
    ...parts.flatMap((part) => [part, '']),
    '## Targets',
    '',
    ...targets,
    '',
    `Fixture processes left after the run: ${left.length}${left.length ? ` (${left.join(', ')})` : ''}.`,
    '',
  ].join('\n');
  console.log(report);
  mkdirSync(here('./results/'), { recursive: true });
  writeFileSync(here('./results/latest.md'), report);
  if (series.length) {
    writeFileSync(here('./results/scaling.svg'), scalingChart(series, 'claude-ps: full registry scan vs N'));
  }
  if (left.length) process.exitCode = 1;
  if (regressions.length) {
    console.error(`bench: FAILED: ${regressions.join('; ')}`);
    process.exitCode = 1;
  }
}

await main();
