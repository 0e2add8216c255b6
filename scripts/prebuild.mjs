// `npm run prebuild` (and so the first step of `npm run build`): the prebuilds the package ships, under
// node-gyp-build's names (docs/prebuilds.md):
//   prebuilds/linux-x64/claude-ps.glibc.node     x86_64, glibc 2.28 and later
//   prebuilds/linux-x64/claude-ps.musl.node      x86_64, musl (Alpine)
//   prebuilds/linux-arm64/claude-ps.glibc.node   aarch64, glibc 2.28 and later
//   prebuilds/linux-arm64/claude-ps.musl.node    aarch64, musl
// cross-compiled from binding.gyp's Linux sources by Zig's clang (scripts/zig.mjs) with a chosen glibc
// floor, stripped, each checked (scripts/elf.mjs) before it is moved into place; then win32 by
// scripts/prebuild-win32.mjs where that script exists, and the darwin universal binary on a Mac.
// Where Zig cannot run (another host, offline) only this host's build is made, by prebuildify with
// this machine's compiler and glibc, and a line says so; with CI=true that is an error instead.
//
// Options: --out DIR (default prebuilds/); --only ID,… to make only some of them (IDs: linux-x64.glibc,
// linux-x64.musl, linux-arm64.glibc, linux-arm64.musl, linux (all four), win32, darwin).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EM_AARCH64, EM_X86_64, highestGlibc, linuxAddonProblems, readElf } from './elf.mjs';
import { Unavailable, ZIG_VERSION, cacheRoot, ensureZig, nodeApiHeaders, onCi, processExists, run, zigEnv, zigHostProblem } from './zig.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The package name prebuildify and node-gyp-build put first in a prebuild's file name. */
export const ADDON_NAME = 'claude-ps';
/** Node 20's own floor (its official Linux binaries need glibc 2.28). */
export const GLIBC_FLOOR = '2.28';

export const LINUX_TARGETS = [
  { dir: 'linux-x64', libc: 'glibc', zig: `x86_64-linux-gnu.${GLIBC_FLOOR}`, machine: EM_X86_64 },
  { dir: 'linux-x64', libc: 'musl', zig: 'x86_64-linux-musl', machine: EM_X86_64 },
  { dir: 'linux-arm64', libc: 'glibc', zig: `aarch64-linux-gnu.${GLIBC_FLOOR}`, machine: EM_AARCH64 },
  { dir: 'linux-arm64', libc: 'musl', zig: 'aarch64-linux-musl', machine: EM_AARCH64 },
];

/** `linux-arm64.glibc`: how --only names a target. */
export const targetId = (t) => `${t.dir}.${t.libc}`;

/** node-gyp-build's name for a prebuild: `<name>.<libc>.node` (Node-API builds carry no abi tag). */
export const prebuildFile = (t) => join(t.dir, `${ADDON_NAME}.${t.libc}.node`);

