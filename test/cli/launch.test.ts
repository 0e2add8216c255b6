/**
 * The executable (lib/cli/launch.ts) writes nothing into the package at run time: no code cache, no
 * temporary file, whether its folder is writable or not. Where Node has a compile cache (≥ 22.1) it
 * goes where Node keeps it (NODE_COMPILE_CACHE here), not beside the bundle.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTree } from '../helpers/file-tree.js';
import { hasSetpriv, isRoot } from '../helpers/processes.js';
import { builtCli, cliEnv, removeCopy, runCli, SHIPPED } from './run-cli.js';

let cli = '';
let dir = '';
const version = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')).version as string;
const hasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

beforeAll(async () => {
  cli = await builtCli();
  dir = join(cli, '..');
});
afterAll(() => removeCopy(cli));

describe('the claude-ps executable', () => {
  it('answers, and leaves its folder exactly as it was', () => {
    const before = fileTree(dir);
    expect(runCli(cli, ['--version']).stdout).toBe(`${version}\n`);
    expect(runCli(cli, ['count', '--config-dir', join(dir, 'no-such-config')])).toMatchObject({ status: 0, stdout: '0\n' });
    expect(runCli(cli, ['--version']).stdout).toBe(`${version}\n`);
    expect(fileTree(dir)).toEqual(before);
  });

  it(`puts a compile cache only in Node's own place (${hasCompileCache ? 'Node has one' : 'none on this Node'})`, () => {
    const cache = mkdtempSync(join(tmpdir(), 'cps-compile-cache-'));
    try {
      const before = fileTree(dir);
      const ran = runCli(cli, ['--version'], { env: cliEnv({ NODE_COMPILE_CACHE: cache }) });
      expect(ran).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
      expect(fileTree(dir)).toEqual(before);
      expect(readdirSync(cache).length > 0).toBe(hasCompileCache);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it.skipIf(!isRoot || !hasSetpriv)('runs as another user from a folder it cannot write', () => {
    const ro = mkdtempSync(join(tmpdir(), 'cps-ro-'));
    try {
      for (const file of SHIPPED) copyFileSync(join(dir, file), join(ro, file));
      chmodSync(ro, 0o555);
      const before = fileTree(ro);
      const ran = spawnSync(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, join(ro, 'cli.cjs'), '--version'],
        { encoding: 'utf8', env: cliEnv({ NODE_COMPILE_CACHE: '' }) },
      );
      expect(ran).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
      expect(fileTree(ro)).toEqual(before);
    } finally {
      chmodSync(ro, 0o755);
      rmSync(ro, { recursive: true, force: true });
    }
  });

  it('maps stack traces to the sources when CLAUDE_PS_DEBUG is set (the maps ship beside the bundles)', () => {
    const root = join(import.meta.dirname, '../..');
    for (const bundle of ['index.js', 'index.cjs', 'extras.cjs', 'cli-main.cjs', 'cli-count.cjs', 'cli-statusline.cjs', 'cli-extras.cjs']) {
      const map = JSON.parse(readFileSync(join(root, 'dist', `${bundle}.map`), 'utf8')) as { sources: string[]; sourcesContent: string[] };
      expect(readFileSync(join(root, 'dist', bundle), 'utf8')).toContain(`//# sourceMappingURL=${bundle}.map`);
      // The ES module entry only runs the core (lib/library-entry.ts); every other bundle holds code of the read path.
      const held = bundle.endsWith('extras.cjs') ? 'lib/registry/prune/prune.ts' : bundle === 'index.js' ? 'lib/library-entry.ts' : 'lib/registry/verdict.ts';
      expect(map.sources.some((s) => s.endsWith(held))).toBe(true);
      expect(map.sourcesContent.length).toBe(map.sources.length);
    }
    // An error thrown inside the library, seen through the map: the frame names a lib/ file.
    const script = `try { require(${JSON.stringify(join(root, 'dist/index.cjs'))}).probe('x') } catch (e) { console.log(e.stack) }`;
    const ran = spawnSync(process.execPath, ['--enable-source-maps', '-e', script], { encoding: 'utf8' });
    expect(ran.stdout).toMatch(/lib\/backend\/index\.ts:\d+/);
    // The CLI turns the maps on itself when asked for a stack.
    const failed = runCli(cli, ['snapshot', '--output', join(dir, 'no-such-folder', 'snap.json')], {
      env: cliEnv({ CLAUDE_PS_DEBUG: '1', CLAUDE_CONFIG_DIR: join(dir, 'no-such-config') }),
    });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/lib\/registry\/snapshot\.ts:\d+/);
  });
});
