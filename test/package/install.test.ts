/**
 * The packed tarball, checked as a user would: what it ships (and that this depends only on the
 * sources), the types TypeScript resolves from `import` and from `require`, the prebuild loading
 * without compiling, nothing written into the installed package at run time, and, with no prebuild
 * and no working compiler, an install that still succeeds with the JS backend serving.
 * Needs `npm run build` first (npm test does it): the prebuild and dist/ are packed as they are.
 * Installs resolve the two small dependencies from the registry (a cold npm cache is fine).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTree } from '../helpers/file-tree.js';

const root = join(import.meta.dirname, '../..');
// This host's prebuild under node-gyp-build's name (docs/prebuilds.md): libc-tagged on Linux, one
// universal binary on macOS.
const hostPrebuild =
  process.platform === 'linux'
    ? `prebuilds/linux-${process.arch}/claude-ps.glibc.node`
    : process.platform === 'darwin'
      ? 'prebuilds/darwin-x64+arm64/claude-ps.node'
      : `prebuilds/${process.platform}-${process.arch}/claude-ps.node`;
const prebuild = join(root, hostPrebuild);
const work = mkdtempSync(join(tmpdir(), 'cps-pack-'));
// No compiler: any build attempt fails, as on a machine without a toolchain.
const noCompiler = { ...process.env, CC: '/bin/false', CXX: '/bin/false', npm_config_update_notifier: 'false' };
let tarball = '';

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, env: noCompiler, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Packs the repository into a folder of its own; returns the tarball's path. */
function pack(into: string): string {
  mkdirSync(into, { recursive: true });
  npm(['pack', '--ignore-scripts', '--pack-destination', into], root);
  const name = readdirSync(into).find((f) => f.endsWith('.tgz'));
  if (!name) throw new Error('npm pack produced no tarball');
  return join(into, name);
}

/** Each file of a tarball with the hash of its content. */
function contents(tgz: string): Map<string, string> {
  const dir = mkdtempSync(join(work, 'unpacked-'));
  execFileSync('tar', ['xzf', tgz, '-C', dir]);
  const files = new Map<string, string>();
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, name);
    if (statSync(path).isFile()) files.set(name, createHash('sha256').update(readFileSync(path)).digest('hex'));
  }
  rmSync(dir, { recursive: true, force: true });
  return files;
}

function freshProject(name: string, from = tarball): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true }));
  npm(['install', from, '--no-audit', '--no-fund'], dir);
  return dir;
}

function backendIn(dir: string, kind: 'esm' | 'cjs'): { name: string; reason?: string } {
  const script =
    kind === 'esm'
      ? "import { backend } from 'claude-ps'; console.log(JSON.stringify(backend()));"
      : "console.log(JSON.stringify(require('claude-ps').backend()));";
  const out = spawnSync(process.execPath, kind === 'esm' ? ['--input-type=module', '-e', script] : ['-e', script], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_PS_BACKEND: '' },
  });
  expect(out.stderr).toBe('');
  return JSON.parse(out.stdout);
}

