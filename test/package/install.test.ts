/**
 * The packed tarball, installed as a user would: the prebuild loads without compiling, and with no
 * prebuild and no working compiler the install still succeeds and the JS backend serves.
 * Needs `npm run build` first (npm test does it): the prebuild and dist/ are packed as they are.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const prebuild = join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'cc-sessions.node');
const work = mkdtempSync(join(tmpdir(), 'ccs-pack-'));
// No compiler: any build attempt fails, as on a machine without a toolchain.
const noCompiler = { ...process.env, CC: '/bin/false', CXX: '/bin/false', npm_config_update_notifier: 'false' };
let tarball = '';

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, env: noCompiler, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function freshProject(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true }));
  npm(['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], dir);
  return dir;
}

function backendIn(dir: string, kind: 'esm' | 'cjs'): { name: string; reason?: string } {
  const script =
    kind === 'esm'
      ? "import { backend } from 'cc-sessions'; console.log(JSON.stringify(backend()));"
      : "console.log(JSON.stringify(require('cc-sessions').backend()));";
  const out = spawnSync(process.execPath, kind === 'esm' ? ['--input-type=module', '-e', script] : ['-e', script], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, CC_SESSIONS_BACKEND: '' },
  });
  expect(out.stderr).toBe('');
  return JSON.parse(out.stdout);
}

beforeAll(() => {
  if (!existsSync(prebuild)) throw new Error(`no prebuild at ${prebuild}: run \`npm run build\` first`);
  npm(['pack', '--ignore-scripts', '--pack-destination', work], root);
  const name = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (!name) throw new Error('npm pack produced no tarball');
  tarball = join(work, name);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  it('ships the prebuild, the bundles and the sources to build from, and nothing of the tests', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
    for (const f of [
      `package/prebuilds/${process.platform}-${process.arch}/cc-sessions.node`,
      'package/dist/index.js',
      'package/dist/index.cjs',
      'package/dist/cli.cjs',
      'package/dist/cli-main.cjs',
      'package/dist/lenient-zod.cjs',
      'package/dist/types/index.d.ts',
      'package/binding.gyp',
      'package/native/addon.cc',
      'package/scripts/install.cjs',
      'package/README.md',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => f.startsWith('package/test/') || f.startsWith('package/lib/'))).toEqual([]);
  });

  it('loads its prebuild without compiling, from ESM and from CommonJS', () => {
    const dir = freshProject('with-prebuild');
    expect(existsSync(join(dir, 'node_modules/cc-sessions/build'))).toBe(false);
    expect(backendIn(dir, 'esm')).toEqual({ name: 'native' });
    expect(backendIn(dir, 'cjs')).toEqual({ name: 'native' });
    // The executable npm linked runs, from a folder that is not the package's.
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
    const ran = spawnSync(join(dir, 'node_modules/.bin/cc-sessions'), ['--version'], { cwd: dir, encoding: 'utf8' });
    expect(ran).toMatchObject({ status: 0, stdout: `${version}\n` });
  }, 120_000);

  it('installs without prebuild or compiler, and the JS backend serves and says why', () => {
    const dir = freshProject('without-prebuild');
    const pkg = join(dir, 'node_modules/cc-sessions');
    rmSync(join(pkg, 'prebuilds'), { recursive: true });
    // npm 11 runs a dependency's install script only once approved; run it as an approving npm
    // would, with npm's own node-gyp and no compiler: the build fails, the install step does not.
    const gyp = join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm/node_modules/node-gyp/bin/node-gyp.js');
    const install = spawnSync(process.execPath, [join(pkg, 'scripts/install.cjs')], {
      cwd: pkg,
      encoding: 'utf8',
      env: { ...noCompiler, npm_config_node_gyp: gyp },
    });
    expect(install.status).toBe(0);
    expect(install.stderr).toContain('the JS backend will serve');
    const info = backendIn(dir, 'esm');
    expect(info.name).toBe('js');
    expect(info.reason).toMatch(/No native build was found/);
  }, 120_000);
});
