/**
 * The executable runs the CLI bundle through V8's code cache (lib/cli/launch.ts): with no cache, a
 * corrupt one, or a folder it cannot write, the command must still answer exactly as it should.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasSetpriv, isRoot } from '../helpers/processes.js';
import { builtCli, removeCopy, runCli, SHIPPED } from './run-cli.js';

let cli = '';
let dir = '';
const version = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')).version as string;

beforeAll(async () => {
  cli = await builtCli();
  dir = join(cli, '..');
});
afterAll(() => removeCopy(cli));

describe('the cc-sessions executable', () => {
  it('writes a code cache beside the bundle on a first run, and uses it after', () => {
    const cache = join(dir, 'cli-main.cache');
    rmSync(cache, { force: true });
    expect(runCli(cli, ['--version']).stdout).toBe(`${version}\n`);
    expect(statSync(cache).size).toBeGreaterThan(1000);
    const written = statSync(cache).mtimeMs;
    expect(runCli(cli, ['--version']).stdout).toBe(`${version}\n`);
    // An accepted cache is not rewritten.
    expect(statSync(cache).mtimeMs).toBe(written);
  });

  it('ignores a corrupt cache, answers correctly and replaces it', () => {
    const cache = join(dir, 'cli-main.cache');
    writeFileSync(cache, Buffer.alloc(4096, 0x5a));
    const ran = runCli(cli, ['count', '--config-dir', join(dir, 'no-such-config')]);
    expect(ran).toMatchObject({ status: 0, stdout: '0\n', stderr: '' });
    expect(readFileSync(cache).equals(Buffer.alloc(4096, 0x5a))).toBe(false);
  });

  it('leaves no temporary file behind', () => {
    rmSync(join(dir, 'cli-main.cache'), { force: true });
    runCli(cli, ['--version']);
    expect(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout.split('\n').filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it.skipIf(!isRoot || !hasSetpriv)('runs from a folder it cannot write, without a cache', () => {
    const ro = mkdtempSync(join(tmpdir(), 'ccs-ro-'));
    try {
      for (const file of SHIPPED) copyFileSync(join(dir, file), join(ro, file));
      chmodSync(ro, 0o555);
      const ran = spawnSync(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, join(ro, 'cli.cjs'), '--version'],
        { encoding: 'utf8' },
      );
      expect(ran).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
      expect(existsSync(join(ro, 'cli-main.cache'))).toBe(false);
    } finally {
      chmodSync(ro, 0o755);
      rmSync(ro, { recursive: true, force: true });
    }
  });
});
