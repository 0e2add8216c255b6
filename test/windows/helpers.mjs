// Helpers for the Windows suite (run under node.exe by scripts/test-windows.mjs): node.exe children
// this process starts and ends itself, throw-away config dirs, the CLI bundle run by node.exe.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { probe } from '../../dist/index.js';

export const root = join(import.meta.dirname, '..', '..');
export const cli = join(root, 'dist', 'cli.cjs');
export const ourDomain = `win32:${hostname().toLowerCase()}`;
// .NET's DateTime ticks count from year 1, a FILETIME from 1601: the one constant between them.
export const DOTNET_OFFSET = 504911232000000000n;

/** The win32 prebuild itself, as the package's loader loads it (same file: same module instance). */
export function addon() {
  return createRequire(import.meta.url)(join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'claude-ps.node'));
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `fn` until it returns a truthy value or `ms` pass; returns the last value. */
export async function until(fn, ms = 10_000, step = 20) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value || Date.now() > end) return value;
    await sleep(step);
  }
}

const children = new Set();

/** A node.exe child that stays until ended: its PID and token, once the probe sees it alive. */
export async function startChild() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore', windowsHide: true });
  children.add(child);
  await new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const seen = await until(() => probe([child.pid])[0].state === 'alive');
  if (!seen) throw new Error(`child ${child.pid} never probed alive`);
  return { child, pid: child.pid, token: probe([child.pid])[0].token };
}

/** Ends a child this process started, and waits for its exit event. */
export async function endChild(child) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill();
    await exited;
  }
  children.delete(child);
}

export async function endAll() {
  await Promise.all([...children].map(endChild));
}

/** A PID no process has had here for a while: a child's, after it ended and every handle on it closed. */
export async function deadPid() {
  const { child, pid } = await startChild();
  await endChild(child);
  const gone = await until(() => probe([pid])[0].state === 'gone');
  if (!gone) throw new Error(`the PID of ended child ${pid} never read gone`);
  return pid;
}

export function makeRegistry() {
  const configDir = mkdtempSync(join(tmpdir(), 'cps-win-'));
  const sessions = join(configDir, 'sessions');
  mkdirSync(sessions);
  return {
    configDir,
    sessions,
    write(pid, fields = {}, name = `${pid}.json`) {
      const path = join(sessions, name);
      writeFileSync(path, JSON.stringify(record(pid, fields)));
      return path;
    },
    remove() {
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** What Claude Code 2.1.332 writes on Windows: procStartFt, no procStart, a win32 pidDomain. */
export function record(pid, fields = {}) {
  counter += 1;
  return {
    pid,
    sessionId: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    cwd: 'C:\\Users\\dev\\project',
    startedAt: Date.now(),
    version: '2.1.332',
    kind: 'interactive',
    entrypoint: 'cli',
    status: 'idle',
    pidDomain: ourDomain,
    ...fields,
  };
}

/** The CLI bundle under node.exe, through Windows pipes (node.exe to node.exe pipes work under Wine). */
export function runCli(args, env = {}) {
  const r = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    windowsHide: true,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error };
}
