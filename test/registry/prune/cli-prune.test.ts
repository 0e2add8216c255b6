/**
 * `claude-ps prune` and `claude-ps doctor` (the built CLI, as shipped) on what issue 11 is about:
 * key files in the table and --json, copies an interrupted prune left aside, legacy files, and
 * SIGINT/SIGTERM/SIGHUP honoured only between batches (the file in hand always reaches removed or put back).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPruneLeftover } from '../../../lib/registry/prune/names.js';
import { endAll, procStartTicks, reapedPid, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { builtCli, removeCopy, runCli, startCli } from '../../cli/run-cli.js';

let cli: string;
let sleep: Spawned;

beforeAll(async () => {
  cli = await builtCli();
  sleep = spawnSleep();
});
afterAll(async () => {
  await sleep?.end();
  await endAll();
  if (cli) removeCopy(cli);
});

const key = (pid: number, c = 'a') => `${pid}.${c.repeat(64)}.key`;

describe('claude-ps prune', () => {
  let reg: RegistryFixture;
  let gone: number;
  const stranded = () => `.${sleep.pid}.json.prune-0123456789abcdef`;

  beforeAll(() => {
    reg = makeRegistry('cps-cli-prune-');
    gone = reapedPid();
  });
  afterAll(() => reg?.remove());

  function plant(): string {
    reg.write(gone, sessionRecord(gone, { procStart: '12345' }));
    writeFileSync(reg.path(key(gone)), JSON.stringify({ peerToken: 'x', procStart: '12345' }));
    writeFileSync(reg.path(`pid-${gone}.json`), JSON.stringify({ session_id: 'old', cwd: '/' }));
    const live = JSON.stringify(sessionRecord(sleep.pid, { procStart: procStartTicks(sleep.pid) }));
    writeFileSync(reg.path(stranded()), live);
    return live;
  }

  it('doctor counts legacy files and stranded copies; prune --dry-run says what would happen and writes nothing', () => {
    plant();
    const before = readdirSync(reg.sessions).sort();
    const d = JSON.parse(runCli(cli, ['doctor', '--json', '--config-dir', reg.configDir]).stdout);
    expect(d.folders[0]).toMatchObject({ candidates: 1, ignored: 3, legacy: { files: 1, removable: 1, kept: 0, unrecognised: 0 }, stranded: 1, pruneLeftovers: 0 });
    expect(d.verdicts).toMatchObject({ alive: 1, gone: 1, recycled: 0 }); // the stranded copy is a claim like any other
    const text = runCli(cli, ['doctor', '--config-dir', reg.configDir]).stdout;
    expect(text).toContain('1 legacy pid-<n>.json (prune --legacy removes 1: PID gone)');
    expect(text).toContain('1 stranded by an interrupted prune, read as claims (prune puts them back)');

    const dry = runCli(cli, ['prune', '--dry-run', '--legacy', '--json', '--config-dir', reg.configDir]);
    expect(dry.status).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({
      dryRun: true,
      removed: [{ pid: gone, sessionId: expect.any(String), verdict: 'gone', path: reg.path(`${gone}.json`), keys: [reg.path(key(gone))] }],
      legacy: [{ pid: gone, sessionId: 'old', path: reg.path(`pid-${gone}.json`) }],
      recovered: [{ pid: sleep.pid, kind: 'record', action: 'put back', path: reg.path(stranded()), originalPath: reg.path(`${sleep.pid}.json`) }],
      failed: [],
      interrupted: null,
    });
    expect(readdirSync(reg.sessions).sort()).toEqual(before);
  });

  it('prune removes the dead record with its key (a row each), the legacy file, and puts the stranded copy back', () => {
    const live = readFileSync(reg.path(stranded()), 'utf8');
    const r = runCli(cli, ['prune', '--legacy', '--config-dir', reg.configDir]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Removed 1 dead record (and 1 key file, 1 legacy file):');
    expect(lines[1]).toMatch(/^PID\s+VERDICT\s+FILE$/);
    expect(lines[2]).toMatch(new RegExp(`^${gone}\\s+gone\\s+.*/${gone}\\.json$`));
    expect(lines[3]).toMatch(new RegExp(`^${gone}\\s+key\\s+.*/${gone}\\.a{64}\\.key$`));
    expect(lines[4]).toMatch(new RegExp(`^${gone}\\s+legacy\\s+.*/pid-${gone}\\.json$`));
    expect(lines[5]).toBe('Settled 1 copy an interrupted prune left aside:');
    expect(lines[7]).toMatch(new RegExp(`^${sleep.pid}\\s+put back\\s+.*/${sleep.pid}\\.json$`));
    expect(readdirSync(reg.sessions)).toEqual([`${sleep.pid}.json`]);
    expect(readFileSync(reg.path(`${sleep.pid}.json`), 'utf8')).toBe(live);
    expect(runCli(cli, ['prune', '--config-dir', reg.configDir]).stdout).toBe('Nothing to prune: no provably dead records.\n');
  });

  it('--help names --legacy and the exit codes', () => {
    const help = runCli(cli, ['prune', '--help']).stdout;
    expect(help).toContain('--legacy');
    expect(help).toContain('Exit 1 when a dead file could not be removed');
    expect(help).toContain('(exit 130/143/129)');
  });
});

describe('claude-ps prune and signals', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s stops it between batches: exit %d, nothing left aside, every file removed or intact', async (signal, code) => {
    const reg = makeRegistry('cps-cli-prune-signal-');
    try {
      // Enough dead claims (PIDs nobody has) that the prune is still running when the signal comes.
      const COUNT = 6000;
      const base = 3_000_000 + Math.floor(Math.random() * 100_000) * 10;
      for (let i = 0; i < COUNT; i++) reg.write(base + i, sessionRecord(base + i, { procStart: '12345' }));
      const live = JSON.stringify(sessionRecord(sleep.pid, { procStart: procStartTicks(sleep.pid) }));
      reg.write(sleep.pid, live);
      const child = startCli(cli, ['prune', '--json', '--config-dir', reg.configDir]);
      let stdout = '';
      child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (status) => resolve(status)));
      // Signal as soon as the first files are gone (the prune is under way).
      for (let n = 0; readdirSync(reg.sessions).length > COUNT - 64; n++) {
        if (n > 20_000) throw new Error('prune did not start');
        await new Promise((r) => setTimeout(r, 1));
      }
      child.kill(signal);
      const status = await exited;
      expect(status).toBe(code);
      const out = JSON.parse(stdout);
      expect(out.interrupted).toBe(signal);
      const names = readdirSync(reg.sessions);
      expect(names.filter(isPruneLeftover)).toEqual([]);
      expect(names).toContain(`${sleep.pid}.json`);
      expect(readFileSync(reg.path(`${sleep.pid}.json`), 'utf8')).toBe(live);
      const removed = new Set((out.removed as { path: string }[]).map((r) => r.path));
      expect(removed.size).toBeGreaterThan(0);
      expect(removed.size).toBeLessThan(COUNT); // it stopped early
      for (let i = 0; i < COUNT; i++) {
        const path = reg.path(`${base + i}.json`);
        expect(names.includes(`${base + i}.json`), path).toBe(!removed.has(path));
      }
    } finally {
      reg.remove();
    }
  });
});

describe('doctor on prune leftovers', () => {
  it('counts copies and journals that are not stranded claims as pruneLeftovers', () => {
    const reg = makeRegistry('cps-cli-doctor-');
    try {
      const gone = reapedPid();
      reg.write(gone, sessionRecord(gone, { procStart: '1' }));
      writeFileSync(reg.path(`.${gone}.json.prune-0123456789abcdef`), '{}'); // its name exists: not stranded
      writeFileSync(reg.path(`.${gone}.json.prune-0123456789abcdef.journal-${gone}`), '');
      mkdirSync(join(reg.sessions, 'sub'));
      const d = JSON.parse(runCli(cli, ['doctor', '--json', '--config-dir', reg.configDir]).stdout);
      expect(d.folders[0]).toMatchObject({ candidates: 1, ignored: 3, legacy: { files: 0, unrecognised: 0 }, stranded: 0, pruneLeftovers: 2 });
    } finally {
      reg.remove();
    }
  });
});
