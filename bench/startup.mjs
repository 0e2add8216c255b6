/**
 * `node bench/startup.mjs [--rounds N] [LABEL=ROOT ...]`: the start-up of `claude-ps count` and
 * `claude-ps statusline` of this tree beside other builds of the package (package roots with a
 * built dist/, e.g. a temp clone of an older commit after `npm ci && npm run build`) and beside bare
 * `node -e 0`, in one run: every row a fresh process through bench/c/run.c, interleaved round by round
 * (default 21 rounds), CPU time and wall time; ratios also per round (each row's time over bare node's,
 * or over the same command of the build listed before it, in the same round). `statusline` runs as
 * Claude Code runs it: CLAUDE_PID of a live record, the stdin document on stdin. Each tree's CLI gets
 * its own empty XDG_CACHE_HOME (a per-user code cache lands there, not in your home), warmed by untimed
 * first runs.
 * Needs `npm run build` first; builds its own fixture processes and ends them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildFixtures } from './lib/fixtures.mjs';
import { fmtRatio, fmtTime, machineLine, table } from './lib/format.mjs';
import { interleaved, median, processTime } from './lib/measure.mjs';
import { STDIN_DOCUMENT } from './sections/statusline.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 21;
const trees = [
  ...args
    .filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--rounds')
    .map((a) => {
      const eq = a.indexOf('=');
      const root = resolve(eq > 0 ? a.slice(eq + 1) : a);
      return { label: eq > 0 ? a.slice(0, eq) : basename(root), root };
    }),
  { label: 'this tree', root: here('..') },
];
for (const { root } of trees) {
  if (!existsSync(join(root, 'dist/cli.cjs'))) {
    console.error(`${root}: no dist/cli.cjs (usage: node bench/startup.mjs [--rounds N] [LABEL=ROOT ...])`);
    process.exit(2);
  }
}

mkdirSync(here('./build/'), { recursive: true });
const compile = (file, exe) => {
  execFileSync('cc', ['-O2', '-Wall', '-o', here(`./build/${exe}`), here(`./c/${file}`)], { stdio: 'inherit' });
  return here(`./build/${exe}`);
};
const bins = { holder: compile('holder.c', 'cps-holder'), run: compile('run.c', 'cps-run') };
const fixtures = await buildFixtures(bins.holder, [10]);
const scratch = mkdtempSync(join(tmpdir(), 'cps-startup-'));
try {
  const { configDir } = fixtures.registries.get(10);
  const lib = await import(pathToFileURL(here('../dist/index.js')).href);
  const live = lib.liveRecords(configDir);
  const base = { ...process.env, CLAUDE_CONFIG_DIR: configDir, CLAUDE_PID: String(live[0].pid) };
  delete base.CLAUDE_PS_BACKEND;
  delete base.NODE_OPTIONS;
  delete base.NODE_EXTRA_CA_CERTS; // parsed at every Node start (~80 ms where set): it would dilute the ratios
  delete base.NODE_COMPILE_CACHE;
  const rows = [{ name: 'bare `node -e 0`', args: ['-e', '0'], env: base }];
  const skipped = [];
  trees.forEach((tree, i) => {
    const env = { ...base, XDG_CACHE_HOME: join(scratch, `cache-${i}`) };
    const cli = join(tree.root, 'dist/cli.cjs');
    for (const command of ['count', 'statusline']) {
      const row = { name: `\`claude-ps ${command}\`, ${tree.label}`, args: [cli, command], env, command };
      const probe = spawnSync(process.execPath, row.args, { env, input: STDIN_DOCUMENT, encoding: 'utf8' });
      if (probe.status !== 0) skipped.push(`${tree.label} has no working \`${command}\` (exit ${probe.status}: ${probe.stderr.trim().split('\n')[0]})`);
      else rows.push(row);
    }
  });
  const impls = rows.map((row) => ({ name: row.name, run: () => processTime(bins.run, process.execPath, row.args, { env: row.env, input: STDIN_DOCUMENT }) }));
  const medians = interleaved(impls, { rounds, targetMs: 1, maxIterations: 1 });
  const cpu = (name) => medians.samples.get(name);
  const cpuMedian = (name) => medians.get(name);
  const bare = rows[0].name;
  const perRound = (name, other) => (other ? `${median(cpu(name).map((t, r) => t / cpu(other)[r])).toFixed(2)}x` : '');
  console.log(`## Start-up, one run: ${rounds} interleaved rounds, ${live.length} live of 10 records\n\n${machineLine()}\n`);
  console.log(
    table(
      ['process', 'median CPU time', 'vs bare node', 'median of per-round CPU ratios', 'per-round CPU ÷ the build above', 'median wall time', 'wall vs bare node'],
      rows.map(({ name, command }, i) => [
        name,
        fmtTime(cpuMedian(name)),
        fmtRatio(cpuMedian(name), cpuMedian(bare)),
        // Each round's time over bare node's in the same round: steadier than a ratio of medians while the
        // machine's load drifts.
        `${median(cpu(name).map((t, r) => t / cpu(bare)[r])).toFixed(2)}x`,
        perRound(name, rows.slice(0, i).findLast((row) => row.command === command)?.name),
        fmtTime(medians.wall.get(name)),
        fmtRatio(medians.wall.get(name), medians.wall.get(bare)),
      ]),
    ),
  );
  if (skipped.length) console.log(`\n${skipped.join('; ')}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await fixtures.end();
}
