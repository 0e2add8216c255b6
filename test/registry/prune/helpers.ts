/**
 * What the prune suites share: a suite's backend, live sleep and fresh registry per test; child
 * programs bundled from the TypeScript sources; PIDs no process has; numbers in control files.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, type RegistryFixture } from '../../helpers/registry-fixture.js';

export interface SuiteState {
  /** A live `sleep` of the suite's own, for the whole suite. */
  sleep: Spawned;
  /** A fresh registry per test, removed after it. */
  reg: RegistryFixture;
}

/** Inside a describe: backend `name`, one live sleep, and a fresh registry for each test. */
export function suiteWithSleepAndRegistry(name: string): SuiteState {
  selectBackendForSuite(name);
  const state = {} as SuiteState;
  beforeAll(() => {
    state.sleep = spawnSleep();
  });
  beforeEach(() => {
    state.reg = makeRegistry();
  });
  afterEach(() => state.reg?.remove());
  afterAll(async () => {
    await state.sleep?.end();
    await endAll();
  });
  return state;
}

/**
 * Bundles a child program (ESM, importing `./lib/...` TypeScript) under the package root, where the
 * child finds binding.gyp and can load the addon. Returns its path; remove `dirname` afterwards.
 */
export async function bundleChild(dir: string, contents: string, minify = false): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'child.mjs');
  await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    // A minified bundle without zod starts faster: for children started hundreds of times that only
    // ever read well-typed records (the lenient schema is then never needed).
    ...(minify ? { minify: true, define: { __CLAUDE_PS_BUNDLED__: 'true' } } : {}),
    platform: 'node',
    format: 'esm',
    outfile,
    external: ['node-gyp-build'],
    logLevel: 'silent',
  });
  return outfile;
}

/** PIDs no process has now (ESRCH), well above the PIDs in use. */
export function freePids(count: number): number[] {
  const out: number[] = [];
  for (let pid = 3_000_000 + Math.floor(Math.random() * 500_000); out.length < count; pid += 7) {
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') out.push(pid);
    }
  }
  return out;
}

/** The number in a control file (0 when missing or not a number). */
export function readNumber(path: string): number {
  try {
    return Number(readFileSync(path, 'utf8')) || 0;
  } catch {
    return 0;
  }
}

export interface StressDir {
  configDir: string;
  sessions: string;
  remove(): void;
}

/** A config dir on tmpfs when there is one: thousands of renames and unlinks on a loaded disk are slow. */
export function stressDir(prefix = 'claude-ps-prune-stress-'): StressDir {
  const configDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), prefix));
  const sessions = join(configDir, 'sessions');
  mkdirSync(sessions, { mode: 0o700 });
  return { configDir, sessions, remove: () => rmSync(configDir, { recursive: true, force: true }) };
}
