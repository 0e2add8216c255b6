/**
 * Watch: one idle poll (`watcher.poll()`: re-probe every record, nothing changed on disk) for 1,000
 * live records, beside the probe-only cost of the same PIDs (`probe(pids)`). The gap is what the
 * watcher adds on top of the system calls: verdicts, diffing, and no file I/O.
 */
import { fmtRatio, fmtTime, table, targetLine } from '../lib/format.mjs';
import { asBackend } from '../lib/instances.mjs';
import { inProcess, interleaved } from '../lib/measure.mjs';

export function watchSection({ libs, fixtures, quick }) {
  if (typeof libs.native.watch !== 'function') {
    return { markdown: '## Watch\n\nNot measured: this build of the library exports no `watch()`.', targets: [] };
  }
  const { configDir, pids } = fixtures.allLive;
  const watchers = [];
  try {
    const impls = [];
    for (const [label, name] of [
      ['native', 'native'],
      ['JS', 'js'],
    ]) {
      const lib = libs[name];
      const env = (f) => asBackend(name, f);
      // A long interval and no initial events: only the polls this bench calls run.
      const watcher = env(() => lib.watch(configDir, { interval: 3_600_000, initial: false }))();
      watchers.push(watcher);
      const live = watcher.records().filter((r) => r.live).length;
      if (live !== pids.length) throw new Error(`watch (${label}) sees ${live} live records, expected ${pids.length}`);
      impls.push(inProcess(`${label}: idle \`watcher.poll()\``, () => watcher.poll(), env));
      impls.push(inProcess(`${label}: \`probe(pids)\` only`, () => lib.probe(pids), env));
    }
    const medians = interleaved(impls, { rounds: quick ? 3 : 11 });
    const rows = [];
    const targets = [];
    for (let i = 0; i < impls.length; i += 2) {
      const poll = medians.get(impls[i].name);
      const probeOnly = medians.get(impls[i + 1].name);
      rows.push([impls[i].name, fmtTime(poll), fmtTime(poll / pids.length), fmtRatio(poll, probeOnly)]);
      rows.push([impls[i + 1].name, fmtTime(probeOnly), fmtTime(probeOnly / pids.length), '1.00x']);
      targets.push(
        targetLine(`watch, idle poll vs probe-only, ${impls[i].name.split(':')[0]}, ${pids.length.toLocaleString('en-US')} live records`, fmtRatio(poll, probeOnly), '≤ 1.10x', poll / probeOnly <= 1.1),
      );
    }
    const markdown = [
      `## Watch (one idle poll, ${pids.length.toLocaleString('en-US')} live records)`,
      '',
      table(['operation', 'time', 'per record', 'vs probe only'], rows),
    ].join('\n');
    return { markdown, targets };
  } finally {
    for (const watcher of watchers) watcher.close();
  }
}
