#!/usr/bin/env node
// Builds the addon with AddressSanitizer and UBSan into OUTDIR (never build/ or prebuilds/, which
// ship): `node scripts/build-sanitized.mjs OUTDIR`. The sources and defines are binding.gyp's, for
// this OS. Prints the .node path and, on a second line, the libasan to LD_PRELOAD (an addon cannot
// bring the ASan runtime itself: it must be the first library loaded). Exits 3 with one line when
// this machine lacks the toolchain (g++, libasan, Node's headers), 1 when the build fails.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/build-sanitized.mjs OUTDIR');
  process.exit(2);
}

function missing(what) {
  console.error(`build-sanitized: ${what}`);
  process.exit(3);
}

if (process.platform !== 'linux') missing(`only Linux builds are sanitized here (this is ${process.platform})`);
if (spawnSync('g++', ['--version']).status !== 0) missing('no g++');
const libasan = spawnSync('g++', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).stdout.trim();
if (!libasan.startsWith('/') || !existsSync(libasan)) missing('no libasan for g++ (Debian: apt-get install libasan8 or g++)');

// Node's headers: beside the binary (official builds), or where node-gyp put them for `npm ci`.
const version = process.versions.node;
const headers = [
  process.env.npm_config_nodedir && join(process.env.npm_config_nodedir, 'include', 'node'),
  join(dirname(process.execPath), '..', 'include', 'node'),
  join(homedir(), '.cache', 'node-gyp', version, 'include', 'node'),
  join(homedir(), 'Library', 'Caches', 'node-gyp', version, 'include', 'node'),
].find((dir) => dir && existsSync(join(dir, 'node_api.h')));
if (headers === undefined) missing(`no Node ${version} headers (node-gyp install fetches them)`);
const addonApi = createRequire(join(root, 'package.json'))('node-addon-api').include_dir;

// binding.gyp is JSON; its Linux sources are the target's plus the OS condition's.
const target = JSON.parse(readFileSync(join(root, 'binding.gyp'), 'utf8')).targets[0];
const sources = [...target.sources];
for (const [condition, settings] of target.conditions ?? []) if (condition === "OS=='linux'") sources.push(...(settings.sources ?? []));
const defines = [...target.defines, 'BUILDING_NODE_EXTENSION'].map((d) => `-D${d}`);

mkdirSync(out, { recursive: true });
const file = join(resolve(out), 'claude_ps.node');
const flags = ['-std=c++17', '-O1', '-g', '-fPIC', '-Wall', '-Wextra', '-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-fno-omit-frame-pointer'];

/** g++ with `args`, its output on our stderr; resolves with its exit status. */
function gxx(args) {
  return new Promise((done) => {
    const child = spawn('g++', args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', () => done(1));
    child.once('exit', (code) => done(code ?? 1));
  });
}

// One compiler per source, side by side (each takes seconds under the sanitizers), then the link.
const objects = sources.map((s, i) => join(resolve(out), `${i}-${basename(s)}.o`));
const compiled = await Promise.all(
  sources.map((s, i) => gxx([...flags, ...defines, '-I', headers, '-I', resolve(root, addonApi), '-c', join(root, s), '-o', objects[i]])),
);
if (compiled.some((code) => code !== 0)) process.exit(1);
if ((await gxx([...flags, '-shared', ...objects, '-o', file])) !== 0) process.exit(1);
console.log(file);
console.log(libasan);
