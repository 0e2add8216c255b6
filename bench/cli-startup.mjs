/**
 * `node bench/cli-startup.mjs --baseline REV`: the CLI's start-up before and after a change, in one run.
 * Builds the CLI bundle of REV (a commit) from `git archive` in a temp folder, then times fresh
 * processes round by round, interleaved: bare `node -e 0`, and `count`, `summary`, `list` of REV and of
 * the current dist/ (`npm run build` first), on a registry of 10 records of its own (2 live sleeps it
 * starts and ends, one with a CJK name, and 8 dead claims). Both builds run from copies under
 * node_modules/.cache, where the addon loader finds the package root, each with its code cache warm.
 * Prints a markdown table (medians of CPU and wall time); removes everything it made. `--commands`
 * picks the rows (default count,summary,list), `--rounds` their number (default 31).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtRatio, fmtTime, machineLine, table } from './lib/format.mjs';
import { interleaved, processTime } from './lib/measure.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const baseline = arg('--baseline');
const rounds = Number(arg('--rounds') ?? 31);
const commands = (arg('--commands') ?? 'count,summary,list').split(',');
if (!baseline) throw new Error('usage: node bench/cli-startup.mjs --baseline REV [--rounds N] [--commands count,summary,list]');
if (!existsSync(join(root, 'dist', 'cli.cjs'))) throw new Error('dist/cli.cjs is missing: run `npm run build` first');
const FILES = ['cli.cjs', 'cli-main.cjs', 'lenient-zod.cjs'];

const made = [];
const sleeps = [];
function cleanUp() {
  for (const child of sleeps) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const path of made) rmSync(path, { recursive: true, force: true });
}
process.once('exit', cleanUp);

// The baseline build: REV's sources and scripts, this checkout's node_modules.
const source = mkdtempSync(join(tmpdir(), 'cps-bench-baseline-'));
made.push(source);
execFileSync('sh', ['-c', `git -C "${root}" archive "${baseline}" | tar -x -C "${source}"`], { stdio: 'inherit' });
symlinkSync(join(root, 'node_modules'), join(source, 'node_modules'));
execFileSync(process.execPath, ['scripts/bundle.mjs'], { cwd: source, stdio: 'inherit' });

const cache = join(root, 'node_modules', '.cache');
function install(name, fromDist) {
  const dir = join(cache, `claude-ps-bench-${name}-${process.pid}`);
  made.push(dir);
  mkdirSync(dir, { recursive: true });
  for (const file of FILES) cpSync(join(fromDist, file), join(dir, file));
  execFileSync(process.execPath, [join(dir, 'cli.cjs'), '--version'], { stdio: 'ignore' }); // code cache
  return join(dir, 'cli.cjs');
}
const clis = { [baseline]: install('baseline', join(source, 'dist')), current: install('current', join(root, 'dist')) };

// A registry of 10: two live sleeps (one named in CJK), eight claims of PIDs above any pid_max.
const configDir = mkdtempSync(join(tmpdir(), 'cps-bench-cli-'));
made.push(configDir);
mkdirSync(join(configDir, 'sessions'));
const startTicks = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1).split(' ')[19];
for (let i = 0; i < 2; i++) {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  sleeps.push(child);
  const name = i === 0 ? '日本語のセッション' : 'refactor-auth';
  const record = { pid: child.pid, sessionId: `bench-live-${i}`, procStart: startTicks(child.pid), kind: 'interactive', status: 'busy', name, cwd: '/home/me/src' };
  writeFileSync(join(configDir, 'sessions', `${child.pid}.json`), JSON.stringify(record));
}
for (let i = 0; i < 8; i++) {
  const pid = 5_000_000 + i;
  writeFileSync(join(configDir, 'sessions', `${pid}.json`), JSON.stringify({ pid, sessionId: `bench-dead-${i}`, procStart: '1', status: 'idle' }));
}

const runner = join(root, 'bench', 'build', 'cps-run');
mkdirSync(join(root, 'bench', 'build'), { recursive: true });
execFileSync('cc', ['-O2', '-Wall', '-o', runner, join(root, 'bench', 'c', 'run.c')], { stdio: 'inherit' });
const env = { ...process.env };
delete env.CLAUDE_PS_BACKEND;
delete env.NODE_OPTIONS;
// Node parses this CA file at every start (~80 ms of CPU where it is set, as in some sandboxes):
// it would dilute every ratio to bare node, and a user's statusline seldom has it.
delete env.NODE_EXTRA_CA_CERTS;
delete env.FORCE_COLOR;

// `node -e 0` is Node alone; printing through process.stdout (as bench/sections/process.mjs's bare row
// does) adds the stream machinery the CLI avoids, so both are shown.
const rows = [
  { name: 'bare `node -e 0`', args: ['-e', '0'] },
  { name: 'bare `node -e` printing a constant', args: ['-e', 'process.stdout.write("0\\n")'] },
];
for (const command of commands) {
  for (const [label, cli] of Object.entries(clis)) rows.push({ name: `\`claude-ps ${command}\` (${label})`, args: [cli, command, '--config-dir', configDir] });
}
const impls = rows.map((row) => ({
  name: row.name,
  run(iterations) {
    const total = { wall: 0, cpu: 0 };
    for (let i = 0; i < iterations; i++) {
      const t = processTime(runner, process.execPath, row.args, { env });
      total.wall += t.wall / iterations;
      total.cpu += t.cpu / iterations;
    }
    return total;
  },
}));
const medians = interleaved(impls, { rounds, targetMs: 1, maxIterations: 1 });
const bare = medians.get(rows[0].name);
const bareWall = medians.wall.get(rows[0].name);
console.log(machineLine());
console.log(`Medians of ${rounds} interleaved rounds, one fresh process per sample; baseline ${baseline}, current = dist/.\n`);
console.log(
  table(
    ['command (10 records)', 'CPU time', 'vs bare node', 'wall time', 'wall vs bare node'],
    rows.map((row) => [row.name, fmtTime(medians.get(row.name)), fmtRatio(medians.get(row.name), bare), fmtTime(medians.wall.get(row.name)), fmtRatio(medians.wall.get(row.name), bareWall)]),
  ),
);
