/**
 * `node bench/line-files.mjs [ROOT ...] [--sessions 1500] [--rounds 15]`: what one change costs a
 * `watch --statusline-dir` watcher with many live sessions. For each ROOT (a checkout of this repository,
 * default this one) its lib/cli/statusline/line-files.ts is bundled and run in this process on the same
 * synthetic records: one flush after a session's name changed (only its own line changes) and one after
 * a session started waiting (every other line changes), CPU per flush, interleaved, medians.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildSync } from 'esbuild';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { sessions: { type: 'string', default: '1500' }, rounds: { type: 'string', default: '15' } },
});
const roots = positionals.length ? positionals.map((p) => resolve(p)) : [fileURLToPath(new URL('..', import.meta.url))];
const n = Number(values.sessions);
const scratch = mkdtempSync(join(tmpdir(), 'cps-bench-lines-'));

function record(pid, status, name) {
  return Object.freeze({
    path: join(scratch, `${pid}.json`), pid, sessionId: `s-${pid}`, token: '1', pidDomain: undefined, kind: 'interactive',
    interactive: true, verdict: 'alive', live: true, cwd: `/home/dev/p${pid % 37}`, name, status,
    statusUpdatedAt: pid, raw: {},
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const cpuMs = (fn) => {
  const c = process.cpuUsage();
  fn();
  const d = process.cpuUsage(c);
  return (d.user + d.system) / 1000;
};

const subjects = [];
for (const [i, root] of roots.entries()) {
  const out = join(scratch, `line-files-${i}.mjs`);
  buildSync({ entryPoints: [join(root, 'lib/cli/statusline/line-files.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'error', external: ['*.node'], nodePaths: [fileURLToPath(new URL('../node_modules', import.meta.url))] });
  const { LineFiles } = await import(out);
  const { parseStatuslineTemplate, DEFAULT_FORMAT } = await import(buildTemplate(root, i));
  const dir = join(scratch, `lines-${i}`);
  const lines = new LineFiles(dir, parseStatuslineTemplate(DEFAULT_FORMAT));
  subjects.push({ root, lines, name: [], wait: [] });
}

function buildTemplate(root, i) {
  const out = join(scratch, `template-${i}.mjs`);
  buildSync({ entryPoints: [join(root, 'lib/cli/statusline/template.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'error', nodePaths: [fileURLToPath(new URL('../node_modules', import.meta.url))] });
  return out;
}

try {
  const base = Array.from({ length: n }, (_, k) => record(1000 + k, k % 3 ? 'busy' : 'idle', `task ${k}`));
  for (const s of subjects) s.lines.update(base, new Set(base.map((r) => r.pid)));
  for (let round = 0; round < Number(values.rounds); round++) {
    const k = (round * 7919) % n;
    const renamed = base.slice();
    renamed[k] = record(base[k].pid, base[k].status, `renamed ${round}`);
    const waiting = base.slice();
    waiting[k] = record(base[k].pid, 'waiting', base[k].name);
    for (const s of round % 2 ? [...subjects].reverse() : subjects) {
      s.name.push(cpuMs(() => s.lines.update(renamed, new Set([base[k].pid]))));
      s.lines.update(base, new Set([base[k].pid]));
      s.wait.push(cpuMs(() => s.lines.update(waiting, new Set([base[k].pid]))));
      s.lines.update(base, new Set([base[k].pid]));
    }
  }
  console.log(`| checkout | one name changed (1 line rewritten) | one session starts waiting (${n} lines) |`);
  console.log('|---|---:|---:|');
  for (const s of subjects) console.log(`| ${s.root} | ${median(s.name).toFixed(1)} ms | ${median(s.wait).toFixed(1)} ms |`);
  console.log(`\n${n} live sessions, CPU per flush (user + system), medians of ${values.rounds} interleaved rounds.`);
} finally {
  for (const s of subjects) s.lines.close();
  rmSync(scratch, { recursive: true, force: true });
}