/** The Linux side of binding.gyp: common sources plus those of every `OS=='linux'` condition, defines, cflags_cc. */
export function linuxBuild(gypText) {
  const gyp = JSON.parse(gypText);
  const target = gyp?.targets?.[0];
  if (!target || !Array.isArray(target.sources)) throw new Error('binding.gyp: no target with sources');
  const sources = [...target.sources];
  for (const condition of target.conditions ?? []) {
    if (!Array.isArray(condition) || !/OS\s*==\s*['"]linux['"]/.test(String(condition[0]))) continue;
    sources.push(...(condition[1]?.sources ?? []));
  }
  return { sources, defines: [...(target.defines ?? [])], cflags: [...(target.cflags_cc ?? [])] };
}

// Only Node's two entry points leave the addon: the static C++ library inside stays private, so it can
// neither clash with nor be taken for Node's own libstdc++.
const VERSION_SCRIPT = '{\n  global: napi_register_module_v1; node_api_module_get_api_version_v1;\n  local: *;\n};\n';

/**
 * Compiles and links one target into `outFile`; the error text, or undefined. Paths are mapped out of
 * the objects (-ffile-prefix-map) and nothing time- or host-dependent is linked in, so two builds from
 * the same sources, headers and Zig give the same bytes.
 */
export async function buildLinuxTarget({ zig, env, target, build, includes, workDir, outFile, sourceRoot = root }) {
  const flags = [
    '-target', target.zig, ...build.cflags, '-fPIC', '-fno-exceptions', '-fno-rtti', '-fvisibility=hidden',
    '-ffunction-sections', '-fdata-sections', '-Werror', ...build.defines.map((d) => `-D${d}`),
    `-ffile-prefix-map=${sourceRoot}=.`, ...includes.flatMap((dir, i) => ['-I', dir, `-ffile-prefix-map=${dir}=/include${i}`]),
  ];
  const objects = build.sources.map((s) => join(workDir, `${s.replace(/[^A-Za-z0-9]+/g, '_')}.o`));
  const compiled = await Promise.all(
    build.sources.map((source, i) => run(zig, ['c++', ...flags, '-c', join(sourceRoot, source), '-o', objects[i]], env, { cwd: sourceRoot })),
  );
  const failed = compiled.findIndex((r) => r.status !== 0);
  if (failed >= 0) return `${build.sources[failed]} (${target.zig}):\n${compiled[failed].output.trim()}`;
  const versionScript = join(workDir, 'exports.map');
  writeFileSync(versionScript, VERSION_SCRIPT);
  const link = await run(
    zig,
    // -O2 here too: Zig builds the libc++ it links in the link's optimization mode (Debug without one).
    // -z lazy: Zig links with -z now by default, and resolving the ~100 PLT symbols at dlopen against
    // Node's symbol table cost ~0.6 ms of every cold start here (1.33 -> 0.77 ms to load, bench-free
    // process.dlopen timing; node-gyp's own builds are lazy too). musl's loader binds at once anyway.
    ['c++', '-target', target.zig, '-O2', '-shared', '-s', '-Wl,--gc-sections', `-Wl,--version-script=${versionScript}`, '-Wl,-z,noexecstack', '-Wl,-z,lazy', ...objects, '-o', outFile],
    env,
    { cwd: workDir },
  );
  if (link.status !== 0) return `link (${target.zig}):\n${link.output.trim()}`;
  const problems = linuxAddonProblems(readFileSync(outFile), { machine: target.machine, libc: target.libc, floor: GLIBC_FLOOR });
  return problems.length > 0 ? `${prebuildFile(target)}: ${problems.join('; ')}` : undefined;
}

/** One line per prebuild for the log and the docs: size and what it asks of the loader. */
export function describePrebuild(path) {
  const elf = readElf(readFileSync(path));
  const top = highestGlibc(elf);
  const kib = (statSync(path).size / 1024).toFixed(1);
  return `${kib} KiB, ${top ? `highest symbol version ${top.version} (${top.symbol})` : 'no glibc symbol versions'}, needs ${elf.needed.join(' ') || 'nothing'}`;
}

async function pool(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]);
      }
    }),
  );
  return results;
}

/** What buildLinuxTarget needs besides a target; throws Unavailable when Zig cannot be had here. */
export function linuxToolchain(sourceRoot = root) {
  const hostProblem = zigHostProblem();
  if (hostProblem) throw new Unavailable(hostProblem);
  const cache = cacheRoot();
  const zig = ensureZig(cache);
  const includes = [nodeApiHeaders(cache), dirname(createRequire(join(root, 'package.json')).resolve('node-addon-api/package.json'))];
  const build = linuxBuild(readFileSync(join(sourceRoot, 'binding.gyp'), 'utf8'));
  const missing = build.sources.filter((s) => !existsSync(join(sourceRoot, s)));
  if (missing.length > 0) throw new Error(`binding.gyp lists ${missing.join(', ')}, which does not exist`);
  return { zig, env: zigEnv(cache), includes, build, sourceRoot };
}

