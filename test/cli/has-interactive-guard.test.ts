/**
 * The attack pass on the README's guard line, run verbatim by `sh`: every failure we could provoke
 * (a bad backend, folders that cannot be listed, odd links, a closed or full stdout, wrong flags, a
 * guard frozen and killed) must never reach `rm`. `rm` on PATH is a stub that logs, then deletes.
 * The control — no live human, so the guard says 1 — shows the same line does delete.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionRecord } from '../helpers/registry-fixture.js';
import { endAll, hasSetpriv, isRoot, procStartTicks, reapedPid, spawnSleep, type Spawned } from '../helpers/processes.js';
import { builtCli, cliEnv, removeCopy, ROOT } from './run-cli.js';

/** The guard example exactly as the README prints it. */
const README_LINE = readFileSync(join(ROOT, 'README.md'), 'utf8')
  .split('\n')
  .find((line) => line.startsWith('claude-ps has-interactive --config-dir ~/.claude-work;'))!;
const REAL_RM = spawnSync('sh', ['-c', 'command -v rm'], { encoding: 'utf8' }).stdout.trim();

let cli: string;
let human: Spawned;
let bg: Spawned;
const homes: string[] = [];

beforeAll(async () => {
  cli = await builtCli();
  human = spawnSleep();
  bg = spawnSleep();
});
afterAll(async () => {
  await human?.end();
  await bg?.end();
  await endAll();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
  if (cli) removeCopy(cli);
});

interface Home {
  home: string;
  profile: string;
  sessions: string;
  /** Runs `line` in sh with this HOME and our stubs first on PATH: the guard's exit codes, and whether rm ran. */
  run(line: string, options?: { env?: NodeJS.ProcessEnv; asNobody?: boolean; cwd?: string }): { guard: number[]; rm: boolean; deleted: boolean; stderr: string };
}

/** A HOME with ~/.claude-work holding a live interactive session (or, with `withHuman: false`, only a bg one and a dead claim). */
function makeHome(withHuman = true): Home {
  const home = mkdtempSync(join(tmpdir(), 'cps-guard-line-'));
  homes.push(home);
  chmodSync(home, 0o755);
  const bin = join(home, 'bin');
  const logs = join(home, 'logs');
  mkdirSync(bin);
  mkdirSync(logs, { mode: 0o777 });
  chmodSync(logs, 0o777);
  // The command as installed (a wrapper that logs its exit code), and rm that logs before deleting.
  writeFileSync(join(bin, 'claude-ps'), `#!/bin/sh\n"${process.execPath}" "${cli}" "$@"\nrc=$?\necho $rc >> "${logs}/guard"\nexit $rc\n`, { mode: 0o755 });
  writeFileSync(join(bin, 'rm'), `#!/bin/sh\necho "$*" >> "${logs}/rm"\nexec "${REAL_RM}" "$@"\n`, { mode: 0o755 });
  const profile = join(home, '.claude-work');
  const sessions = join(profile, 'sessions');
  mkdirSync(sessions, { recursive: true, mode: 0o755 });
  chmodSync(profile, 0o755);
  const write = (pid: number, fields: Record<string, unknown>) =>
    writeFileSync(join(sessions, `${pid}.json`), JSON.stringify(sessionRecord(pid, fields)));
  if (withHuman) write(human.pid, { procStart: procStartTicks(human.pid) });
  write(bg.pid, { procStart: procStartTicks(bg.pid), kind: 'bg' });
  write(reapedPid(), {});
  return {
    home,
    profile,
    sessions,
    run(line, options = {}) {
      const env = cliEnv({ HOME: home, PATH: `${bin}:${process.env.PATH}`, ...options.env });
      for (const name of ['guard', 'rm']) rmSync(join(logs, name), { force: true }); // this run's logs only
      const argv = options.asNobody ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', 'sh', '-c', line] : ['sh', '-c', line];
      const r = spawnSync(argv[0]!, argv.slice(1), { cwd: options.cwd ?? home, env, encoding: 'utf8', timeout: 30_000 });
      const read = (name: string) => (existsSync(join(logs, name)) ? readFileSync(join(logs, name), 'utf8') : '');
      return {
        guard: read('guard').split('\n').filter(Boolean).map(Number),
        rm: read('rm') !== '',
        deleted: !existsSync(profile),
        stderr: r.stderr,
      };
    },
  };
}

