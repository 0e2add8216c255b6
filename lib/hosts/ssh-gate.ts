/**
 * How many ssh children run at once, for the whole process: each holds three pipes here (and about
 * eight descriptors while it starts), so the number comes from the soft RLIMIT_NOFILE, after the
 * reserve the watcher also keeps for reading files (lib/registry/watch/exits.ts). Under `ulimit -n 64`
 * that is 4; the rest of a long host list waits its turn instead of failing with EMFILE.
 */
import { openFileLimit, type FileLimit } from '../backend/exits.js';
import { DESCRIPTOR_RESERVE } from '../registry/watch/exits.js';

/** With descriptors to spare, a bound all the same: on processes, and on one sshd that many aliases name. */
export const MAX_PARALLEL_SSH = 16;

/** Descriptors one starting ssh child may take here: three pipes, the spawn's own error pipe, slack. */
const DESCRIPTORS_PER_SSH = 8;

/** ssh children at once under `limit` (unknown or unlimited: MAX_PARALLEL_SSH), never fewer than one. */
export function parallelSshFor(limit: FileLimit | undefined): number {
  if (limit === undefined || !Number.isFinite(limit.soft)) return MAX_PARALLEL_SSH;
  return Math.max(1, Math.min(MAX_PARALLEL_SSH, Math.floor((limit.soft - DESCRIPTOR_RESERVE) / DESCRIPTORS_PER_SSH)));
}

export type Gate = <T>(task: () => Promise<T>) => Promise<T>;

/** Runs at most `max` tasks at once, the others in the order they came. */
export function limit(max: number): Gate {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

let shared: Gate | undefined;

/** The process's one gate for ssh children (descriptors are the process's, whoever reads). */
export function sshGate(): Gate {
  return (shared ??= limit(parallelSshFor(openFileLimit())));
}