/** Builds `targets` into `out` with Zig; throws Unavailable when Zig cannot be had, Error on a bad build. */
export async function buildLinuxPrebuilds(targets, out, { say = () => {} } = {}) {
  const toolchain = linuxToolchain();
  // Work folders of runs killed mid-build (their process is gone): nothing of theirs reached `out`.
  for (const name of readdirSync(tmpdir())) {
    const owner = /^cps-prebuild-([0-9]+)-/.exec(name);
    if (owner && !processExists(Number(owner[1]))) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
  const work = mkdtempSync(join(tmpdir(), `cps-prebuild-${process.pid}-`));
  try {
    // Targets one after another (each compiles its sources in parallel): a cold libc++ build per
    // target is the slow part, and two cores are all there is.
    const problems = await pool(targets, Math.max(1, Math.floor(availableParallelism() / 2)), async (target) => {
      const started = performance.now();
      const workDir = join(work, targetId(target));
      mkdirSync(workDir);
      const built = join(workDir, basename(prebuildFile(target)));
      const problem = await buildLinuxTarget({ ...toolchain, target, workDir, outFile: built });
      if (!problem) say(`${prebuildFile(target)}: ${describePrebuild(built)} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      return problem;
    });
    const failed = problems.filter(Boolean);
    if (failed.length > 0) throw new Error(failed.join('\n\n'));
    // All built and checked: only now replace what was there.
    for (const target of targets) {
      const dest = join(out, prebuildFile(target));
      mkdirSync(dirname(dest), { recursive: true });
      renameSync(join(work, targetId(target), basename(dest)), dest);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { zigVersion: ZIG_VERSION };
}

function prebuildify(args) {
  const bin = join(root, 'node_modules', 'prebuildify', 'bin.js');
  return spawnSync(process.execPath, [bin, '--napi', '--strip', ...args], { cwd: root, stdio: 'inherit' }).status === 0;
}

const STEP_IDS = [...LINUX_TARGETS.map(targetId), 'linux', 'win32', 'darwin'];

/** { out, linux: the Linux targets to build, win32, darwin } from the command line. */
export function parseArgs(argv) {
  let out = join(root, 'prebuilds');
  let only;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--out' && argv[i + 1]) out = resolve(argv[++i]);
    else if (arg === '--only' && argv[i + 1]) only = argv[++i].split(',').filter(Boolean);
    else throw new Error(`unknown or incomplete option ${arg} (known: --out DIR, --only ${STEP_IDS.join(',')})`);
  }
  const unknown = (only ?? []).filter((id) => !STEP_IDS.includes(id));
  if (unknown.length > 0) throw new Error(`unknown prebuild ${unknown.join(', ')} (known: ${STEP_IDS.join(', ')})`);
  const wants = (id) => only === undefined || only.includes(id);
  return {
    out,
    linux: LINUX_TARGETS.filter((t) => wants(targetId(t)) || wants('linux')),
    win32: wants('win32'),
    darwin: wants('darwin'),
  };
}

async function main() {
  const say = (line) => console.log(`prebuild: ${line}`);
  const options = parseArgs(process.argv.slice(2));
  const targets = options.linux;
  const started = performance.now();
  // A Linux file under the old untagged name would ship beside the tagged ones: gone first.
  for (const dir of new Set(targets.map((t) => t.dir))) rmSync(join(options.out, dir, `${ADDON_NAME}.node`), { force: true });
  if (targets.length > 0) {
    try {
      await buildLinuxPrebuilds(targets, options.out, { say });
      say(`${targets.length} Linux prebuild(s) by zig ${ZIG_VERSION} (glibc floor ${GLIBC_FLOOR}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
      if (onCi()) throw new Error(`${err.message} (CI=true: the cross-built prebuilds must be made on CI, so this fails instead of falling back)`);
      if (process.platform === 'linux' && options.out === join(root, 'prebuilds')) {
        say(`cannot cross-build (${err.message}): building only linux-${process.arch} with this machine's compiler, so its glibc floor is this machine's`);
        if (!prebuildify(['--tag-libc'])) throw new Error('prebuildify failed');
      } else {
        say(`skipped the Linux prebuilds: ${err.message}`);
      }
    }
  }
  const win32 = join(root, 'scripts', 'prebuild-win32.mjs');
  if (options.win32 && existsSync(win32)) {
    const r = spawnSync(process.execPath, [win32], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`scripts/prebuild-win32.mjs exited ${r.status ?? r.signal}`);
  } else if (options.win32) {
    say('win32: no scripts/prebuild-win32.mjs in this tree');
  }
  if (options.darwin && process.platform === 'darwin') {
    if (!prebuildify(['--arch', 'x64+arm64'])) throw new Error('prebuildify (darwin x64+arm64) failed');
  } else if (options.darwin) {
    say('darwin-x64+arm64: built with Xcode on a Mac (the release workflow), not here');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(`prebuild: FAILED\n${err.message}`);
    process.exitCode = 1;
  });
}
