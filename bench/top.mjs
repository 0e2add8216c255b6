/**
 * `node bench/top.mjs` (after `npm run build`): how soon `top` shows its first screen and a change,
 * beside `claude-ps list` and `node -e` typed into the same private tmux pane, medians of 7 rounds
 * interleaved, so that the machine's load weighs on all three alike. Wall time through tmux (what a
 * person sees), over live `sleep`s of its own, each ended by PID at the end.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
const sessions = Number(process.argv[2] ?? 20);
const dir = mkdtempSync(join(tmpdir(), 'cps-bench-top-'));
mkdirSync(join(dir, 'sessions'));
const procs = [];
const write = (p, i, fields = {}) => {
  const stat = readFileSync(`/proc/${p.pid}/stat`, 'latin1');
  const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  const doc = { pid: p.pid, sessionId: `bench-${p.pid}`, cwd: `/w/p${i}`, status: 'idle', name: `s${i}`, procStart, statusUpdatedAt: Date.now(), ...fields };
  writeFileSync(join(dir, 'sessions', `${p.pid}.json`), JSON.stringify(doc));
};
for (let i = 0; i < sessions; i++) {
  const p = spawn('sleep', ['600'], { stdio: 'ignore' });
  procs.push(p);
  write(p, i);
}
const socket = `cps-bench-top-${process.pid}`;
const tmux = (...args) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' }).stdout ?? '';
const screen = () => tmux('capture-pane', '-p', '-t', 'b');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function timeUntil(start, ready) {
  const t0 = performance.now();
  start();
  while (!ready(screen())) await sleep(2);
  return performance.now() - t0;
}
try {
  tmux('new-session', '-d', '-s', 'b', '-x', '100', '-y', '40', `env PS1='$ ' sh`);
  tmux('set-option', '-g', 'status', 'off');
  const node = process.execPath;
  const runs = {
    'node -e': [`${node} -e 'console.log("DONE-NODE")'`, (s) => s.includes('\nDONE-NODE')],
    'claude-ps list': [`${node} ${cli} list --config-dir ${dir}; echo DONE-LIST`, (s) => s.includes('\nDONE-LIST')],
    'claude-ps top, first screen': [`${node} ${cli} top --config-dir ${dir}`, (s) => s.includes(`${sessions} sessions:`)],
  };
  const times = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
  const change = [];
  for (let round = 0; round < 7; round++) {
    for (const [name, [command, ready]] of Object.entries(runs)) {
      tmux('send-keys', '-t', 'b', 'clear', 'Enter');
      await sleep(300);
      times[name].push(await timeUntil(() => tmux('send-keys', '-t', 'b', command, 'Enter'), ready));
      if (name.startsWith('claude-ps top')) {
        await sleep(300);
        const i = round % sessions;
        change.push(await timeUntil(() => write(procs[i], i, { status: 'waiting', waitingFor: `bench ${round}` }), (s) => s.includes(`bench ${round}`)));
        write(procs[i], i);
        tmux('send-keys', '-t', 'b', 'q');
        await sleep(300);
      }
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const base = median(times['claude-ps list']);
  console.log(`| ${sessions} sessions, medians of 7 (wall, through tmux) | ms | ÷ list |\n|---|---|---|`);
  for (const [name, xs] of Object.entries(times)) console.log(`| ${name} | ${median(xs).toFixed(0)} | ${(median(xs) / base).toFixed(2)} |`);
  console.log(`| top: a status change written → drawn | ${median(change).toFixed(0)} | |`);
} finally {
  tmux('kill-server');
  for (const p of procs) p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