const withFlag = (flag: string) => README_LINE.replace('has-interactive', `has-interactive ${flag}`);
const redirected = (redirect: string) => README_LINE.replace('~/.claude-work;', `~/.claude-work ${redirect};`);

describe("the README's guard line", () => {
  it('is the line tested here', () => {
    expect(README_LINE).toBe('claude-ps has-interactive --config-dir ~/.claude-work; [ $? -eq 1 ] && rm -rf ~/.claude-work');
  });

  it('control: with no live human (a bg session and a dead claim) it deletes; with one it does not', () => {
    const empty = makeHome(false);
    expect(empty.run(README_LINE)).toMatchObject({ guard: [1], rm: true, deleted: true });
    const used = makeHome();
    expect(used.run(README_LINE)).toMatchObject({ guard: [0], rm: false, deleted: false });
  });

  it('a bad CLAUDE_PS_BACKEND (a usage error, exit 2) never reaches rm, human or not', () => {
    for (const withHuman of [true, false]) {
      const h = makeHome(withHuman);
      const r = h.run(README_LINE, { env: { CLAUDE_PS_BACKEND: 'bogus' } });
      expect(r).toMatchObject({ guard: [2], rm: false, deleted: false });
      expect(r.stderr).toMatch(/^claude-ps: CLAUDE_PS_BACKEND must be one of/);
    }
  });

  it('sessions/ as a file (ENOTDIR), a link loop (ELOOP) or a link to nothing: exit 3, no rm', () => {
    const asFile = makeHome();
    rmSync(asFile.sessions, { recursive: true });
    writeFileSync(asFile.sessions, JSON.stringify(sessionRecord(human.pid)));
    expect(asFile.run(README_LINE)).toMatchObject({ guard: [3], rm: false, deleted: false });

    const loop = makeHome();
    rmSync(loop.sessions, { recursive: true });
    symlinkSync(loop.sessions, loop.sessions);
    expect(loop.run(README_LINE)).toMatchObject({ guard: [3], rm: false });

    const dangling = makeHome();
    rmSync(dangling.sessions, { recursive: true });
    symlinkSync(join(dangling.home, 'unmounted', 'sessions'), dangling.sessions);
    expect(dangling.run(README_LINE)).toMatchObject({ guard: [3], rm: false });
  });

  it('a symlinked sessions/ is followed: the human behind it is seen (exit 0)', () => {
    const h = makeHome();
    const elsewhere = join(h.home, 'elsewhere');
    rmSync(elsewhere, { recursive: true, force: true });
    mkdirSync(elsewhere);
    spawnSync('mv', [h.sessions, join(elsewhere, 'sessions')]);
    symlinkSync(join(elsewhere, 'sessions'), h.sessions);
    expect(h.run(README_LINE)).toMatchObject({ guard: [0], rm: false });
  });

  it.skipIf(!isRoot || !hasSetpriv)(
    'as nobody, sessions/ at mode 000 or 0311, or a profile it may not enter: exit 3, no rm (skipped unless root with setpriv: folders of another owner)',
    () => {
      for (const [what, mode] of [['sessions', 0o000], ['sessions', 0o311], ['profile', 0o700]] as const) {
        const h = makeHome();
        chownSync(h.profile, 65534, 65534); // nobody's own profile: rm could delete it
        chmodSync(what === 'sessions' ? h.sessions : h.profile, mode);
        if (what === 'profile') chownSync(h.profile, 0, 0);
        expect(h.run(README_LINE, { asNobody: true }), `${what} ${mode.toString(8)}`).toMatchObject({ guard: [3], rm: false, deleted: false });
      }
      // The same as nobody with a readable profile and no human: the line reaches rm (which empties
      // nobody's profile; the profile's own name is in root's HOME, so it stays).
      const control = makeHome(false);
      spawnSync('chown', ['-R', '65534:65534', control.profile]);
      expect(control.run(README_LINE, { asNobody: true })).toMatchObject({ guard: [1], rm: true });
      expect(existsSync(control.sessions)).toBe(false);
    },
  );

  it('a closed stdout keeps the answer; a full one is exit 4; neither reaches rm while a human is there', () => {
    const h = makeHome();
    expect(h.run(redirected('--verbose >&-'))).toMatchObject({ guard: [0], rm: false });
    expect(h.run(redirected('--verbose >/dev/full'))).toMatchObject({ guard: [4], rm: false });
    // And a full stdout with no human is still not a "no": the answer could not be delivered.
    const empty = makeHome(false);
    expect(empty.run(redirected('--verbose >/dev/full'))).toMatchObject({ guard: [4], rm: false, deleted: false });
  });

  it('a wrong flag or a missing value (exit 2) never reaches rm', () => {
    const h = makeHome(false);
    expect(h.run(withFlag('--verbsoe'))).toMatchObject({ guard: [2], rm: false });
    expect(h.run(withFlag('-q'))).toMatchObject({ guard: [2], rm: false });
    expect(h.run('claude-ps has-interactive --config-dir; [ $? -eq 1 ] && rm -rf ~/.claude-work')).toMatchObject({ guard: [2], rm: false });
    expect(h.run(README_LINE.replace('--config-dir ~/.claude-work;', '--config-dir= ;'))).toMatchObject({ guard: [2], rm: false, deleted: false });
  });

  it('a guard frozen (SIGSTOP) and killed at random moments never reads as no', () => {
    const h = makeHome();
    // The node process itself in the background, stopped after a random pause, then killed while stopped.
    const line = (pauseMs: number) =>
      `"${process.execPath}" "${cli}" has-interactive --config-dir ~/.claude-work & p=$!; sleep ${(pauseMs / 1000).toFixed(3)}; ` +
      'kill -STOP $p 2>/dev/null; kill -KILL $p 2>/dev/null; wait $p; rc=$?; echo $rc >> logs/guard; [ $rc -eq 1 ] && rm -rf ~/.claude-work';
    const codes = new Set<number>();
    for (const pauseMs of [0, 250, ...Array.from({ length: 10 }, () => Math.floor(Math.random() * 250))]) {
      const r = h.run(line(pauseMs));
      expect(r, `paused ${pauseMs} ms`).toMatchObject({ rm: false, deleted: false });
      expect([0, 137]).toContain(r.guard[0]); // finished with yes, or killed: never 1
      codes.add(r.guard[0]!);
    }
    expect(codes.has(137)).toBe(true); // at least one kill landed mid-run
  });

  it("docs/guard.md's strict line (code and printed answer) deletes on a proven no only", () => {
    const doc = readFileSync(join(ROOT, 'docs', 'guard.md'), 'utf8');
    const strict = doc.slice(doc.indexOf('answer=$(claude-ps'), doc.indexOf('rm -rf ~/.claude-work\n```', doc.indexOf('answer=$(claude-ps')) + 'rm -rf ~/.claude-work'.length);
    expect(strict.split('\n')).toHaveLength(2);
    expect(makeHome(false).run(strict)).toMatchObject({ guard: [1], rm: true, deleted: true });
    expect(makeHome().run(strict)).toMatchObject({ guard: [0], rm: false });
    expect(makeHome(false).run(strict, { env: { CLAUDE_PS_BACKEND: 'bogus' } })).toMatchObject({ guard: [2], rm: false });
  });

  it('CLAUDE_CONFIG_DIR= (empty) guards ~/.claude, not ./sessions under the current folder', () => {
    const h = makeHome();
    // ~/.claude holds the human; the current folder has an empty sessions/ of its own.
    symlinkSync(h.profile, join(h.home, '.claude'));
    const work = join(h.home, 'work');
    mkdirSync(join(work, 'sessions'), { recursive: true });
    const line = 'claude-ps has-interactive; [ $? -eq 1 ] && rm -rf ~/.claude/';
    expect(h.run(line, { env: { CLAUDE_CONFIG_DIR: '' }, cwd: work })).toMatchObject({ guard: [0], rm: false, deleted: false });
  });
});
