/**
 * Timing: every implementation is measured in the same run, in interleaved rounds (the order rotates
 * each round so none always runs first after another's cache effects), and the median round is kept.
 * An implementation is { name, run(iterations) → ns per operation }.
 */
import { spawnSync } from 'node:child_process';

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** ns per call of fn, averaged over `iterations` calls. */
export function timeLoop(fn, iterations) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / iterations;
}

/** An in-process implementation. */
export function inProcess(name, fn) {
  return { name, run: (iterations) => timeLoop(fn, iterations), call: fn };
}

/**
 * A C baseline: a fresh process per round that times its own loop (after one untimed warm-up), so
 * its start-up is not counted. `check` receives the rest of its output line.
 */
export function cProgram(name, bin, args, check) {
  return {
    name,
    run(iterations) {
      const out = spawnSync(bin, [...args, String(iterations)], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`${bin} failed: ${out.stderr}`);
      const [ns, ...rest] = out.stdout.trim().split(' ').map(Number);
      check?.(rest);
      return ns;
    },
  };
}

/**
 * Runs every implementation `rounds` times, interleaved; each measurement loops long enough to take
 * about `targetMs` (calibrated once per implementation). Returns Map<name, median ns per op>, with
 * `.samples` holding every round's value.
 */
export function interleaved(impls, { rounds, targetMs = 30, maxIterations = 2000 }) {
  const iterations = new Map();
  for (const impl of impls) {
    impl.run(1); // warm-up: JIT, page cache, dentries
    const once = Math.max(impl.run(1), 1);
    iterations.set(impl.name, Math.min(maxIterations, Math.max(1, Math.round((targetMs * 1e6) / once))));
  }
  const samples = new Map(impls.map((impl) => [impl.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < impls.length; k++) {
      const impl = impls[(k + r) % impls.length];
      samples.get(impl.name).push(impl.run(iterations.get(impl.name)));
    }
  }
  const medians = new Map([...samples].map(([name, values]) => [name, median(values)]));
  medians.samples = samples; // every round's value, for a best-of column
  return medians;
}

/** Wall time of one child process from spawn to exit, in ns. */
export function processTime(command, args, options) {
  const start = process.hrtime.bigint();
  const out = spawnSync(command, args, { encoding: 'utf8', ...options });
  const ns = Number(process.hrtime.bigint() - start);
  if (out.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${out.status}: ${out.stderr}`);
  return { ns, stdout: out.stdout };
}
