/**
 * Prune as a user who may not write the folder (issue 11, item 4): nothing is removed, nothing is
 * created, and every dead file that stays is reported with the reason — by the library and by
 * `claude-ps prune`, which exits 1. A folder that cannot be listed is reported too. Needs root to
 * set up (a folder of another owner) and setpriv to run as nobody.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ourPidDomain } from '../../../lib/registry/domain.js';
import { endAll, hasSetpriv, isRoot, procStartTicks, reapedPid, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { builtCli, cliEnv, removeCopy } from '../../cli/run-cli.js';

const AS_NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
const FIXTURE = fileURLToPath(new URL('../../fixtures/prune-as-user.mjs', import.meta.url));

function asNobody(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('setpriv', [...AS_NOBODY, process.execPath, ...args], { encoding: 'utf8', env: cliEnv(), timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!isRoot || !hasSetpriv)('prune as a user who may not write the folder', () => {
  let sleep: Spawned;
  let reg: RegistryFixture;
  let cli: string;
  let files: string[];
  let gone: number;

  beforeAll(async () => {
    cli = await builtCli();
    sleep = spawnSleep();
    reg = makeRegistry();
    chmodSync(reg.configDir, 0o755);
    chmodSync(reg.sessions, 0o755); // root's: nobody may read and list it, not write it
    gone = reapedPid();
    reg.write(gone, sessionRecord(gone, { procStart: '12345', pidDomain: ourPidDomain() }));
    writeFileSync(reg.path(`${gone}.${'a'.repeat(64)}.key`), JSON.stringify({ peerToken: 'x', procStart: '12345', pidDomain: ourPidDomain() }));
    writeFileSync(reg.path(`pid-${gone}.json`), JSON.stringify({ session_id: 'old', cwd: '/' }));
    // A live session's copy stranded by an interrupted prune: seen, but it cannot be put back here.
    writeFileSync(reg.path(`.${sleep.pid}.json.prune-0123456789abcdef`), JSON.stringify(sessionRecord(sleep.pid, { procStart: procStartTicks(sleep.pid) })));
    for (const name of readdirSync(reg.sessions)) chmodSync(reg.path(name), 0o644);
    files = readdirSync(reg.sessions).sort();
  });
  afterAll(async () => {
    await sleep?.end();
    await endAll();
    reg?.remove();
    if (cli) removeCopy(cli);
  });

  it('the library removes nothing, creates nothing, and says why for each file', () => {
    const r = asNobody([FIXTURE, reg.configDir]);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.uid).toBe(65534);
    // The stranded live copy is read as the claim it is, even here.
    expect(out.records.map((x: { pid: number; verdict: string }) => [x.pid, x.verdict])).toContainEqual([sleep.pid, 'alive']);
    expect(out.removed).toEqual([]);
    expect(out.legacyRemoved).toEqual([]);
    const failed = out.failed.map((f: { path: string; reason: string }) => [f.path, f.reason.replace(/:.*\(/, ': … (')]);
    expect(failed.sort()).toEqual(
      [
        [reg.path(`.${sleep.pid}.json.prune-0123456789abcdef`), 'cannot put it back: … (EACCES)'],
        [reg.path(`${gone}.json`), 'cannot write its journal: … (EACCES)'],
        [reg.path(`pid-${gone}.json`), 'cannot write its journal: … (EACCES)'],
      ].sort(),
    );
    expect(readdirSync(reg.sessions).sort()).toEqual(files);
  });

  it('claude-ps prune names each file it could not remove on stderr and exits 1', () => {
    const r = asNobody([cli, 'prune', '--legacy', '--config-dir', reg.configDir]);
    expect(r.status).toBe(1);
    const lines = r.stderr.trimEnd().split('\n').sort();
    expect(lines).toEqual([
      // sorted: the stranded copy's name starts with a dot
      `claude-ps: prune: could not remove ${reg.path(`.${sleep.pid}.json.prune-0123456789abcdef`)}: cannot put it back: permission denied (EACCES)`,
      `claude-ps: prune: could not remove ${reg.path(`${gone}.json`)}: cannot write its journal: permission denied (EACCES)`,
      `claude-ps: prune: could not remove ${reg.path(`pid-${gone}.json`)}: cannot write its journal: permission denied (EACCES)`,
    ]);
    expect(r.stdout).not.toContain('Nothing to prune');
    const json = asNobody([cli, 'prune', '--json', '--config-dir', reg.configDir]);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout).failed.map((f: { pid: number }) => f.pid).sort()).toEqual([gone, sleep.pid].sort());
    // A reader that goes away early must not turn the failure into exit 0.
    const piped = spawnSync('bash', ['-c', `setpriv ${AS_NOBODY.join(' ')} "$0" "$1" prune --json --config-dir "$2" | true; exit \${PIPESTATUS[0]}`, process.execPath, cli, reg.configDir], { encoding: 'utf8', env: cliEnv() });
    expect(piped.status).toBe(1);
    expect(readdirSync(reg.sessions).sort()).toEqual(files);
  });

  it('a folder it may write but not list: the listing failure is reported, nothing is touched', () => {
    const hidden = makeRegistry();
    try {
      chmodSync(hidden.configDir, 0o755);
      hidden.write(gone, sessionRecord(gone, { procStart: '12345' }));
      chmodSync(hidden.sessions, 0o733);
      const r = asNobody([FIXTURE, hidden.configDir]);
      const out = JSON.parse(r.stdout);
      expect(out.failed).toContainEqual({ path: hidden.sessions, pid: 0, reason: expect.stringMatching(/^cannot list the folder: .*\(EACCES\)$/) });
      expect(readdirSync(hidden.sessions)).toEqual([`${gone}.json`]);
    } finally {
      hidden.remove();
    }
  });
});
