/** Shared by the watch and snapshot tests: throw-away registries with claims for our own processes. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ourPidDomain } from '../../../lib/registry/domain.js';
import { afterAll, afterEach } from 'vitest';
import { watch as libWatch, type Watcher } from '../../../lib/registry/watch/watch.js';
import { endAll } from '../../helpers/processes.js';
import type { WatchEvent } from '../../../lib/registry/watch/diff.js';
import { recordedTokenFor } from '../../helpers/tokens.js';

export interface TempRegistry {
  configDir: string;
  sessions: string;
  path(pid: number): string;
  /**
   * Writes `<pid>.json` in place (as Claude Code does: not atomic), with our domain and the PID's real
   * token in the form the registry's backend stands for (see tempRegistry).
   */
  write(pid: number, fields?: Record<string, unknown>): void;
  remove(): void;
}

/**
 * `backendName` picks the token form of the records: ticks for js/native (the default, what Linux's
 * Claude Code writes), lstart text for ps (what macOS's writes).
 */
export function tempRegistry(createSessions = true, backendName = 'native'): TempRegistry {
  const registry = makeTempRegistry(createSessions, backendName);
  opened.registries.add(registry);
  return registry;
}

function makeTempRegistry(createSessions: boolean, backendName: string): TempRegistry {
  const configDir = mkdtempSync(join(tmpdir(), 'cps-watch-'));
  const sessions = join(configDir, 'sessions');
  if (createSessions) mkdirSync(sessions, { mode: 0o700 });
  const path = (pid: number) => join(sessions, `${pid}.json`);
  return {
    configDir,
    sessions,
    path,
    write(pid, fields = {}) {
      const doc = {
        pid,
        sessionId: `session-${pid}`,
        procStart: recordedTokenFor(pid, backendName),
        pidDomain: ourPidDomain(),
        cwd: '/tmp',
        kind: 'interactive',
        status: 'idle',
        ...fields,
      };
      writeFileSync(path(pid), JSON.stringify(doc));
    },
    remove() {
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

const opened = { registries: new Set<TempRegistry>(), watchers: new Set<Watcher>() };

/** The library's watch(), remembered so that cleanUpEachTest() closes it. */
export function watch(...args: Parameters<typeof libWatch>): Watcher {
  const watcher = libWatch(...args);
  opened.watchers.add(watcher);
  return watcher;
}

/** Call once per test file: after each test, its watchers are closed and its registries removed; after all, its processes end. */
export function cleanUpEachTest(): void {
  afterEach(() => {
    for (const w of opened.watchers) w.close();
    for (const r of opened.registries) r.remove();
    opened.watchers.clear();
    opened.registries.clear();
  });
  afterAll(endAll);
}

export interface Collected {
  events: WatchEvent[];
  /** Resolves with the first event (from now on, or already collected after `from`) that matches. */
  next(match: (e: WatchEvent) => boolean, what: string, timeoutMs?: number): Promise<WatchEvent>;
  /** Resolves once no event has arrived for `quietMs`. */
  quiet(quietMs: number): Promise<void>;
}

export function collect(watcher: Watcher): Collected {
  const events: WatchEvent[] = [];
  let cursor = 0;
  let lastAt = Date.now();
  watcher.on('change', (e: WatchEvent) => {
    events.push(e);
    lastAt = Date.now();
  });
  return {
    events,
    async next(match, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (cursor < events.length) {
          const e = events[cursor++]!;
          if (match(e)) return e;
        }
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(events.map(brief))}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async quiet(quietMs) {
      lastAt = Math.max(lastAt, Date.now());
      while (Date.now() - lastAt < quietMs) await new Promise((r) => setTimeout(r, 10));
    },
  };
}

export function brief(e: WatchEvent): string {
  return `${e.type}:${e.record.pid}:${e.record.verdict}${'fields' in e ? `:${e.fields.join(',')}` : ''}`;
}

/**
 * Bundles `contents` (TypeScript importing from `./lib/...`) and runs it in a fresh Node with `args`.
 * Bundled under the package root (not /tmp) so that under CLAUDE_PS_BACKEND=native (which the child
 * inherits) it finds binding.gyp and loads the addon. Resolves with its exit code (-1: it had to be
 * killed after `timeoutMs`), stdout and stderr.
 */
/** A fresh folder under node_modules/.cache (inside the project, so a bundled script resolves its imports). */
export function cacheScratch(prefix: string): string {
  const cache = join(process.cwd(), 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true }); // a fresh `npm ci` has none
  return mkdtempSync(join(cache, prefix));
}

export async function runScript(
  contents: string,
  args: readonly string[],
  timeoutMs = 20_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { build } = await import('esbuild');
  const { spawn } = await import('node:child_process');
  const cacheDir = cacheScratch('cps-watch-script-');
  try {
    const script = join(cacheDir, 'child.mjs');
    await build({
      stdin: { contents, resolveDir: process.cwd(), loader: 'ts' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: script,
      external: ['node-gyp-build'],
      logLevel: 'silent',
    });
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(-1);
      }, timeoutMs);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    return { code, stdout, stderr };
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

/** The JSON text of a value nested `depth` levels deep (objects and arrays alternating), `leaf` innermost. */
export function deepText(depth: number, leaf = '1'): string {
  const pairs = Math.ceil(depth / 2);
  return '{"d":['.repeat(pairs) + leaf + ']}'.repeat(pairs);
}
