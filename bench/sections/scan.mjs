/** Full registry scan: liveRecords() per backend, a plain C reader and a straightforward Node reader. */
import { straightforwardLiveRecords } from '../lib/baselines.mjs';
import { fmtRatio, fmtTime, table, targetLine } from '../lib/format.mjs';
import { asBackend } from '../lib/instances.mjs';
import { cProgram, inProcess, interleaved } from '../lib/measure.mjs';

export const SCAN_NAMES = {
  c: 'C reader',
  native: 'native `liveRecords()`',
  js: 'JS `liveRecords()`',
  node: 'straightforward Node reader',
};

export function scanSection({ libs, fixtures, bins, quick }) {
  const sizes = [...fixtures.registries.keys()];
  const results = new Map();
  const problems = [];
  for (const n of sizes) {
    const { configDir, sessionsDir, expectedLive } = fixtures.registries.get(n);
    const expect = (name, count) => {
      if (count !== expectedLive) problems.push(`${name} found ${count} live records at N=${n}, expected ${expectedLive}`);
    };
    const impls = [
      cProgram(SCAN_NAMES.c, bins.scan, [sessionsDir], ([live]) => expect(SCAN_NAMES.c, live)),
      ...(typeof libs.native.liveRecords === 'function'
        ? [
            inProcess(SCAN_NAMES.native, () => libs.native.liveRecords(configDir), (f) => asBackend('native', f)),
            inProcess(SCAN_NAMES.js, () => libs.js.liveRecords(configDir), (f) => asBackend('js', f)),
          ]
        : []),
      inProcess(SCAN_NAMES.node, () => straightforwardLiveRecords(sessionsDir)),
    ];
    for (const impl of impls.slice(1)) expect(impl.name, impl.call().length);
    results.set(n, interleaved(impls, { rounds: quick ? 3 : n >= 10000 ? 5 : 9 }));
  }
  const get = (n, key) => results.get(n).get(SCAN_NAMES[key]);
  const rows = sizes.map((n) => [
    n.toLocaleString('en-US'),
    fmtTime(get(n, 'c')),
    fmtTime(get(n, 'native')),
    fmtTime(get(n, 'js')),
    fmtTime(get(n, 'node')),
    fmtTime(get(n, 'native') / n),
    fmtRatio(get(n, 'native'), get(n, 'c')),
    fmtRatio(get(n, 'js'), get(n, 'c')),
    fmtRatio(get(n, 'node'), get(n, 'native')),
  ]);
  const header = [
    'N records',
    SCAN_NAMES.c,
    SCAN_NAMES.native,
    SCAN_NAMES.js,
    SCAN_NAMES.node,
    'native per record',
    'native vs C',
    'JS vs C',
    'Node reader ÷ native',
  ];
  const ratio = (n, a, b) => get(n, a) / get(n, b);
  const targets = [
    targetLine('full scan, native vs C reader, N = 1,000', fmtRatio(get(1000, 'native'), get(1000, 'c')), '≤ 1.50x', ratio(1000, 'native', 'c') <= 1.5),
    targetLine('full scan, native vs C reader, N = 10', fmtRatio(get(10, 'native'), get(10, 'c')), '≤ 2.00x', ratio(10, 'native', 'c') <= 2),
    targetLine(
      'full scan, native speed-up over the straightforward Node reader, N = 1,000',
      fmtRatio(get(1000, 'node'), get(1000, 'native')),
      '≥ 3.00x',
      ratio(1000, 'node', 'native') >= 3,
    ),
  ];
  const markdown = [
    '## Full registry scan (`liveRecords()`, in process, warm page cache)',
    '',
    'Each registry: 20% live, 10% recycled, 1% zombie, the rest dead, plus N/10 junk files (keys, temp files, notes, `0123.json`). ' +
      'The C reader is `bench/c/scan.c`; the Node reader is `bench/lib/baselines.mjs`.',
    '',
    table(header, rows),
    ...(problems.length ? ['', `Disagreements: ${problems.join('; ')}`] : []),
  ].join('\n');
  const series = Object.entries(SCAN_NAMES)
    .filter(([key]) => get(sizes[0], key) !== undefined)
    .map(([key, name]) => ({ name, points: sizes.map((n) => [n, get(n, key)]) }));
  return { markdown, targets, series };
}
