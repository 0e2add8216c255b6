/**
 * Other hosts (docs/hosts.md): a warm `count --host` against a local `count`, the bare ssh round trip
 * it rides on, a cold read (no shared connection), and 2 and 4 hosts read in parallel against the
 * slowest single host measured in the same run. The hosts are real OpenSSH servers on 127.0.0.1,
 * each in its own PID namespace (the test harness, test/hosts/sshd.ts, bundled here by esbuild),
 * each with live sessions of its own. Wall time ranks these rows: a remote read is mostly waiting
 * for the other side. That side's CPU (sshd, the session's shells, the reader) is measured too, from
 * /proc: here the "remotes" share this machine's cores, so N hosts' readers compete with each other
 * and with us, which no real set of machines does.
 *
 * `node bench/sections/hosts.mjs` runs this section alone (after `npm run build`; root, sshd).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { fmtRatio, fmtTime, table, targetLine } from '../lib/format.mjs';
import { interleaved, processTime } from '../lib/measure.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist', 'cli.cjs');
const HOSTS = 4;
const CLOCK_TICK_NS = 1e9 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU used so far by a server's whole tree (it, its live children, and what they reaped), in ns. */
function treeCpuNs(rootPids) {
  const parent = new Map();
  const cpu = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let line;
    try {
      line = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // ended meanwhile: its time is in its parent's reaped-children fields
    }
    const f = line.slice(line.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(name), Number(f[1]));
    cpu.set(Number(name), Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
  }
  const roots = new Set(rootPids);
  let ticks = 0;
  for (const [pid, t] of cpu) {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) {
      if (roots.has(p)) {
        ticks += t;
        break;
      }
    }
  }
  return ticks * CLOCK_TICK_NS;
}
const SESSIONS_PER_HOST = 3;

async function loadHarness(workDir) {
  const outfile = join(workDir, 'sshd-harness.mjs');
  await build({ entryPoints: [join(root, 'test/hosts/sshd.ts')], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'warning' });
  return import(pathToFileURL(outfile).href);
}

