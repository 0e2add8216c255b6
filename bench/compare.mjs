/**
 * `node bench/compare.mjs BASELINE`: this tree beside another build of the package, in one run, so a
 * change's effect is a ratio measured side by side rather than figures from two runs. BASELINE is a
 * package root with a built dist/ (and build/ or prebuilds/ for its addon), e.g. a copy of the tree
 * taken before the change. Rows: the batch probe of 1,000 mixed PIDs per backend, and whole
 * processes (`claude-ps count`, cold `require` / `import` + `liveRecords()`) beside bare `node`.
 * Needs `npm run build` first; builds its own fixture processes and ends them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildFixtures } from './lib/fixtures.mjs';
import { fmtRatio, fmtTime, table } from './lib/format.mjs';
import { asBackend } from './lib/instances.mjs';
import { inProcess, inProcessSpawning, interleaved, processTime } from './lib/measure.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const quick = process.argv.includes('--quick');
const baseline = process.argv.slice(2).find((a) => !a.startsWith('--'));
if (!baseline || !existsSync(join(baseline, 'dist/index.js'))) {
  console.error('usage: node bench/compare.mjs BASELINE [--quick]   (BASELINE: a package root with a built dist/)');
  process.exit(2);
}
const trees = [
  { label: 'before', root: resolve(baseline) },
  { label: 'after', root: resolve(here('..')) },
];

function compile(file, exe) {
  const out = here('./build/');
  mkdirSync(out, { recursive: true });
  execFileSync('cc', ['-O2', '-Wall', '-o', join(out, exe), here(`./c/${file}`)], { stdio: 'inherit' });
  return join(out, exe);
}

async function load(root, backend) {
  const url = `${pathToFileURL(join(root, 'dist/index.js')).href}?compare=${backend}`;
  const lib = await asBackend(backend, () => import(url))();
  const info = asBackend(backend, () => lib.backend())();
  if (info.name !== backend) throw new Error(`${root}: asked for ${backend}, got ${info.name} (${info.reason})`);
  return lib;
}

const bins = { holder: compile('holder.c', 'cps-holder'), run: compile('run.c', 'cps-run') };
const fixtures = await buildFixtures(bins.holder, [10, 1000]);
const scratch = mkdtempSync(join(tmpdir(), 'cps-compare-'));
try {
  const pids = fixtures.registries.get(1000).pids;
  const probes = [];
  for (const backend of ['native', 'js', 'ps']) {
    for (const tree of trees) {
      const lib = await load(tree.root, backend);
      const make = backend === 'ps' ? inProcessSpawning : inProcess;
      probes.push(make(`${backend} \`probe()\`, ${tree.label}`, () => lib.probe(pids), (f) => asBackend(backend, f)));
    }
  }
  const probeMedians = interleaved(probes, { rounds: quick ? 3 : 11 });

  const emptyModule = join(scratch, 'empty.mjs');
  writeFileSync(emptyModule, '');
  const dir = JSON.stringify(fixtures.registries.get(10).configDir);
  const rows = [
    { name: 'bare `node -e` printing a constant', args: ['-e', 'process.stdout.write("0\\n")'] },
    { name: 'bare `node -e` importing an empty ES module file', args: ['-e', `import(${JSON.stringify(emptyModule)}).then(() => 0)`] },
  ];
  for (const tree of trees) {
    const cjs = JSON.stringify(join(tree.root, 'dist/index.cjs'));
    const esm = JSON.stringify(pathToFileURL(join(tree.root, 'dist/index.js')).href);
    rows.push(
      { name: `\`claude-ps count\`, ${tree.label}`, args: [join(tree.root, 'dist/cli.cjs'), 'count', '--config-dir', JSON.parse(dir)] },
      { name: `cold \`require\` + \`liveRecords()\`, ${tree.label}`, args: ['-e', `require(${cjs}).liveRecords(${dir})`] },
      { name: `cold \`import\` + \`liveRecords()\`, ${tree.label}`, args: ['-e', `import(${esm}).then((m) => m.liveRecords(${dir}))`] },
    );
  }
  const env = { ...process.env };
  delete env.CLAUDE_PS_BACKEND;
  delete env.NODE_OPTIONS;
  // Node parses this CA file at every start (~80 ms of CPU where it is set, as in some sandboxes):
  // it would dilute every ratio to bare node, and a user's statusline seldom has it.
  delete env.NODE_EXTRA_CA_CERTS;
  const processes = rows.map((row) => ({
    name: row.name,
    run: () => processTime(bins.run, process.execPath, row.args, { env }),
  }));
  const processMedians = interleaved(processes, { rounds: quick ? 5 : 21, targetMs: 1, maxIterations: 1 });

  const bare = processMedians.get(rows[0].name);
  const esmBase = processMedians.get(rows[1].name);
  const pair = (medians, name) => medians.get(name.replace(/after$/, 'before'));
  console.log(`## Before and after, one run (${process.version}, CPU time, medians of interleaved rounds)\n`);
  console.log(
    table(
      ['probe, 1,000 mixed PIDs', 'time', 'after ÷ before'],
      probes.map(({ name }) => [name, fmtTime(probeMedians.get(name)), name.endsWith('after') ? fmtRatio(probeMedians.get(name), pair(probeMedians, name)) : '']),
    ),
  );
  console.log('');
  console.log(
    table(
      ['process, 10 records', 'time', 'vs bare node', 'vs empty-module import', 'after ÷ before'],
      rows.map(({ name }) => {
        const ns = processMedians.get(name);
        return [
          name,
          fmtTime(ns),
          fmtRatio(ns, bare),
          name.includes('import') ? fmtRatio(ns, esmBase) : '',
          name.endsWith('after') ? fmtRatio(ns, pair(processMedians, name)) : '',
        ];
      }),
    ),
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await fixtures.end();
}
