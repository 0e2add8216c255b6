/**
 * Runs the BUILT CLI (dist/cli.cjs, as shipped) as a child process. `npm test` builds first; when
 * dist/cli.cjs is missing or older than a source file (a developer editing), it is rebuilt once under
 * a lock, and each test file runs its own private copy so a concurrent rebuild cannot be read half-written.
 */
import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll } from 'vitest';

export const ROOT = resolve(import.meta.dirname, '..', '..');
const BUILT = join(ROOT, 'dist', 'cli.cjs');
export const SHIPPED = ['cli.cjs', 'cli-main.cjs', 'cli-count.cjs', 'cli-statusline.cjs', 'cli-extras.cjs', 'cli.cjs.map', 'cli-main.cjs.map', 'cli-count.cjs.map', 'cli-statusline.cjs.map', 'cli-extras.cjs.map'] as const;
// Private copies live under node_modules/.cache (git-ignored, never packed, three levels below the
// package root, where the addon loader and --version still find binding.gyp and package.json).
const CACHE = join(ROOT, 'node_modules', '.cache');
const LOCK = join(CACHE, 'claude-ps-cli-build.lock');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function isStale(): boolean {
  try {
    return statSync(BUILT).mtimeMs < newestSource(join(ROOT, 'lib'));
  } catch {
    return true;
  }
}

async function withLock(fn: () => void): Promise<void> {
  mkdirSync(CACHE, { recursive: true });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A lock older than a minute belongs to a run that died.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 60_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // gone meanwhile
      }
      if (Date.now() > deadline) throw new Error('timed out waiting for the CLI build lock');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Builds if needed and returns the path of this test file's private copy of dist/cli.cjs. */
export async function builtCli(): Promise<string> {
  const dir = join(CACHE, `claude-ps-cli-test-${process.pid}`);
  await withLock(() => {
    if (isStale()) {
      const r = spawnSync(process.execPath, ['scripts/bundle.mjs'], { cwd: ROOT, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`bundle failed: ${r.stderr}`);
    }
    mkdirSync(dir, { recursive: true });
    // The executable, the bundle it runs and their source maps.
    for (const file of SHIPPED) copyFileSync(join(ROOT, 'dist', file), join(dir, file));
  });
  return join(dir, 'cli.cjs');
}

/**
 * A copy of the built CLI outside any package (a temp folder): no binding.gyp above it, so the addon
 * cannot load there (CLAUDE_PS_BACKEND=native must fail) and the JS backend serves.
 */
export async function builtCliWithoutAddon(prefix: string): Promise<string> {
  // The same private copy builtCli() gives this test file: copied from, never removed here.
  const source = await builtCli();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const file of SHIPPED) copyFileSync(join(source, '..', file), join(dir, file));
  return join(dir, 'cli.cjs');
}

export function removeCopy(cli: string): void {
  rmSync(resolve(cli, '..'), { recursive: true, force: true });
}

export interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

let runtimeDir: string | undefined;

/**
 * An XDG_RUNTIME_DIR of this test file's own (made on first use, removed after its tests): the
 * default line-file folder (and ssh ControlPath folder) of every CLI it runs, so what a test sees
 * never depends on a watcher something else keeps in the shared `/tmp/claude-ps-<uid>`.
 */
function testRuntimeDir(): string {
  runtimeDir ??= mkdtempSync(join(tmpdir(), 'cps-xdg-'));
  return runtimeDir;
}

// Each test file imports this module afresh (vitest isolates files), so each removes its own folder;
// a fork's 'exit' event does not come when vitest ends the worker.
afterAll(() => {
  if (runtimeDir !== undefined) rmSync(runtimeDir, { recursive: true, force: true });
  runtimeDir = undefined;
});

/**
 * The environment the CLI runs in: ours, without colour or a config dir of the developer's, with a
 * runtime folder of this test process's own (unless `extra` names one), and without the statusline's
 * watcher autostart unless a test asks for it (it would outlive the test).
 */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { CLAUDE_PS_NO_AUTOSTART: '1', ...process.env, XDG_RUNTIME_DIR: testRuntimeDir(), ...extra };
  delete env.FORCE_COLOR;
  if (!('CLAUDE_CONFIG_DIR' in extra)) delete env.CLAUDE_CONFIG_DIR;
  return env;
}

export function runCli(cli: string, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Ran {
  const r = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    env: options.env ?? cliEnv(),
    input: options.input ?? '',
    timeout: 20_000,
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Starts the CLI without waiting (for watch, demo --wait, signals). */
export function startCli(cli: string, args: string[], options: SpawnOptions = {}) {
  return spawn(process.execPath, [cli, ...args], { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'], ...options });
}
