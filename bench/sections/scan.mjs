/** Full registry scan: liveRecords() per backend, a plain C reader and a straightforward Node reader. */
import { fileURLToPath } from 'node:url';
import { straightforwardLiveRecords } from '../lib/baselines.mjs';
import { ourPidDomain } from '../lib/fixtures.mjs';
import { tunedLiveRecords } from '../lib/peers.mjs';
import { fmtTime, table, targetLine } from '../lib/format.mjs';
import { asBackend } from '../lib/instances.mjs';
import { cProgram, inProcess, interleaved, medianRatio } from '../lib/measure.mjs';

export const SCAN_NAMES = {
  c: 'C reader',
  native: 'native `liveRecords()`',
  js: 'JS `liveRecords()`',
  node: 'straightforward Node reader',
  tuned: 'tuned pure-JS peer',
  python: 'Python stdlib peer',
};

const PYTHON_PEER = fileURLToPath(new URL('../py/scan.py', import.meta.url));

export function scanSection({ libs, fixtures, bins, quick }) {
  const sizes = [...fixtures.registries.keys()];
  const results = new Map();
  const problems = [];
  const domain = ourPidDomain();
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
      inProcess(SCAN_NAMES.tuned, () => tunedLiveRecords(sessionsDir, domain)),
      cProgram(SCAN_NAMES.python, 'python3', [PYTHON_PEER, sessionsDir, domain], ([live]) => expect(SCAN_NAMES.python, live)),
    ];
    for (const impl of impls) if (impl.call) expect(impl.name, impl.call().length);
    // N=10 is noisy under load: more rounds where they are cheap, every reader warmed for 300 ms first.
    const rounds = quick ? 3 : n >= 10000 ? 5 : n >= 1000 ? 9 : 21;
    results.set(n, interleaved(impls, { rounds, warmMs: quick ? 50 : 300 }));
  }
  const get = (n, key) => results.get(n).get(SCAN_NAMES[key]);
  // Every ratio is the median of per-round ratios (each round measures all readers back to back).
  const ratio = (n, a, b) => medianRatio(results.get(n), SCAN_NAMES[a], SCAN_NAMES[b]);
  const fmtR = (n, a, b) => {
    const r = ratio(n, a, b);
    return r === undefined ? 'n/a' : `${r.toFixed(2)}x`;
  };
  const rows = sizes.map((n) => [
    n.toLocaleString('en-US'),
    fmtTime(get(n, 'c')),
    fmtTime(get(n, 'native')),
    fmtTime(get(n, 'js')),
    fmtTime(get(n, 'node')),
    fmtTime(get(n, 'native') / n),
    fmtR(n, 'native', 'c'),
    fmtR(n, 'js', 'c'),
    fmtR(n, 'node', 'native'),
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
  const targets = [
    targetLine('full scan, native vs C reader, N = 10', fmtR(10, 'native', 'c'), '≤ 2.00x', ratio(10, 'native', 'c') <= 2),
    targetLine('full scan, native vs C reader, N = 1,000', fmtR(1000, 'native', 'c'), '≤ 1.50x', ratio(1000, 'native', 'c') <= 1.5),
    targetLine('full scan, native vs C reader, N = 10,000', fmtR(10000, 'native', 'c'), '≤ 1.50x', ratio(10000, 'native', 'c') <= 1.5),
    targetLine(
      'full scan, native speed-up over the straightforward Node reader, N = 1,000',
      fmtR(1000, 'node', 'native'),
      '≥ 3.00x',
      ratio(1000, 'node', 'native') >= 3,
    ),
  ];
  // The issue-24 table: every reader as a ratio to the C reader, one row per reader, one column per N.
  const peerRows = ['c', 'tuned', 'python', 'node', 'native', 'js']
    .filter((key) => get(sizes[0], key) !== undefined)
    .map((key) => [SCAN_NAMES[key], ...sizes.map((n) => fmtR(n, key, 'c'))]);
  const regressions = [];
  for (const n of sizes) {
    if (get(n, 'js') === undefined) continue;
    for (const peer of ['tuned', 'python']) {
      const met = ratio(n, 'js', peer) < 1;
      targets.push(
        targetLine(`full scan, JS backend ahead of the ${SCAN_NAMES[peer]}, N = ${n.toLocaleString('en-US')}`,
          `${fmtR(n, 'js', 'c')} vs ${fmtR(n, peer, 'c')}`, 'below', met),
      );
      // The regression check: the JS backend serves wherever no addon loads, so falling behind the
      // tuned pure-JS reader fails the bench.
      if (!met && peer === 'tuned') regressions.push(`JS backend behind the ${SCAN_NAMES[peer]} at N=${n}`);
    }
  }
  const markdown = [
    '## Full registry scan (`liveRecords()`, in process, warm page cache)',
    '',
    'Each registry: 20% live, 10% recycled, 1% zombie, the rest dead, plus N/10 junk files (keys, temp files, notes, `0123.json`). ' +
      'The C reader is `bench/c/scan.c`; the Node reader is `bench/lib/baselines.mjs`.',
    '',
    table(header, rows),
    '',
    'Ratios to the C reader (in process, every reader warmed for 300 ms, then the median of per-round ratios over interleaved rounds; the peers follow the rules in bench/README.md):',
    '',
    table(['reader', ...sizes.map((n) => `N=${n.toLocaleString('en-US')}`)], peerRows),
    ...(problems.length ? ['', `Disagreements: ${problems.join('; ')}`] : []),
  ].join('\n');
  const series = Object.entries(SCAN_NAMES)
    .filter(([key]) => get(sizes[0], key) !== undefined)
    .map(([key, name]) => ({ name, points: sizes.map((n) => [n, get(n, key)]) }));
  return { markdown, targets, series, regressions: [...regressions, ...problems] };
}