export async function hostsSection({ bins, workDir, quick, localConfigDir }) {
  const harness = await loadHarness(workDir);
  const why = harness.sshdMissing();
  if (why) {
    return { markdown: `## Other hosts over ssh\n\nNot measured: ${why}.`, targets: [] };
  }
  const lab = await harness.makeLab();
  try {
    const hosts = [];
    for (let i = 0; i < HOSTS; i++) hosts.push(await lab.start(`bench-${i}`));
    for (const h of hosts) for (let k = 0; k < SESSIONS_PER_HOST; k++) harness.startRemoteSession(h, { status: 'busy' });
    const env = { ...lab.env, CLAUDE_CONFIG_DIR: localConfigDir };
    delete env.NODE_OPTIONS;
    // ControlPath=none, not only ControlMaster=no: with a socket named, ssh would still ride on the master.
    const cold = { ...env, CLAUDE_PS_SSH: `${env.CLAUDE_PS_SSH} -o ControlPath=none -o ControlMaster=no` };
    const names = hosts.map((h) => h.alias);
    const hostArgs = (n) => names.slice(0, n).flatMap((name) => ['--host', name]);
    const rows = [
      { key: 'local', name: '`claude-ps count` (this machine)', command: process.execPath, args: [cli, 'count'] },
      { key: 'ssh', name: '`ssh HOST true` over the shared connection (the floor)', command: 'ssh', args: ['-F', lab.sshConfig, '-o', 'ControlMaster=auto', '-o', `ControlPath=${lab.env.XDG_RUNTIME_DIR}/claude-ps-ssh/%C`, names[0], 'true'] },
      { key: 'warm1', name: '`claude-ps count --host A`, warm', command: process.execPath, args: [cli, 'count', ...hostArgs(1)] },
      { key: 'warm1b', name: '`claude-ps count --host B`, warm', command: process.execPath, args: [cli, 'count', '--host', names[1]] },
      { key: 'warm2', name: '`claude-ps count --host A --host B`, warm, in parallel', command: process.execPath, args: [cli, 'count', ...hostArgs(2)] },
      { key: 'warmN', name: `\`claude-ps count\` with ${HOSTS} hosts, warm, in parallel`, command: process.execPath, args: [cli, 'count', ...hostArgs(HOSTS)] },
      { key: 'cold1', name: '`claude-ps count --host HOST`, cold (ControlPath=none: a handshake each time)', command: process.execPath, args: [cli, 'count', ...hostArgs(1)], env: cold },
    ];
    // Warm every shared connection (and check that each row runs) before measuring.
    const check = spawnSync(process.execPath, [cli, 'count', '--json', ...hostArgs(HOSTS)], { env, encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`count --host failed: ${check.stdout}${check.stderr}`);
    const counted = JSON.parse(check.stdout).count;
    const servers = hosts.map((h) => h.serverPid());
    const remote = new Map(rows.map((r) => [r.key, { ns: 0, runs: 0 }]));
    const impls = rows.map((row) => ({
      name: row.name,
      run(iterations) {
        const total = { wall: 0, cpu: 0 };
        const spent = remote.get(row.key);
        for (let i = 0; i < iterations; i++) {
          const before = treeCpuNs(servers);
          const t = processTime(bins.run, row.command, row.args, { env: row.env ?? env, cwd: workDir });
          spent.ns += treeCpuNs(servers) - before;
          spent.runs += 1;
          total.wall += t.wall / iterations;
          total.cpu += t.cpu / iterations;
        }
        return total;
      },
    }));
    const medians = interleaved(impls, { rounds: quick ? 3 : 11, targetMs: 1, maxIterations: 1 });
    const wall = (key) => medians.wall.get(impls[rows.findIndex((r) => r.key === key)].name);
    const cpu = (key) => medians.get(impls[rows.findIndex((r) => r.key === key)].name);
    const remoteCpu = (key) => (key === 'local' ? undefined : remote.get(key).ns / remote.get(key).runs);
    const slowest = Math.max(wall('warm1'), wall('warm1b'));
    const markdown = [
      '## Other hosts over ssh',
      '',
      `${HOSTS} OpenSSH servers on 127.0.0.1, each in its own PID namespace with ${SESSIONS_PER_HOST} live sessions ` +
        `(${counted} counted over all); each row a fresh process through \`bench/c/run.c\`, medians of interleaved rounds. ` +
        'Wall time ranks: a remote read is mostly the wait for the other side, whose CPU is the last column.',
      '',
      table(
        ['one run', 'median wall time', 'wall vs local count', 'wall vs the slower single host', 'median CPU (this side)', 'mean CPU (the servers\' side)'],
        rows.map((r) => [
          r.name,
          fmtTime(wall(r.key)),
          fmtRatio(wall(r.key), wall('local')),
          fmtRatio(wall(r.key), slowest),
          fmtTime(cpu(r.key)),
          remoteCpu(r.key) === undefined ? '–' : fmtTime(remoteCpu(r.key)),
        ]),
      ),
      '',
      'The servers\' side is the CPU of every sshd tree (sshd, the session\'s shells, the reader and what it ran), ' +
        'from /proc in clock ticks, so one run reads to the tick (' + fmtTime(CLOCK_TICK_NS) + '); the mean is over every run of the row.',
    ].join('\n');
    const targets = [
      targetLine('2 warm hosts in parallel vs the slower of the two alone, same run (wall)', fmtRatio(wall('warm2'), slowest), '≤ 1.5x', wall('warm2') / slowest <= 1.5),
      targetLine('warm `count --host` vs its bare `ssh true` floor + a local count (wall)', fmtRatio(wall('warm1'), wall('ssh') + wall('local')), '≤ 1.5x', wall('warm1') <= 1.5 * (wall('ssh') + wall('local'))),
    ];
    return { markdown, targets };
  } finally {
    await lab.close();
  }
}

// Alone: its own run.c, an empty local registry, and the markdown on stdout.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const workDir = mkdtempSync(join(tmpdir(), 'claude-ps-bench-hosts-'));
  try {
    const run = join(workDir, 'cps-run');
    execFileSync('cc', ['-O2', '-Wall', '-o', run, join(root, 'bench/c/run.c')], { stdio: 'inherit' });
    const localConfigDir = join(workDir, 'local');
    mkdirSync(join(localConfigDir, 'sessions'), { recursive: true });
    writeFileSync(join(localConfigDir, 'sessions', '1.json'), JSON.stringify({ pid: 1, sessionId: 'init' }));
    const quick = process.argv.includes('--quick');
    const { markdown, targets } = await hostsSection({ bins: { run }, workDir, quick, localConfigDir });
    console.log([markdown, '', ...targets].join('\n'));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
