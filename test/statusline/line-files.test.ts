/**
 * `watch --statusline-dir DIR` with the built CLI and real processes: one file per live local session,
 * replaced atomically, removed with the session, none for dead or foreign records, and nothing stale
 * that looks fresh once the watcher is gone — stopped cleanly, killed with -9, or stopped then killed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupsAfterEach, textOf, until } from './helpers.js';
import { builtCli, cliEnv, removeCopy, startCli } from '../cli/run-cli.js';
import { endAll, hasSetpriv, isRoot, procStartTicks, procState, spawnSleep, type Spawned } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';

let cli: string;
let a: Spawned;
let b: Spawned;
let c: Spawned;
const cleanups = cleanupsAfterEach();

beforeAll(async () => {
  cli = await builtCli();
  [a, b, c] = [spawnSleep(), spawnSleep(), spawnSleep()];
});

afterAll(async () => {
  for (const s of [a, b, c]) await s?.end();
  await endAll();
  if (cli) removeCopy(cli);
});

const alive = (pid: number) => {
  const state = procState(pid);
  return state !== undefined && state !== 'Z';
};

function setup(): { reg: RegistryFixture; dir: string; live(s: Spawned, fields?: Record<string, unknown>): string } {
  const reg = makeRegistry('cps-lines-reg-');
  const dir = join(mkdtempSync(join(tmpdir(), 'cps-lines-')), 'lines');
  cleanups.push(() => {
    reg.remove();
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });
  return {
    reg,
    dir,
    live: (s, fields = {}) => reg.write(s.pid, sessionRecord(s.pid, { procStart: procStartTicks(s.pid), ...fields })),
  };
}

interface Running {
  child: ChildProcess;
  stderr(): string;
  guardian(): number | undefined;
}

function watch(reg: RegistryFixture, dir: string, extra: string[] = []): Running {
  const child = startCli(cli, ['watch', '--interval', '100', '--config-dir', reg.configDir, '--statusline-dir', dir, ...extra]);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.resume();
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  });
  // The guardian is the watcher's child `sh` (found before the watcher is killed: then it is re-parented).
  let guardian: number | undefined;
  return {
    child,
    stderr: () => stderr,
    guardian: () => {
      if (guardian !== undefined) return guardian;
      try {
        const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
        guardian = kids.find((k) => readFileSync(`/proc/${k}/cmdline`, 'latin1').includes('claude-ps-guardian'));
      } catch {
        // not there (yet)
      }
      return guardian;
    },
  };
}

const read = (dir: string, pid: number) => {
  try {
    return readFileSync(join(dir, String(pid)), 'utf8');
  } catch {
    return undefined;
  }
};
const lineFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => !n.startsWith('.')) : []);

describe('watch --statusline-dir', () => {
  it('keeps one file per live local session with the line about the others; none for dead or foreign records', async () => {
    const { reg, dir, live } = setup();
    live(a, { status: 'busy', name: 'alpha' });
    live(b, { status: 'waiting', waitingFor: 'permission prompt', name: 'beta' });
    reg.write(4_999_999, sessionRecord(4_999_999, { status: 'waiting', name: 'phantom' })); // gone
    live(c, { status: 'busy', name: 'far', pidDomain: 'linux:another-machine:pid:[1]' }); // foreign
    const w = watch(reg, dir);
    await until(() => read(dir, a.pid) !== undefined && read(dir, b.pid) !== undefined, 'the line files');
    expect(read(dir, a.pid)).toBe('⏳ beta (permission prompt) · 1 busy\n'); // far's busy counts, alpha's own does not
    expect(read(dir, b.pid)).toBe('2 busy\n');
    expect(lineFiles(dir).sort()).toEqual([String(a.pid), String(b.pid)].sort());
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, String(a.pid))).mode & 0o777).toBe(0o600);
    expect(w.stderr()).toBe('');
  });

  it('rewrites a file on every change, atomically: a reader never sees it missing or partial', async () => {
    const { reg, dir, live } = setup();
    live(a, { status: 'idle', name: 'alpha' });
    live(b, { status: 'idle', name: 'beta' });
    watch(reg, dir);
    await until(() => read(dir, a.pid) === '1 idle\n', 'the first line');
    // A reader in another process reads a's file in a tight loop while b flips between states.
    const script = `
      const fs = require('fs'); const p = process.argv[1]; const seen = new Set(); const end = Date.now() + 2500;
      while (Date.now() < end) { try { seen.add(fs.readFileSync(p, 'utf8')); } catch (e) { seen.add('ERR ' + e.code); } }
      console.log(JSON.stringify([...seen]));`;
    const loop = spawn(process.execPath, ['-e', script, join(dir, String(a.pid))], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    loop.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const states = ['busy', 'waiting', 'idle', 'shell'];
    for (let i = 0; i < 20; i++) {
      live(b, { status: states[i % 4], name: 'beta', waitingFor: i % 4 === 1 ? 'permission prompt' : undefined });
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => loop.once('exit', r));
    const seen = JSON.parse(out) as string[];
    expect(seen.filter((s) => s.startsWith('ERR'))).toEqual([]);
    expect(new Set(seen)).toEqual(new Set(seen.filter((s) => ['1 idle\n', '1 busy\n', '⏳ beta (permission prompt)\n', '1 shell\n'].includes(s))));
    expect(seen.length).toBeGreaterThan(1);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('removes a file when its session goes (record removed, or process dead)', async () => {
    const { reg, dir, live } = setup();
    const d = spawnSleep();
    live(a, { status: 'busy' });
    live(d, { status: 'busy' });
    watch(reg, dir);
    await until(() => read(dir, a.pid) === '1 busy\n' && read(dir, d.pid) === '1 busy\n', 'both files');
    await d.end(); // the record stays: a phantom
    await until(() => read(dir, d.pid) === undefined, "the dead session's file to go");
    expect(read(dir, a.pid)).toBe('');
    rmSync(reg.path(`${a.pid}.json`));
    await until(() => read(dir, a.pid) === undefined, "the removed session's file to go");
  });

  it('rewrites a session\'s own file whenever its record changes, so the file is newer than the record, even one stamped at or after the write (a coarse or skewed clock)', async () => {
    const { reg, dir, live } = setup();
    live(a, { status: 'idle' });
    live(b, { status: 'idle' });
    watch(reg, dir);
    await until(() => read(dir, a.pid) === '1 idle\n', 'the file');
    const record = reg.path(`${a.pid}.json`);
    const newer = () => statSync(join(dir, String(a.pid)), { bigint: true }).mtimeNs > statSync(record, { bigint: true }).mtimeNs;
    for (const status of ['busy', 'idle', 'busy']) {
      await new Promise((r) => setTimeout(r, 50));
      live(a, { status }); // the line for a does not change: b is still idle
      await until(newer, 'the file to be newer');
    }
    // The record arrives as Claude Code writes it (a rename), stamped 3 s ahead: a file written now
    // would be older than it, as one written within the record's clock tick would be as old.
    const next = join(reg.configDir, 'next-record');
    writeFileSync(next, JSON.stringify(sessionRecord(a.pid, { procStart: procStartTicks(a.pid), status: 'idle' })));
    const ahead = new Date(Date.now() + 3000);
    utimesSync(next, ahead, ahead);
    renameSync(next, record);
    await until(newer, 'the file to be newer than its record stamped ahead');
    expect(spawnSync('sh', ['-c', `[ "${join(dir, String(a.pid))}" -nt "${record}" ]`]).status).toBe(0);
  });

  it.skipIf(!isRoot)('removes a file it cannot rewrite (a full disk): an old line never stays up, nor after a clean stop', async () => {
    const { reg, live } = setup();
    const mnt = mkdtempSync(join(tmpdir(), 'cps-lines-full-'));
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', mnt]).status).toBe(0);
    cleanups.push(() => {
      spawnSync('umount', [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    });
    const dir = join(mnt, 'lines');
    live(a, { status: 'idle', name: 'alpha' });
    live(b, { status: 'busy', name: 'beta' });
    const w = watch(reg, dir);
    await until(() => read(dir, a.pid) === '1 busy\n', "a's line");
    for (let i = 0; ; i++) {
      try {
        writeFileSync(join(mnt, `filler-${i}`), Buffer.alloc(4096, 1));
      } catch {
        break; // ENOSPC: the disk is full
      }
    }
    live(b, { status: 'waiting', waitingFor: 'permission prompt', name: 'beta' });
    await until(() => w.stderr().includes('ENOSPC'), 'the failed rewrite');
    // "1 busy" is no longer true: the file must not stay (the snippet would show it, newer than a's record).
    // It goes; once its removal has freed a block, a later rewrite may put the current line back.
    const current = (text: string | undefined) => text === undefined || text.includes('beta (permission prompt)');
    await until(() => current(read(dir, a.pid)), "a's outdated file to go");
    expect(read(dir, a.pid)).not.toBe('1 busy\n');
    w.child.kill('SIGTERM');
    await new Promise((r) => w.child.once('exit', r));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('cleans up on SIGTERM and SIGINT: no line file, no lock, no guardian left', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const { reg, dir, live } = setup();
      live(a, { status: 'busy' });
      live(b, { status: 'busy' });
      const w = watch(reg, dir);
      await until(() => read(dir, a.pid) !== undefined && w.guardian() !== undefined, 'the files and the guardian');
      const guardian = w.guardian()!;
      w.child.kill(signal);
      await new Promise((r) => w.child.once('exit', r));
      expect(w.child.exitCode).toBe(0);
      expect(readdirSync(dir)).toEqual([]);
      await until(() => !alive(guardian), 'the guardian to end');
    }
  });

  for (const how of ['SIGKILL', 'SIGSTOP then SIGKILL'] as const) {
    it(`leaves no line file after ${how} of the watcher: its guardian removes them`, async () => {
      const { reg, dir, live } = setup();
      live(a, { status: 'busy' });
      live(b, { status: 'waiting', waitingFor: 'permission prompt', name: 'beta' });
      const w = watch(reg, dir);
      await until(() => read(dir, a.pid) !== undefined && w.guardian() !== undefined, 'the files and the guardian');
      const guardian = w.guardian()!;
      if (how !== 'SIGKILL') {
        w.child.kill('SIGSTOP');
        await new Promise((r) => setTimeout(r, 200));
        expect(read(dir, a.pid)).toBe('⏳ beta (permission prompt)\n'); // stopped: files stay (the -nt test covers this)
      }
      w.child.kill('SIGKILL');
      await until(() => lineFiles(dir).length === 0 && !existsSync(join(dir, '.watcher')), 'the guardian to clean up');
      await until(() => !alive(guardian), 'the guardian to end');
    });
  }

  it('refuses a second watcher on the same folder, and a new one takes over from a dead one', async () => {
    const { reg, dir, live } = setup();
    live(a, { status: 'busy' });
    live(b, { status: 'idle' });
    const first = watch(reg, dir);
    await until(() => read(dir, a.pid) !== undefined, 'the first watcher\'s files');
    const second = spawnSync(process.execPath, [cli, 'watch', '--config-dir', reg.configDir, '--statusline-dir', dir], { encoding: 'utf8', timeout: 20_000 });
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`another watcher \\(pid ${first.child.pid}\\) keeps`));
    expect(read(dir, a.pid)).toBe('1 idle\n');
    // The first one dies with its guardian (both killed at once, so nothing cleans up): the next watcher does.
    const guardian = first.guardian()!;
    process.kill(guardian, 'SIGKILL');
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    await until(() => !alive(guardian), 'the guardian to end');
    writeFileSync(join(dir, String(c.pid)), 'stale from a dead watcher\n'); // a session the registry no longer has
    const third = watch(reg, dir);
    await until(() => read(dir, c.pid) === undefined, 'the leftover to be removed');
    await until(() => read(dir, a.pid) === '1 idle\n', 'the new watcher\'s files');
    expect(third.stderr()).toBe('');
  });

  it('takes a lock that is no regular file (a symlink to /dev/zero, a FIFO) for junk: no hang, nothing followed', async () => {
    const { reg, dir, live } = setup();
    live(a, { status: 'busy' });
    live(b, { status: 'idle' });
    mkdirSync(dir, { mode: 0o700 });
    for (const plant of [() => symlinkSync('/dev/zero', join(dir, '.watcher')), () => spawnSync('mkfifo', [join(dir, '.watcher')])]) {
      plant();
      const w = watch(reg, dir);
      await until(() => read(dir, a.pid) === '1 idle\n', 'the watcher\'s files');
      expect(lstatSync(join(dir, '.watcher')).isFile()).toBe(true);
      expect(readFileSync(join(dir, '.watcher'), 'utf8')).toContain(`"pid":${w.child.pid}`);
      expect(w.stderr()).toBe('');
      w.child.kill('SIGTERM');
      await new Promise((r) => w.child.once('exit', r));
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('an --exec command still running holds no lock: after kill -9 of the watcher a new one takes the folder', async () => {
    const { reg, dir, live } = setup();
    live(a, { status: 'busy' });
    const first = watch(reg, dir, ['--exec', 'sleep 30']);
    await until(() => read(dir, a.pid) !== undefined && first.guardian() !== undefined, 'the first watcher');
    let command: number | undefined;
    await until(() => {
      const kids = readFileSync(`/proc/${first.child.pid}/task/${first.child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      command = kids.find((k) => readFileSync(`/proc/${k}/cmdline`, 'latin1').startsWith('sleep\0'));
      return command !== undefined;
    }, 'the --exec command');
    cleanups.push(() => {
      try {
        process.kill(command!, 'SIGKILL');
      } catch {
        // ended
      }
    });
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(alive(command!)).toBe(true);
    const second = watch(reg, dir);
    await until(() => textOf(join(dir, '.watcher')).includes(`"pid":${second.child.pid}`), 'the new watcher to take the folder');
    expect(second.stderr()).toBe('');
  });

  it('takes .watcher for information only: an empty or bogus one neither blocks a watcher nor is trusted', async () => {
    const { reg, dir } = setup();
    mkdirSync(dir);
    writeFileSync(join(dir, '.watcher'), JSON.stringify({ pid: process.pid, token: null, since: 0, sessionsDirs: [] })); // a live PID, no lock
    const w = watch(reg, dir);
    await until(() => readFileSync(join(dir, '.watcher'), 'utf8').includes(`"pid":${w.child.pid}`), 'the new information');
    expect(w.stderr()).toBe('');
  });

  it('one lock for watchers with and without the addon: each refuses while the other keeps the folder', async () => {
    const { reg, dir, live } = setup();
    live(a, { status: 'busy' });
    for (const [firstBackend, secondBackend] of [['native', 'js'], ['js', 'native']] as const) {
      const first = startCli(cli, ['watch', '--config-dir', reg.configDir, '--statusline-dir', dir], { env: cliEnv({ CLAUDE_PS_BACKEND: firstBackend }) });
      first.stdout!.resume();
      cleanups.push(() => {
        first.kill('SIGKILL');
      });
      await until(() => textOf(join(dir, '.watcher')).includes(`"pid":${first.pid}`), `the ${firstBackend} watcher`);
      const second = spawnSync(process.execPath, [cli, 'watch', '--config-dir', reg.configDir, '--statusline-dir', dir], {
        encoding: 'utf8',
        timeout: 20_000,
        env: cliEnv({ CLAUDE_PS_BACKEND: secondBackend }),
      });
      expect(second.status).toBe(1);
      expect(second.stderr).toMatch(new RegExp(`another watcher \\(pid ${first.pid}\\) keeps`));
      first.kill('SIGTERM');
      await new Promise((r) => first.once('exit', r));
      await until(() => !existsSync(join(dir, '.watcher')), 'the folder to be given back');
    }
  });

  it('refuses a folder that holds other files, and deletes nothing in it', () => {
    const { reg, dir } = setup();
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    writeFileSync(join(dir, '123'), 'looks like a line file');
    const r = spawnSync(process.execPath, [cli, 'watch', '--config-dir', reg.configDir, '--statusline-dir', dir], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/holds other files \("notes.txt"\)/);
    expect(readdirSync(dir).sort()).toEqual(['123', 'notes.txt']);
  });

  it('refuses a folder others may write or another user owns (their planted file would be shown), and deletes nothing', () => {
    const { reg, dir } = setup();
    mkdirSync(dir);
    writeFileSync(join(dir, '123'), '\x1b]0;planted\x07');
    const start = () =>
      spawnSync(process.execPath, [cli, 'watch', '--config-dir', reg.configDir, '--statusline-dir', dir], { encoding: 'utf8', timeout: 10_000 });
    const modes = [0o777, 0o720, 0o702];
    if (isRoot) modes.push(-1); // 0700 but nobody's
    for (const mode of modes) {
      if (mode === -1) {
        chmodSync(dir, 0o700);
        spawnSync('chown', ['65534:65534', dir]);
      } else chmodSync(dir, mode);
      const r = start();
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/--statusline-dir: .* (may be written by others|is not this user's)/);
      expect(readdirSync(dir)).toEqual(['123']);
    }
  });

  it.skipIf(!isRoot || !hasSetpriv)('run as nobody with a folder it cannot create: one line, exit 1, nothing written', () => {
    const { reg, dir } = setup();
    mkdirSync(join(dir, '..'), { recursive: true });
    chmodSync(join(dir, '..'), 0o755); // root's: nobody cannot create DIR in it
    chmodSync(reg.configDir, 0o755);
    chmodSync(reg.sessions, 0o755);
    const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, cli, 'watch', '--config-dir', reg.configDir, '--statusline-dir', dir], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^claude-ps: .*EACCES.*\n$/);
    expect(existsSync(dir)).toBe(false);
  });

  it('rejects a bad --format and --format without --statusline-dir as usage errors', () => {
    const { reg, dir } = setup();
    const bad = spawnSync(process.execPath, [cli, 'watch', '--config-dir', reg.configDir, '--statusline-dir', dir, '--format', '{x}'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown key \{x\}/);
    const alone = spawnSync(process.execPath, [cli, 'watch', '--config-dir', reg.configDir, '--format', '{others}'], { encoding: 'utf8' });
    expect(alone.status).toBe(2);
    expect(alone.stderr).toMatch(/--format needs --statusline-dir/);
  });
});

describe('the settings snippet', () => {
  // What Claude Code runs: /bin/sh -c with CLAUDE_PID and CLAUDE_CONFIG_DIR; "FALLBACK" stands for `claude-ps statusline`.
  const snippet = (dir: string) =>
    `f=${dir}/$CLAUDE_PID; [ "$f" -nt "\${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions/$CLAUDE_PID.json" ] && cat "$f" || echo FALLBACK`;
  const render = (dir: string, reg: RegistryFixture, pid: number) =>
    spawnSync('/bin/sh', ['-c', snippet(dir)], { encoding: 'utf8', env: { PATH: process.env.PATH, CLAUDE_PID: String(pid), CLAUDE_CONFIG_DIR: reg.configDir } }).stdout;

  it('renders the file while a watcher keeps it, and falls back once its own record is newer (a stopped watcher)', async () => {
    const { reg, dir, live } = setup();
    live(a, { status: 'idle' });
    live(b, { status: 'waiting', name: 'beta' });
    const w = watch(reg, dir);
    await until(() => read(dir, a.pid) === '⏳ beta\n', 'the file');
    await until(() => render(dir, reg, a.pid) === '⏳ beta\n', 'the snippet to render the file');
    w.child.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, 30));
    live(b, { status: 'idle', name: 'beta' }); // beta is done; the stopped watcher does not see it
    live(a, { status: 'busy' }); // a's own turn: Claude Code renders after its record changes
    expect(render(dir, reg, a.pid)).toBe('FALLBACK\n');
    expect(render(dir, reg, 4_999_998)).toBe('FALLBACK\n'); // no file at all
    w.child.kill('SIGCONT');
    await until(() => render(dir, reg, a.pid) === '1 idle\n', 'the resumed watcher to catch up');
  });

  it('falls back for a file older than the record (a session whose PID was reused after a watcher died)', () => {
    const { reg, dir, live } = setup();
    mkdirSync(dir);
    writeFileSync(join(dir, String(a.pid)), '⏳ stale (permission prompt)\n');
    utimesSync(join(dir, String(a.pid)), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    live(a, { status: 'busy' });
    expect(render(dir, reg, a.pid)).toBe('FALLBACK\n');
  });
});

describe('line files where mtimes compare in whole seconds (macOS /bin/sh)', () => {
  it('dates a file at least a second after its own record, so `-nt` holds there too', async () => {
    const { LineFiles } = await import('../../lib/cli/statusline/line-files.js');
    const { parseStatuslineTemplate } = await import('../../lib/cli/statusline/template.js');
    const { readRecords } = await import('../../lib/registry/read/scan.js');
    const { reg, dir, live } = setup();
    live(a, { status: 'busy' });
    live(b, { status: 'idle' });
    const files = await LineFiles.open(dir, parseStatuslineTemplate('{others}'), { mtimeGranularity: 'seconds' });
    cleanups.push(() => files.close());
    files.update(readRecords(reg.configDir));
    const recordSecond = Math.floor(statSync(reg.path(`${a.pid}.json`)).mtimeMs / 1000);
    expect(Math.floor(statSync(join(dir, String(a.pid))).mtimeMs / 1000)).toBeGreaterThan(recordSecond);
    expect(read(dir, a.pid)).toBe('1 idle\n');
    files.close();
    expect(readdirSync(dir)).toEqual([]);
  });
});
