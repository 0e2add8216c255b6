/**
 * The statusline with no setup (docs/statusline.md, "The watcher starts itself"): the README snippet
 * as Claude Code runs it, in its own runtime folder. First, renders that find no watcher (each starts
 * one; the watcher is then ended, by the PID it wrote, before the next round) beside bare `node -e 0`;
 * then N renders with the watcher running, beside `cat` of a file and bare `node -e 0`, interleaved,
 * as p50 and p99 of each clock.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmtRatio, fmtTime, table, targetLine } from '../lib/format.mjs';
import { clockName, median, processTime } from '../lib/measure.mjs';

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Ends the watcher a render of this bench autostarted in `linesDir` (a folder of the bench's own), by the
 * PID it wrote to `.watcher` there, and only while that PID still has the start token written beside it
 * (`tokenOf`: the library's processStartToken); then waits up to 10 s for it to remove `.watcher` and any
 * of `alsoGone`.
 */
export function endAutostartedWatcher(linesDir, tokenOf, alsoGone = []) {
  let w;
  try {
    w = JSON.parse(readFileSync(join(linesDir, '.watcher'), 'utf8'));
  } catch {
    // none started, or gone
  }
  if (w && Number.isSafeInteger(w.pid) && w.pid > 0 && tokenOf(w.pid) === w.token) {
    try {
      process.kill(w.pid, 'SIGTERM'); // the watcher this bench's own render started
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && [join(linesDir, '.watcher'), ...alsoGone].some((f) => existsSync(f))) sleep(20);
}

export function watcherRows({ bins, workDir, quick, env, selfPid, snippetCommand, stdin, tokenOf }) {
  const runtime = mkdtempSync(join(workDir, 'runtime-'));
  const lines = join(runtime, 'claude-ps');
  const wenv = { ...env, XDG_RUNTIME_DIR: runtime, CLAUDE_PS_NO_AUTOSTART: '' };
  const cpuOrWall = clockName().startsWith('CPU') ? 'cpu' : 'wall';
  const run = (command, args) => processTime(bins.run, command, args, { env: wenv, input: stdin, cwd: workDir });
  const snippet = () => run('/bin/sh', ['-c', snippetCommand]);
  const bare = () => run(process.execPath, ['-e', '0']);
  const stopWatcher = () => endAutostartedWatcher(lines, tokenOf, [join(lines, String(selfPid))]);
  const waitForLine = () => {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && !existsSync(join(lines, String(selfPid)))) sleep(20);
    if (!existsSync(join(lines, String(selfPid)))) throw new Error('statusline bench: the autostarted watcher wrote no line file');
  };
  const file = join(workDir, 'a-line');
  writeFileSync(file, '⏳ api-3f (permission prompt) · 2 busy\n');
  const first = { snippet: [], bare: [] };
  const steady = { snippet: [], cat: [], bare: [] };
  const firstRounds = quick ? 3 : 9;
  const renders = quick ? 50 : 200;
  try {
    for (let i = 0; i < firstRounds; i++) {
      stopWatcher();
      try {
        unlinkSync(join(lines, '.autostart')); // as if the last start was long ago
      } catch {
        // none yet
      }
      first.bare.push(bare());
      first.snippet.push(snippet());
      waitForLine();
    }
    for (let i = 0; i < renders; i++) {
      steady.snippet.push(snippet());
      steady.cat.push(run('/bin/sh', ['-c', `cat ${file}`]));
      steady.bare.push(bare());
    }
  } finally {
    stopWatcher();
    rmSync(runtime, { recursive: true, force: true });
  }
  const pick = (samples, clock) => samples.map((s) => s[clock]);
  const firstMedian = median(pick(first.snippet, cpuOrWall));
  const firstBare = median(pick(first.bare, cpuOrWall));
  const rows = [
    [`the snippet, first render (no watcher: \`claude-ps statusline\`, which starts one), ${firstRounds} rounds`, first.snippet, first.bare],
    [`the snippet with the watcher running (the line file), ${renders} renders`, steady.snippet, steady.bare],
    [`\`sh -c 'cat FILE'\`, ${renders} runs`, steady.cat, steady.bare],
    [`bare \`node -e 0\`, ${renders} runs`, steady.bare, steady.bare],
  ];
  const markdown = [
    '### The snippet with no setup: the watcher starts itself',
    '',
    'The README snippet in its own `$XDG_RUNTIME_DIR`; the first render finds no watcher and starts one (the watcher is ended before each such round); then renders with it running, interleaved with `cat` and bare node.',
    '',
    table(
      ['renders', 'p50 CPU', 'p99 CPU', 'p50 wall', 'p99 wall', `p50 vs bare node (${cpuOrWall === 'cpu' ? 'CPU' : 'wall'})`],
      rows.map(([name, samples, base]) => [
        name,
        fmtTime(percentile(pick(samples, 'cpu'), 50)),
        fmtTime(percentile(pick(samples, 'cpu'), 99)),
        fmtTime(percentile(pick(samples, 'wall'), 50)),
        fmtTime(percentile(pick(samples, 'wall'), 99)),
        fmtRatio(percentile(pick(samples, cpuOrWall), 50), percentile(pick(base, cpuOrWall), 50)),
      ]),
    ),
  ].join('\n');
  const p99 = percentile(pick(steady.snippet, cpuOrWall), 99);
  const targets = [
    targetLine(`the snippet with the watcher running, p99 of ${renders}, ${clockName()}`, fmtTime(p99), '≤ 5 ms', p99 <= 5e6),
    targetLine('the first render (starts the watcher) vs bare `node -e 0`, medians', fmtRatio(firstMedian, firstBare), '≤ 1.2x', firstMedian / firstBare <= 1.2),
  ];
  return { markdown, targets };
}
