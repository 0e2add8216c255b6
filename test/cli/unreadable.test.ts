/**
 * A registry folder the CLI cannot read is not an empty registry: `count`, `summary`, `list` and
 * `snapshot` run as `nobody` on a folder only root may read fail with exit 1 and one line, instead of
 * answering 0, "no sessions", an empty document or "does not exist". A folder that is really missing
 * stays an empty registry.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasSetpriv, isRoot } from '../helpers/processes.js';
import { builtCli, cliEnv, removeCopy, SHIPPED } from './run-cli.js';

let cli = '';
let dir = ''; // holds a copy of the CLI that nobody can run, and the registries
const COMMANDS = [['count'], ['summary'], ['list'], ['list', '--all', '--json'], ['snapshot']];

function asNobody(args: string[]) {
  const r = spawnSync(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, join(dir, 'cli.cjs'), ...args],
    { encoding: 'utf8', env: cliEnv(), timeout: 20_000 },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  cli = await builtCli();
  dir = mkdtempSync(join(tmpdir(), 'cps-cli-unreadable-'));
  for (const file of SHIPPED) copyFileSync(join(cli, '..', file), join(dir, file));
  chmodSync(dir, 0o755);
  // closed/sessions: only root may read it; open/sessions: anyone may.
  mkdirSync(join(dir, 'closed', 'sessions'), { recursive: true });
  chmodSync(join(dir, 'closed'), 0o755);
  chmodSync(join(dir, 'closed', 'sessions'), 0o700);
  mkdirSync(join(dir, 'open', 'sessions'), { recursive: true });
  chmodSync(join(dir, 'open'), 0o755);
  chmodSync(join(dir, 'open', 'sessions'), 0o755);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (cli) removeCopy(cli);
});

describe.skipIf(!isRoot || !hasSetpriv)('a registry folder that cannot be read', () => {
  it('sessions/ readable only by its owner: exit 1 and why, never 0 or "no sessions"', () => {
    const config = join(dir, 'closed');
    for (const args of COMMANDS) {
      const r = asNobody([...args, '--config-dir', config]);
      expect(r.status, `${args.join(' ')}: ${r.stdout}`).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`claude-ps: cannot list ${join(config, 'sessions')} (EACCES): the sessions it holds are unknown\n`);
    }
  });

  it('a config dir whose parent cannot be searched is not called missing', () => {
    const parent = join(dir, 'locked');
    mkdirSync(join(parent, 'cfg', 'sessions'), { recursive: true });
    chmodSync(parent, 0o700);
    for (const args of COMMANDS) {
      const r = asNobody([...args, '--config-dir', join(parent, 'cfg')]);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/^claude-ps: cannot list .* \(EACCES\)[^\n]*\n$/);
      expect(r.stderr).not.toContain('does not exist');
    }
  });

  it('one readable and one unreadable folder: still no partial answer', () => {
    const r = asNobody(['count', '--config-dir', join(dir, 'open'), '--config-dir', join(dir, 'closed')]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
  });

  it('a folder that is missing, or readable and empty, is an empty registry (exit 0)', () => {
    expect(asNobody(['count', '--config-dir', join(dir, 'no-such-config')])).toMatchObject({ status: 0, stdout: '0\n', stderr: '' });
    expect(asNobody(['summary', '--config-dir', join(dir, 'open')])).toMatchObject({ status: 0, stdout: 'no sessions\n', stderr: '' });
    const missing = asNobody(['list', '--config-dir', join(dir, 'no-such-config')]);
    expect(missing).toMatchObject({ status: 0, stdout: '' });
    expect(missing.stderr).toMatch(/^No Claude Code session registry here .* does not exist/);
  });
});