beforeAll(() => {
  if (!existsSync(prebuild)) throw new Error(`no prebuild at ${prebuild}: run \`npm run build\` first`);
  tarball = pack(join(work, 'first'));
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  it('ships the prebuild, the bundles with their maps, both type trees, the sources to build from and the licence; nothing else', () => {
    const files = [...contents(tarball).keys()];
    const allowed = [
      /^package\/(package\.json|README\.md|LICENSE|binding\.gyp|scripts\/install\.cjs|lib\/hosts\/reader\.sh)$/,
      /^package\/native\/[\w-]+\.(cc|h)$/,
      /^package\/prebuilds\/[\w+-]+\/claude-ps(\.glibc|\.musl)?\.node$/,
      /^package\/dist\/(index\.js|index\.cjs|extras\.cjs|cli\.cjs|cli-main\.cjs|cli-count\.cjs|cli-statusline\.cjs|cli-extras\.cjs)(\.map)?$/,
      /^package\/dist\/types\/[\w/-]+\.d\.c?ts$/,
    ];
    expect(files.filter((f) => !allowed.some((re) => re.test(f)))).toEqual([]);
    for (const f of [
      `package/${hostPrebuild}`,
      'package/dist/index.js',
      'package/dist/index.js.map',
      'package/dist/index.cjs',
      'package/dist/index.cjs.map',
      'package/dist/extras.cjs',
      'package/dist/extras.cjs.map',
      'package/dist/cli.cjs',
      'package/dist/cli-main.cjs',
      'package/dist/cli-count.cjs',
      'package/dist/cli-statusline.cjs',
      'package/dist/cli-extras.cjs',
      'package/dist/types/index.d.ts',
      'package/dist/types/index.d.cts',
      'package/binding.gyp',
      'package/native/addon.cc',
      'package/scripts/install.cjs',
      'package/lib/hosts/reader.sh',
      'package/README.md',
      'package/LICENSE',
    ]) {
      expect(files).toContain(f);
    }
    // Every prebuild built ships (the four Linux ones where Zig ran: docs/prebuilds.md).
    const built = readdirSync(join(root, 'prebuilds'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.node'));
    expect(built.map((f) => `package/prebuilds/${f.split('\\').join('/')}`).filter((f) => !files.includes(f))).toEqual([]);
    // Every ESM declaration has its CommonJS twin, and no declaration pulls in a package we do not depend on.
    const declarations = files.filter((f) => f.endsWith('.d.ts'));
    expect(declarations.filter((f) => !files.includes(f.replace(/\.d\.ts$/, '.d.cts')))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const unpacked = mkdtempSync(join(work, 'types-'));
    execFileSync('tar', ['xzf', tarball, '-C', unpacked, 'package/dist/types']);
    for (const f of files.filter((name) => /\.d\.c?ts$/.test(name))) {
      for (const [, spec] of readFileSync(join(unpacked, f), 'utf8').matchAll(/(?:from|import\()\s*["']([^"'.][^"']*)["']/g)) {
        expect(spec!.startsWith('node:') || spec! in pkg.dependencies, `${f} imports ${spec}`).toBe(true);
      }
    }
  });

  it('has the same content after the CLI and the library ran from the tree (nothing depends on what ran before packing)', () => {
    const env = { ...process.env, CLAUDE_CONFIG_DIR: join(work, 'no-such-config') };
    for (const args of [['--version'], ['count'], ['list', '--all'], ['doctor', '--json']]) {
      spawnSync(process.execPath, [join(root, 'dist/cli.cjs'), ...args], { env, encoding: 'utf8' });
    }
    spawnSync(process.execPath, ['-e', `require(${JSON.stringify(join(root, 'dist/index.cjs'))}).liveRecords()`], { env });
    const again = pack(join(work, 'second'));
    expect(contents(again)).toEqual(contents(tarball));
  }, 120_000);

  it('resolves its types from import and from require, under node16, bundler and node10 resolution', () => {
    const dir = freshProject('types-consumer');
    const use = (from: string) =>
      `import { liveRecords, probe, type SessionRecord } from 'claude-ps';\n` +
      `export const records: readonly SessionRecord[] = liveRecords();\n` +
      `export const states: string[] = probe([1]).map((r) => r.state);\n// ${from}\n`;
    writeFileSync(join(dir, 'cjs.ts'), use('CommonJS: this package.json has no "type"'));
    writeFileSync(join(dir, 'cjs.cts'), use('CommonJS by extension'));
    writeFileSync(join(dir, 'esm.mts'), use('ESM by extension'));
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const typeRoots = join(root, 'node_modules/@types');
    const compile = (...options: string[]) =>
      spawnSync(
        process.execPath,
        [tsc, '--noEmit', '--strict', '--skipLibCheck', 'false', '--types', 'node', '--typeRoots', typeRoots, '--explainFiles', ...options],
        { cwd: dir, encoding: 'utf8' },
      );
    // node16: a .ts file of a CommonJS package (TS1479 when the types masquerade as ESM), .cts and .mts.
    const node16 = compile('--module', 'node16', '--moduleResolution', 'node16', 'cjs.ts', 'cjs.cts', 'esm.mts');
    expect(node16.stdout.split('\n').filter((l) => /error TS\d+/.test(l))).toEqual([]);
    expect(node16.status).toBe(0);
    expect(node16.stdout).toContain('node_modules/claude-ps/dist/types/index.d.cts');
    expect(node16.stdout).toContain('node_modules/claude-ps/dist/types/index.d.ts');
    for (const options of [
      ['--module', 'esnext', '--moduleResolution', 'bundler', 'cjs.ts'],
      ['--module', 'commonjs', '--moduleResolution', 'node10', 'cjs.ts'],
    ]) {
      const ran = compile(...options);
      expect(ran.stdout.split('\n').filter((l) => /error TS\d+/.test(l))).toEqual([]);
      expect(ran.status).toBe(0);
    }
  }, 120_000);

  it('loads its prebuild without compiling, from ESM and from CommonJS, and writes nothing into itself when run', () => {
    const dir = freshProject('with-prebuild');
    const pkg = join(dir, 'node_modules/claude-ps');
    expect(existsSync(join(pkg, 'build'))).toBe(false);
    const installed = fileTree(pkg);
    expect(backendIn(dir, 'esm')).toEqual({ name: 'native' });
    expect(backendIn(dir, 'cjs')).toEqual({ name: 'native' });
    // The executable npm linked runs, from a folder that is not the package's.
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
    const bin = join(dir, 'node_modules/.bin/claude-ps');
    expect(spawnSync(bin, ['--version'], { cwd: dir, encoding: 'utf8' })).toMatchObject({ status: 0, stdout: `${version}\n` });
    const env = { ...process.env, CLAUDE_CONFIG_DIR: join(dir, 'no-such-config') };
    expect(spawnSync(bin, ['count'], { cwd: dir, encoding: 'utf8', env })).toMatchObject({ status: 0, stdout: '0\n' });
    const doctor = spawnSync(bin, ['doctor', '--json'], { cwd: dir, encoding: 'utf8', env });
    expect(JSON.parse(doctor.stdout).backend).toEqual({ name: 'native', reason: null, addon: hostPrebuild });
    expect(fileTree(pkg)).toEqual(installed);
  }, 120_000);

  it('installs without prebuild or compiler: npm runs the install script, its build fails, the install does not, and the JS backend serves and says why', () => {
    // The same tarball without prebuilds/.
    const repacked = join(work, 'no-prebuild');
    mkdirSync(repacked);
    execFileSync('tar', ['xzf', tarball, '-C', repacked]);
    rmSync(join(repacked, 'package/prebuilds'), { recursive: true });
    const stripped = join(work, 'claude-ps-no-prebuild.tgz');
    execFileSync('tar', ['czf', stripped, '-C', repacked, 'package']);
    const dir = freshProject('without-prebuild', stripped);
    const pkg = join(dir, 'node_modules/claude-ps');
    // npm 11 ran the install script without waiting for approval (it warns about it): node-gyp
    // configured a build/ folder, and the compile failed for want of a compiler.
    expect(existsSync(join(pkg, 'build'))).toBe(true);
    expect(existsSync(join(pkg, 'build/Release/claude_ps.node'))).toBe(false);
    const info = backendIn(dir, 'esm');
    expect(info.name).toBe('js');
    expect(info.reason).toMatch(/No native build was found/);
  }, 180_000);

  it("installs globally into a fresh --prefix as the README's Install section says, and the bin runs from there", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const install = readme.slice(readme.indexOf('\n## Install\n'), readme.indexOf('\n## ', readme.indexOf('\n## Install\n') + 1));
    expect(install).toContain('npm install -g ./claude-ps-0.1.0.tgz');
    expect(install).toContain('npm install -g claude-ps');
    const prefix = join(work, 'global-prefix');
    const started = performance.now();
    npm(['install', '-g', '--prefix', prefix, tarball, '--no-audit', '--no-fund'], work);
    const installMs = performance.now() - started;
    const bin = join(prefix, 'bin', 'claude-ps');
    expect(existsSync(bin)).toBe(true);
    const empty = mkdtempSync(join(work, 'empty-config-'));
    // Found on PATH by name, as a statusline command names it (`command -v claude-ps`).
    const env = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, CLAUDE_CONFIG_DIR: empty, CLAUDE_PS_BACKEND: '' };
    const found = spawnSync('sh', ['-c', 'command -v claude-ps'], { env, encoding: 'utf8' });
    expect(found.stdout.trim()).toBe(bin);
    const timed = (args: string[]) => {
      const t = performance.now();
      const r = spawnSync(bin, args, { env, encoding: 'utf8', timeout: 30_000 });
      return { ...r, ms: performance.now() - t };
    };
    const first = timed(['count']);
    expect({ status: first.status, stdout: first.stdout, stderr: first.stderr }).toEqual({ status: 0, stdout: '0\n', stderr: '' });
    const second = timed(['count']);
    expect(second.stdout).toBe('0\n');
    expect(timed(['--version']).stdout).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version + '\n');
    // The installed copy loads its prebuild: no compiler was there (CC=/bin/false).
    expect(JSON.parse(timed(['doctor', '--json']).stdout).backend).toEqual({
      name: 'native',
      reason: null,
      addon: expect.stringMatching(/^prebuilds\/linux-x64\/claude-ps\.glibc\.node$/),
    });
    console.log(`global install into a fresh prefix: ${installMs.toFixed(0)} ms; first run ${first.ms.toFixed(0)} ms, second ${second.ms.toFixed(0)} ms`);
  }, 180_000);
});
