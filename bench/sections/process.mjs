/**
 * Whole process: what a statusline pays per render. Each row is a fresh `node` process, timed from
 * spawn to exit by this process; rows are interleaved round by round.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtRatio, fmtTime, table, targetLine } from '../lib/format.mjs';
import { clockName, interleaved, medianRatio, processTime } from '../lib/measure.mjs';

const dist = (file) => fileURLToPath(new URL(`../../dist/${file}`, import.meta.url));
const floorReader = fileURLToPath(new URL('../lib/floor-reader.cjs', import.meta.url));
const floorModule = new URL('../lib/floor-reader.mjs', import.meta.url).href;

export function processSection({ libs, fixtures, bins, quick }) {
  const hasRegistry = typeof libs.native.liveRecords === 'function';
  const env = { ...process.env };
  delete env.CLAUDE_PS_BACKEND;
  delete env.NODE_OPTIONS;
  // Node parses this CA file at every start (~80 ms of CPU where it is set, as in some sandboxes):
  // it would dilute every ratio to bare node, and a user's statusline seldom has it.
  delete env.NODE_EXTRA_CA_CERTS;
  const node = process.execPath;
  const emptyModule = join(mkdtempSync(join(tmpdir(), 'cps-bench-esm-')), 'empty.mjs');
  writeFileSync(emptyModule, '');
  // The CLI's per-user code cache (Node 20) in the bench's own folder, filled by the warm-up runs.
  env.XDG_CACHE_HOME = dirname(emptyModule);
  const cli = dist('cli.cjs');
  const esm = new URL('../../dist/index.js', import.meta.url).href;
  const cjs = dist('index.cjs');
  const rows = [
    { name: 'bare `node -e` printing a constant', n: '–', args: ['-e', 'process.stdout.write("0\\n")'] },
    // What Node's own ES module loader costs before any of our code runs (resolving, reading and
    // linking a module file): the fair base for `import`.
    {
      name: 'bare `node -e` importing an empty ES module file',
      n: '–',
      args: ['-e', `import(${JSON.stringify(emptyModule)}).then(() => process.stdout.write("0\\n"))`],
      key: 'esm-base',
    },
  ];
  const missing = [];
  for (const n of [10, 100]) {
    const { configDir } = fixtures.registries.get(n);
    // What any reader of this registry pays (bench/lib/floor-reader.cjs): the rows above it, less this, are ours.
    // It must count what claude-ps counts, or it is no floor of the same work.
    if (existsSync(cli)) {
      if (process.platform === 'linux') {
        const counted = (args) => spawnSync(node, args, { env, encoding: 'utf8' }).stdout.trim();
        const floor = counted([floorReader, configDir]);
        const ours = counted([cli, 'count', '--config-dir', configDir]);
        if (floor === ours) rows.push({ name: 'floor: a hand-written reader with none of the rules', n, args: [floorReader, configDir], key: 'floor' });
        else missing.push(`no floor row at ${n} records: bench/lib/floor-reader.cjs counted ${floor || 'nothing'}, claude-ps count ${ours || 'nothing'}`);
      }
      rows.push({ name: '`claude-ps count`', n, args: [cli, 'count', '--config-dir', configDir], key: 'count' });
      rows.push({ name: '`claude-ps summary`', n, args: [cli, 'summary', '--config-dir', configDir] });
    }
    const dir = JSON.stringify(configDir);
    if (!hasRegistry) continue;
    // The floor of the import rows: the same rules-free reader, imported cold as claude-ps is. It must
    // count what the import row's liveRecords() counts (the very command, run once), or it is no floor
    // of the same work.
    const importArgs = ['-e', `import(${JSON.stringify(esm)}).then((m) => process.stdout.write(m.liveRecords(${dir}).length + "\\n"))`];
    const esmFloorArgs = ['-e', `import(${JSON.stringify(floorModule)}).then((m) => process.stdout.write(m.countLive(${dir}) + "\\n"))`];
    if (process.platform === 'linux') {
      const floor = spawnSync(node, esmFloorArgs, { env, encoding: 'utf8' }).stdout.trim();
      const ours = spawnSync(node, importArgs, { env, encoding: 'utf8' }).stdout.trim();
      if (floor !== '' && floor === ours) rows.push({ name: 'floor: the same reader imported as an ES module', n, args: esmFloorArgs, key: 'esm-floor' });
      else missing.push(`no ES module floor row at ${n} records: bench/lib/floor-reader.mjs counted ${floor || 'nothing'}, the import's liveRecords() ${ours || 'nothing'}`);
    } else missing.push(`no ES module floor row at ${n} records: bench/lib/floor-reader.mjs reads /proc (Linux only)`);
    rows.push({ name: 'cold `import` + `liveRecords()` (ESM)', n, args: importArgs, key: 'import' });
    rows.push({
      name: 'cold `require` + `liveRecords()` (CJS)',
      n,
      args: ['-e', `process.stdout.write(require(${JSON.stringify(cjs)}).liveRecords(${dir}).length + "\\n")`],
    });
  }
  if (!hasRegistry) missing.push('the library has no liveRecords() yet: no import rows');
  if (!existsSync(cli)) missing.push('dist/cli.cjs is not built yet: no `claude-ps` rows');
  const impls = rows.map((row) => ({
    name: `${row.name} @${row.n}`,
    run(iterations) {
      const total = { wall: 0, cpu: 0 };
      for (let i = 0; i < iterations; i++) {
        const t = processTime(bins.run, node, row.args, { env });
        total.wall += t.wall / iterations;
        total.cpu += t.cpu / iterations;
      }
      return total;
    },
  }));
  const medians = interleaved(impls, { rounds: quick ? 5 : 41, targetMs: 1, maxIterations: 1 });
  // Ratios are medians of per-round ratios (each row over bare node in the same round), as in the scan
  // section: this machine's cost of a process start drifts between rounds by more than the goals' 10 %.
  const ratio = (i, base = 0) => medianRatio(medians, impls[i].name, impls[base].name);
  const fmtPerRound = (r) => `${r.toFixed(2)}x`;
  const bare = medians.get(impls[0].name);
  const table_ = table(
    ['command', 'records', `median ${clockName()}`, 'vs bare node, per round', 'added', 'median wall time', 'wall vs bare node'],
    rows.map((row, i) => {
      const ns = medians.get(impls[i].name);
      const wall = medians.wall.get(impls[i].name);
      return [
        row.name,
        String(row.n),
        fmtTime(ns),
        fmtPerRound(ratio(i)),
        i === 0 ? '–' : fmtTime(ns - bare),
        fmtTime(wall),
        fmtRatio(wall, medians.wall.get(impls[0].name)),
      ];
    }),
  );
  const targets = [];
  const esmBaseIndex = rows.findIndex((row) => row.key === 'esm-base');
  rows.forEach((row, i) => {
    if (!row.key || row.key === 'esm-base' || row.key === 'floor' || row.key === 'esm-floor') return;
    if (row.key === 'import') {
      const r = ratio(i, esmBaseIndex);
      targets.push(targetLine(`cold import + first \`liveRecords()\` vs bare node importing an empty ES module file, ${row.n} records`, fmtPerRound(r), '≤ 1.10x', r <= 1.1));
    }
    const label = row.key === 'count' ? '`claude-ps count`' : 'cold import + first `liveRecords()`';
    targets.push(targetLine(`${label} vs bare node, ${row.n} records`, fmtPerRound(ratio(i)), '≤ 1.10x', ratio(i) <= 1.1));
  });
  rmSync(dirname(emptyModule), { recursive: true, force: true });
  // How much of a ≤ 1.10x goal the floor leaves: the rest is what loading and running our code may cost.
  const at = (key, n) => {
    const i = rows.findIndex((row) => row.key === key && row.n === n);
    return i < 0 ? undefined : medians.get(impls[i].name);
  };
  const headroom = [10, 100].flatMap((n) => {
    const floor = at('floor', n);
    const count = at('count', n);
    if (floor === undefined || count === undefined) return [];
    return [
      `${n} records: the floor adds ${fmtTime(floor - bare)} (${fmtRatio(floor, bare)}) to bare node, so a ≤ 1.10x goal leaves ` +
        `${fmtTime(Math.max(0, 1.1 * bare - floor))} for loading and running claude-ps; \`claude-ps count\` takes ${fmtTime(count - floor)} beyond the floor.`,
    ];
  });
  // The same for the import rows, against the empty module's import (their goal's base), per round.
  const esmBase = esmBaseIndex < 0 ? undefined : medians.get(impls[esmBaseIndex].name);
  const importHeadroom = [10, 100].flatMap((n) => {
    const floorAt = rows.findIndex((row) => row.key === 'esm-floor' && row.n === n);
    const importAt = rows.findIndex((row) => row.key === 'import' && row.n === n);
    if (esmBase === undefined || floorAt < 0 || importAt < 0) return [];
    const floor = medians.get(impls[floorAt].name);
    const imported = medians.get(impls[importAt].name);
    const floorRatio = ratio(floorAt, esmBaseIndex);
    const left = floorRatio > 1.1 ? 'over a ≤ 1.10x goal by itself' : `so a ≤ 1.10x goal leaves ${fmtTime(Math.max(0, 1.1 * esmBase - floor))} for loading and running claude-ps`;
    const beyond = imported >= floor ? `${fmtTime(imported - floor)} more than` : `${fmtTime(floor - imported)} less than`;
    return [
      `${n} records imported: the floor adds ${fmtTime(floor - esmBase)} (${fmtPerRound(floorRatio)} per round) to the empty module's import, ${left}; ` +
        `the import and first \`liveRecords()\` of claude-ps take ${beyond} the floor (${fmtPerRound(ratio(importAt, floorAt))} per round).`,
    ];
  });
  const markdown = [
    '## Whole process (a statusline render: start Node, load, scan, print, exit)',
    '',
    `Each row spawns \`node\` ${process.version} afresh (default backend) through \`bench/c/run.c\`, which reports the ` +
      'child\'s wall time from fork to exit and its CPU time (all its threads); medians of interleaved rounds, and ratios as the median of each round\'s ratio to bare node in the same round.',
    '',
    table_,
    ...(headroom.length ? ['', 'The floor row is bench/lib/floor-reader.cjs: the same registry read with none of the rules (no listing proof, no safe open, no schema, no pidDomain), its count written with fs.writeSync. ' + headroom.join(' ')] : []),
    ...(importHeadroom.length
      ? ['', 'The ES module floor row is bench/lib/floor-reader.mjs, that reader imported cold as the import rows import claude-ps (its node:fs from process.getBuiltinModule, as the library takes its own). ' + importHeadroom.join(' ')]
      : []),
    ...(missing.length ? ['', missing.join('; ')] : []),
  ].join('\n');
  return { markdown, targets };
}
