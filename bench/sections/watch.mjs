/**
 * Watch, measured side by side in one run:
 * - one idle poll (`watcher.poll()` with kernel notification off: re-probe every record, nothing changed
 *   on disk) for 1,000 live records, beside the probe-only cost of the same PIDs (`probe(pids)`);
 * - latency from SIGKILL to `died` (wall time, p50 / p99 over KILLS kills) with kernel notification
 *   and with the interval probe at its default interval, both watchers watching the same processes;
 * - CPU time of an idle watcher of 500 live sessions over IDLE_SECONDS, each in its own process started
 *   at the same moment: kernel notification, interval probe, and a watcher of an empty folder.
 *
 * `node bench/sections/watch.mjs` runs the last two alone (no fixtures; needs `npm run build`).
 * BENCH_QUICK=1 shortens them (fewer kills, 10 s idle).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtRatio, fmtTime, table, targetLine } from '../lib/format.mjs';
import { asBackend, loadBackend } from '../lib/instances.mjs';
import { inProcess, interleaved } from '../lib/measure.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/** `count` `sleep` processes of our own; end() kills them by PID and waits until each is reaped. */
async function spawnSleeps(count) {
  const children = [];
  for (let i = 0; i < count; i++) {
    const child = spawn('sleep', ['3600'], { stdio: 'ignore' });
    children.push({ child, pid: child.pid, exited: new Promise((r) => child.once('exit', r)) });
  }
  const end = async () => {
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
  };
  return { children, end };
}

function ticksOf(pid) {
  const line = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return line.slice(line.lastIndexOf(')') + 2).split(' ')[19];
}

/**
 * A registry of `pids`, each file (and the folder) dated a minute back: idle sessions wrote their
 * status a while ago. (Files written just before the start are racily clean, so the first rescan
 * re-reads them all: a start-up cost, measured apart.)
 */
function writeRegistry(root, name, pids, domain) {
  const configDir = join(root, name);
  const sessions = join(configDir, 'sessions');
  mkdirSync(sessions, { recursive: true });
  const then = new Date(Date.now() - 60_000);
  for (const pid of pids) {
    const doc = { pid, sessionId: `bench-${pid}`, procStart: ticksOf(pid), pidDomain: domain, cwd: '/tmp', kind: 'interactive', status: 'idle' };
    writeFileSync(join(sessions, `${pid}.json`), JSON.stringify(doc));
    utimesSync(join(sessions, `${pid}.json`), then, then);
  }
  utimesSync(sessions, then, then);
  return configDir;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function idlePollSection(libs, fixtures, quick) {
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
      // A long interval, no initial events, no kernel handles: only the polls this bench calls run, and they probe every record.
      const watcher = env(() => lib.watch(configDir, { interval: 3_600_000, initial: false, exitHandles: 0 }))();
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
      `### One idle poll (interval probe), ${pids.length.toLocaleString('en-US')} live records`,
      '',
      table(['operation', 'time', 'per record', 'vs probe only'], rows),
    ].join('\n');
    return { markdown, targets };
  } finally {
    for (const watcher of watchers) watcher.close();
  }
}

