/**
 * Timing: every implementation is measured in the same run, in interleaved rounds (the order rotates
 * each round so none always runs first after another's cache effects), and the median round is kept.
 * An implementation is { name, run(iterations) → { wall, cpu } ns per operation }.
 *
 * Two clocks are taken for everything: wall time, and CPU time (user + system of this process, or of
 * the C program, or of the child process). On a shared machine a runnable process waits for a core,
 * and that wait lands in wall time unevenly (a fresh process and a long-running one are not
 * scheduled alike), so tables rank by the clock chosen with `setClock` (default CPU; `--wall`).
 */
import { spawnSync } from 'node:child_process';

let primary = 'cpu';

/** 'cpu' or 'wall': the clock medians and ratios are computed from. */
export function setClock(clock) {
  if (clock !== 'cpu' && clock !== 'wall') throw new Error(`unknown clock ${clock}`);
  primary = clock;
}

export function clockName() {
  return primary === 'cpu' ? 'CPU time (user + system)' : 'wall time';
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Wall and CPU ns per call of fn, averaged over `iterations` calls. */
export function timeLoop(fn, iterations) {
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  const wall = Number(process.hrtime.bigint() - start);
  const cpu = process.cpuUsage(cpu0);
  return { wall: wall / iterations, cpu: ((cpu.user + cpu.system) * 1e3) / iterations };
}

/**
 * An in-process implementation. `around`, when given, wraps each whole measurement (not each call),
 * e.g. to set the environment a library copy expects.
 */
export function inProcess(name, fn, around = (f) => f) {
  return { name, run: around((iterations) => timeLoop(fn, iterations)), call: around(fn) };
}

/**
 * An in-process implementation whose work happens partly in child processes (the `ps` backend): this
 * process's CPU time would miss the children's, so both clocks report wall time for it.
 */
export function inProcessSpawning(name, fn, around = (f) => f) {
  const run = around((iterations) => {
    const { wall } = timeLoop(fn, iterations);
    return { wall, cpu: wall };
  });
  return { name, run, call: around(fn) };
}

/**
 * A C baseline: a fresh process per round that times its own loop (after one untimed warm-up), so
 * its start-up is not counted. It prints "<wall ns> <cpu ns> rest…"; `check` receives the rest.
 */
export function cProgram(name, bin, args, check) {
  return {
    name,
    run(iterations) {
      const out = spawnSync(bin, [...args, String(iterations)], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`${bin} failed: ${out.stderr}`);
      const [wall, cpu, ...rest] = out.stdout.trim().split(' ').map(Number);
      check?.(rest);
      return { wall, cpu };
    },
  };
}

/**
 * Runs every implementation `rounds` times, interleaved; each measurement loops long enough to take
 * about `targetMs` (calibrated once per implementation). Returns Map<name, median ns per op> on the
 * primary clock, with `.samples` (every round, primary clock) and `.wall` (wall-time medians).
 */
export function interleaved(impls, { rounds, targetMs = 20, maxIterations = 2000, warmMs = 0 }) {
  const iterations = new Map();
  for (const impl of impls) {
    impl.run(1); // warm-up: JIT, page cache, dentries
    // `warmMs`: in-process code is first run for that long, so every reader is measured with its hot
    // paths compiled (a few hundred calls), as the C and Python readers time their loops after a warm-up.
    for (const until = Date.now() + warmMs; Date.now() < until; ) impl.run(1);
    const once = Math.max(impl.run(1).wall, 1);
    iterations.set(impl.name, Math.min(maxIterations, Math.max(1, Math.round((targetMs * 1e6) / once))));
  }
  const samples = new Map(impls.map((impl) => [impl.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < impls.length; k++) {
      const impl = impls[(k + r) % impls.length];
      samples.get(impl.name).push(impl.run(iterations.get(impl.name)));
    }
  }
  const pick = (clock) => new Map([...samples].map(([name, values]) => [name, median(values.map((v) => v[clock]))]));
  const medians = pick(primary);
  medians.samples = new Map([...samples].map(([name, values]) => [name, values.map((v) => v[primary])]));
  medians.wall = pick('wall');
  return medians;
}

/** One child process from spawn to exit, via bench/c/run.c: { wall, cpu } ns. */
export function processTime(runner, command, args, options) {
  const out = spawnSync(runner, [command, ...args], { encoding: 'utf8', ...options });
  if (out.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${out.status}: ${out.stderr}`);
  const [wall, cpu] = out.stdout.trim().split(' ').map(Number);
  return { wall, cpu };
}

/**
 * The median over rounds of a/b, each round's a divided by the same round's b (`medians.samples` of
 * interleaved): steadier than a ratio of medians when the machine's load changes between rounds.
 */
export function medianRatio(medians, a, b) {
  const xs = medians.samples.get(a);
  const ys = medians.samples.get(b);
  if (!xs || !ys) return undefined;
  return median(xs.map((x, r) => x / ys[r]));
}