/** SIGKILL → `died`, for two watchers of the same registry: kernel handles, and the interval probe (default interval). */
async function latencySection(lib, root, quick) {
  const kills = quick ? 40 : 200;
  const spacing = Math.max(10, Math.round(5000 / kills));
  const procs = await spawnSleeps(kills);
  const configDir = writeRegistry(root, 'latency', procs.children.map((c) => c.pid), lib.snapshot().host.pidDomain);
  const killedAt = new Map();
  const latencies = { kernel: [], interval: [] };
  const watchers = {
    kernel: lib.watch(configDir, { initial: false }),
    interval: lib.watch(configDir, { initial: false, exitHandles: 0 }),
  };
  try {
    const held = watchers.kernel.exitWatch().kernel.length;
    if (held !== kills) throw new Error(`the kernel watches ${held} of ${kills} records (is the native backend serving?)`);
    for (const [mode, w] of Object.entries(watchers)) {
      w.on('died', (e) => {
        const t = killedAt.get(e.record.pid);
        if (t !== undefined) latencies[mode].push(Number(process.hrtime.bigint() - t));
      });
    }
    // Kills spread evenly over several intervals, so the interval probe meets them at every phase.
    for (const c of procs.children) {
      killedAt.set(c.pid, process.hrtime.bigint());
      c.child.kill('SIGKILL');
      await sleep(spacing);
    }
    const deadline = Date.now() + 5000;
    while ((latencies.kernel.length < kills || latencies.interval.length < kills) && Date.now() < deadline) await sleep(20);
  } finally {
    for (const w of Object.values(watchers)) w.close();
    await procs.end();
  }
  const rows = [];
  const stats = {};
  for (const [mode, label] of [
    ['kernel', 'kernel notification (pidfd, uv_poll)'],
    ['interval', 'interval probe, default 1,000 ms'],
  ]) {
    const sorted = latencies[mode].sort((a, b) => a - b);
    stats[mode] = { p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
    rows.push([label, String(sorted.length), fmtTime(stats[mode].p50), fmtTime(stats[mode].p99), fmtTime(sorted.at(-1))]);
  }
  const markdown = [
    `### SIGKILL → \`died\` (wall time, ${kills} kills, one every ${spacing} ms, both watchers on the same processes)`,
    '',
    table(['how exits are noticed', 'kills seen', 'p50', 'p99', 'max'], rows),
  ].join('\n');
  const targets = [
    targetLine(`watch, SIGKILL → died with kernel notification, p99 over ${stats.kernel.n} kills`, fmtTime(stats.kernel.p99), '≤ 50 ms', stats.kernel.p99 <= 50e6 && stats.kernel.n === kills),
  ];
  return { markdown, targets };
}

/** One idle watcher per process, all started together: CPU time over `seconds`, after a settling pause of 12 s. */
function idleChild(configDir, options, seconds) {
  const script = `
    import { watch } from ${JSON.stringify(DIST)};
    const s0 = process.cpuUsage();
    const w = watch(${JSON.stringify(configDir)}, ${JSON.stringify(options)});
    // Start-up (the first read, handles opened, V8 settling after it) is measured apart: idle is what
    // comes after.
    await new Promise((r) => setTimeout(r, 20000));
    const s = process.cpuUsage(s0);
    const c0 = process.cpuUsage();
    const buckets = []; // per 10 s: where in the window the time went
    for (let t = 0; t < ${seconds}; t += 10) {
      const b0 = process.cpuUsage();
      await new Promise((r) => setTimeout(r, Math.min(10, ${seconds} - t) * 1000));
      const b = process.cpuUsage(b0);
      buckets.push(Math.round((b.user + b.system) / 100) / 10);
    }
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ startupNs: (s.user + s.system) * 1000, cpuNs: (c.user + c.system) * 1000, buckets, records: w.records().length, kernel: w.exitWatch().kernel.length }));
    w.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CLAUDE_PS_BACKEND: 'native' } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`idle watcher exited ${code}`)))));
}

async function idleCpuSection(lib, root, quick) {
  const seconds = quick ? 10 : 60;
  const procs = await spawnSleeps(500);
  try {
    const domain = lib.snapshot().host.pidDomain;
    const full = writeRegistry(root, 'idle-500', procs.children.map((c) => c.pid), domain);
    const empty = writeRegistry(root, 'idle-empty', [], domain);
    const [kernel, interval, none] = await Promise.all([
      idleChild(full, {}, seconds),
      idleChild(full, { exitHandles: 0 }, seconds),
      idleChild(empty, {}, seconds),
    ]);
    console.error(`bench: idle CPU per 10 s (ms): kernel ${kernel.buckets.join(' ')} · interval ${interval.buckets.join(' ')} · empty ${none.buckets.join(' ')}`);
    if (kernel.kernel !== 500 || interval.kernel !== 0 || kernel.records !== 500) throw new Error(`unexpected idle watchers: ${JSON.stringify({ kernel, interval })}`);
    const row = (label, m) => [label, fmtTime(m.cpuNs), fmtRatio(m.cpuNs, none.cpuNs), fmtTime(m.startupNs)];
    const rows = [
      row('500 live sessions, kernel notification (default)', kernel),
      row('500 live sessions, interval probe (`exitHandles: 0`)', interval),
      row('an empty folder', none),
    ];
    const markdown = [
      `### An idle watcher over ${seconds} s (CPU time of the whole process, default interval and rescan, three processes side by side)`,
      '',
      table(['watcher', `CPU time over ${seconds} s idle`, 'vs empty folder', 'start-up (first 20 s)'], rows),
    ].join('\n');
    const targets = [
      targetLine(`watch, idle CPU of 500 live sessions vs an empty folder over ${seconds} s`, fmtRatio(kernel.cpuNs, none.cpuNs), '≤ 1.10x', kernel.cpuNs / none.cpuNs <= 1.1),
    ];
    return { markdown, targets };
  } finally {
    await procs.end();
  }
}

export async function watchSection({ libs, fixtures, quick, workDir }) {
  if (typeof libs.native.watch !== 'function') {
    return { markdown: '## Watch\n\nNot measured: this build of the library exports no `watch()`.', targets: [] };
  }
  const root = mkdtempSync(join(workDir ?? tmpdir(), 'watch-'));
  try {
    const parts = fixtures ? [idlePollSection(libs, fixtures, quick)] : [];
    // The native copy selected its backend at load: its watchers hold kernel handles.
    if (process.env.BENCH_WATCH_SKIP_LATENCY !== '1') parts.push(await latencySection(libs.native, root, quick));
    parts.push(await idleCpuSection(libs.native, root, quick));
    return {
      markdown: ['## Watch', '', ...parts.flatMap((p) => [p.markdown, ''])].join('\n').trimEnd(),
      targets: parts.flatMap((p) => p.targets),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.env.BENCH_QUICK === '1';
  const native = await loadBackend('native');
  const { markdown, targets } = await watchSection({ libs: { native }, fixtures: undefined, quick });
  console.log([markdown, '', ...targets].join('\n'));
}
