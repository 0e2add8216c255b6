/**
 * A small driver for real Claude Code sessions, built on the claude-lab's recipe: each session is an
 * interactive `claude` in a tmux window on a private socket, talking to a loopback mock of the
 * Anthropic API, with a config dir of its own under a fresh temp folder (never ~/.claude, never the
 * lab's default /tmp/cclab/cfg). Reusable by any test: `openLab()`, `lab.start(...)`, drive the sessions,
 * `lab.close()` in afterAll.
 *
 * Teardown never signals a process it did not start: every process the lab starts carries a marker in
 * its environment (the tmux server, the pane shells, claude and its children, the mock), and only PIDs
 * whose /proc/<pid>/environ still holds that marker are signalled, by PID or by their own process group.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  childrenOf,
  comm,
  endMarked,
  endMarkedClaudes,
  exists,
  LAB_MARKER,
  LAB_PREFIX,
  markedProcesses,
  removeDaemonFolder,
  RUN_FILE,
  RUN_MARKER,
} from './lab-processes.js';

import type { AgentEntry, Lab, LabOptions, Session, SessionSpec } from './lab-types.js';

export type { AgentEntry, Lab, LabOptions, Session, SessionSpec, Status } from './lab-types.js';
export { endMarked, LAB_MARKER, LAB_PREFIX, markedProcesses, RUN_FILE, RUN_MARKER, sweepRun } from './lab-processes.js';

const API_KEY = 'sk-ant-fake-key-000';
const MOCK = join(import.meta.dirname, 'mock-api.mjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readJson(path: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const DIALOGS: Array<{ re: RegExp; keys: string[] }> = [
  { re: /Do you want to use this API key/i, keys: ['Up', 'Enter'] },
  { re: /trust (the files in )?this folder|Do you trust/i, keys: ['Enter'] },
  { re: /Choose the text style|Let's get started/i, keys: ['Enter'] },
  { re: /Press Enter to continue/i, keys: ['Enter'] },
];

export async function openLab(binary: string, options: LabOptions = {}): Promise<Lab> {
  const root = mkdtempSync(join(tmpdir(), LAB_PREFIX));
  const id = randomBytes(8).toString('hex');
  const configDir = join(root, 'cfg');
  const sessionsDir = join(configDir, 'sessions');
  const sock = join(root, 'tmux.sock');
  const work = join(root, 'w');
  for (const d of [configDir, work, join(root, 'home'), join(root, 'run'), join(root, 'tmp')]) mkdirSync(d, { recursive: true });
  chmodSync(join(root, 'run'), 0o700);
  writeFileSync(join(root, RUN_FILE), process.env[RUN_MARKER] ?? '');
  writeFileSync(join(configDir, 'settings.json'), '{}\n');
  const trusted: Record<string, unknown> = {};
  const claudeJson = {
    hasCompletedOnboarding: true,
    lastOnboardingVersion: '2.1.332',
    theme: 'dark',
    customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
    projects: trusted,
  };
  const trust = (cwd: string) => {
    trusted[cwd] = { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true };
    writeFileSync(join(configDir, '.claude.json'), JSON.stringify(claudeJson, null, 2));
  };
  trust(work);

  const children: ChildProcess[] = [];
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(CLAUDE|ANTHROPIC|TMUX|CCLAB|MOCK_|IS_SANDBOX$)/.test(k) && k !== 'CLAUDECODE') base[k] = v;
  }
  const mockEnv = { ...base, [LAB_MARKER]: id, MOCK_TOOL_COMMAND: `touch ${join(root, 'tool-ran')}` };
  const portFile = join(root, 'mock.port');
  const mock = spawn(process.execPath, [MOCK, '--port', '0', '--port-file', portFile, '--log', join(root, 'mock.log')], {
    detached: true, // its own process group, ended as one
    stdio: 'ignore',
    env: mockEnv,
  });
  children.push(mock);
  const deadline = Date.now() + 20_000;
  while (!existsSync(portFile) || readFileSync(portFile, 'utf8') === '') {
    if (Date.now() > deadline || mock.exitCode !== null) {
      await endMarked(LAB_MARKER, id);
      rmSync(root, { recursive: true, force: true });
      throw new Error('the mock API did not start');
    }
    await sleep(30);
  }
  const port = Number(readFileSync(portFile, 'utf8'));

  // IS_SANDBOX=yes keeps Claude Code's own sweep of dead records off (it declines in a sandbox), so a
  // phantom stays until claude-ps prunes it, in a container or not: checked with /.dockerenv hidden,
  // where a session started without it deleted a SIGKILLed session's record and key.
  const env: NodeJS.ProcessEnv = {
    ...base,
    ...(options.claudeSweeps ? {} : { IS_SANDBOX: 'yes' }),
    HOME: join(root, 'home'),
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    XDG_RUNTIME_DIR: join(root, 'run'),
    XDG_CONFIG_HOME: join(root, 'home', '.config'),
    XDG_CACHE_HOME: join(root, 'home', '.cache'),
    XDG_DATA_HOME: join(root, 'home', '.local', 'share'),
    XDG_STATE_HOME: join(root, 'home', '.local', 'state'),
    CLAUDE_CODE_TMPDIR: join(root, 'tmp'),
    TMPDIR: join(root, 'tmp'),
    NO_PROXY: '127.0.0.1,localhost',
    [LAB_MARKER]: id,
  };

  const tmux = (args: string[], check = true) => {
    const r = spawnSync('tmux', ['-S', sock, '-f', '/dev/null', ...args], { encoding: 'utf8', env, timeout: 20_000 });
    if (check && r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr.trim()}`);
    return r;
  };
  let serverUp = false;

  const makeSession = (name: string, pid: number, cwd: string, kind: Session['kind'], paneId?: string): Session => {
    const file = join(sessionsDir, `${pid}.json`);
    const session: Session = {
      name,
      pid,
      cwd,
      kind,
      file,
      async send(text) {
        if (!paneId) throw new Error(`${name} has no terminal`);
        tmux(['send-keys', '-t', paneId, '-l', '--', text]);
        await sleep(200); // the lab's typing delay: Enter right after the text is sometimes lost
        tmux(['send-keys', '-t', paneId, 'Enter']);
      },
      async approve(timeoutMs = 60_000) {
        if (!paneId) throw new Error(`${name} has no terminal`);
        // The record says waiting a moment before the dialog takes keys: wait for its options on the
        // screen, press Enter, and press again if the session is still waiting a while later.
        const until = Date.now() + timeoutMs;
        while (!/1\.\s*Yes/.test(session.screen())) {
          if (Date.now() > until) throw new Error(`${name}: no permission dialog on screen:\n${session.screen()}`);
          await sleep(50);
        }
        for (;;) {
          tmux(['send-keys', '-t', paneId, 'Enter']);
          const retry = Date.now() + 3_000;
          while (readJson(file)?.status === 'waiting' && Date.now() < retry) await sleep(25);
          if (readJson(file)?.status !== 'waiting') return;
          if (Date.now() > until) throw new Error(`${name}: still waiting after Enter:\n${session.screen()}`);
        }
      },
      waitFor(status, timeoutMs = 60_000) {
        return status === 'gone'
          ? session.waitUntil((r) => r === null && !existsSync(file), 'gone', timeoutMs)
          : session.waitUntil((r) => r?.status === status, status, timeoutMs);
      },
      async waitUntil(check, what, timeoutMs = 60_000) {
        const until = Date.now() + timeoutMs;
        for (;;) {
          const rec = readJson(file);
          if (check(rec)) return rec;
          if (Date.now() > until) {
            throw new Error(`${name} (pid ${pid}) never reached ${what}; record: ${JSON.stringify(rec)}\n${session.screen()}`);
          }
          await sleep(25);
        }
      },
      async turn(prompt, options = {}) {
        const before = readJson(file)?.statusUpdatedAt;
        await session.send(prompt);
        // The turn has begun once the status changed at all: a short busy spell may fall between two
        // polls (the caller's event loop can be blocked a while), so busy itself is not awaited.
        await session.waitUntil((r) => r !== null && r.statusUpdatedAt !== before, `a turn of ${JSON.stringify(prompt)}`);
        if (options.approve) {
          await session.waitFor('waiting');
          await session.approve();
        }
        await session.waitFor('idle');
      },
      signal(signal) {
        if (!markedProcesses(LAB_MARKER, id).includes(pid)) throw new Error(`${name}: PID ${pid} is no longer ours`);
        process.kill(pid, signal);
      },
      record: () => readJson(file),
      screen: () => (paneId ? (tmux(['capture-pane', '-p', '-t', paneId], false).stdout ?? '') : ''),
    };
    return session;
  };

  const startOne = async (spec: SessionSpec): Promise<Session> => {
    if (!/^[A-Za-z0-9_-]{1,40}$/.test(spec.name)) throw new Error(`bad session name ${JSON.stringify(spec.name)}`);
    const cwd = join(work, spec.name);
    mkdirSync(cwd, { recursive: true });
    trust(cwd);
    const sessionEnv = { ...env, ...(spec.kind === 'bg' ? { CLAUDE_CODE_SESSION_KIND: 'bg' } : {}), ...spec.env };
    const args = ['--permission-mode', spec.permissionMode ?? 'default', ...(spec.args ?? [])];
    // The pane runs sh, and sh runs claude as its child (not exec): tmux sends SIGCONT to a pane's own
    // process when it stops, so only then does a SIGSTOP stick. `env -i` gives claude exactly our env,
    // whatever the tmux server's global environment holds, plus the pane's own TMUX and TMUX_PANE
    // (from which Claude Code writes the record's `tmux` field).
    const assignments = Object.entries(sessionEnv)
      .filter((e): e is [string, string] => e[1] !== undefined)
      .map(([k, v]) => shq(`${k}=${v}`));
    const command = `env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ${assignments.join(' ')} ${shq(binary)} ${args.map(shq).join(' ')}; exit $?`;
    const format = ['-P', '-F', '#{pane_id} #{pane_pid}'];
    let r;
    for (let attempt = 0; ; attempt++) {
      r = serverUp
        ? tmux(['new-window', '-d', '-t', 'lab:', '-n', spec.name, '-c', cwd, ...format, command], false)
        : tmux(['new-session', '-d', '-s', 'lab', '-x', '200', '-y', '50', '-n', spec.name, '-c', cwd, ...format, command], false);
      if (r.status === 0) break;
      // Parallel starts race to create the server: the losers open a window in it instead.
      if (!serverUp && /duplicate session/.test(r.stderr)) serverUp = true;
      if (attempt > 20) throw new Error(`tmux could not start ${spec.name}: ${r.stderr.trim()}`);
      await sleep(100);
    }
    serverUp = true;
    const [paneId, panePidText] = r.stdout.trim().split(' ');
    const panePid = Number(panePidText);
    let pid: number | undefined;
    const found = Date.now() + 20_000;
    while (pid === undefined) {
      pid = childrenOf(panePid).find((c) => comm(c) === 'claude');
      if (pid !== undefined) break;
      if (!exists(panePid) || Date.now() > found) throw new Error(`${spec.name}: no claude process under pane ${panePid}`);
      await sleep(10);
    }
    const session = makeSession(spec.name, pid, cwd, spec.kind ?? 'interactive', paneId);
    const registered = Date.now() + 90_000;
    const answered = new Map<RegExp, number>();
    for (;;) {
      if (readJson(session.file)?.pid === pid) return session;
      if (!exists(pid)) throw new Error(`${spec.name}: claude (pid ${pid}) exited before registering:\n${session.screen()}`);
      const screen = session.screen();
      const dialog = DIALOGS.find((d) => d.re.test(screen) && (answered.get(d.re) ?? 0) < 3);
      if (dialog) {
        answered.set(dialog.re, (answered.get(dialog.re) ?? 0) + 1);
        for (const key of dialog.keys) {
          tmux(['send-keys', '-t', paneId!, key], false);
          await sleep(80);
        }
        await sleep(300);
      }
      if (Date.now() > registered) throw new Error(`${spec.name}: no record for pid ${pid}:\n${screen}`);
      await sleep(100);
    }
  };

  let jobs = 0;
  let daemonUsed = false;
  const agentsRun = () =>
    spawnSync(binary, ['agents', '--json'], { encoding: 'utf8', env, cwd: work, timeout: 60_000 });

  const lab: Lab = {
    root,
    configDir,
    sessionsDir,
    binary,
    env,
    async start(...specs) {
      const all = specs.map((s) => (typeof s === 'string' ? { name: s } : s));
      const results = await Promise.allSettled(all.map(startOne));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      return results.map((r) => (r as PromiseFulfilledResult<Session>).value);
    },
    async print(prompt, kind) {
      const cwd = join(work, `print-${children.length}`);
      mkdirSync(cwd, { recursive: true });
      trust(cwd);
      const child = spawn(binary, ['-p', prompt], {
        cwd,
        env: { ...env, ...(kind === 'bg' ? { CLAUDE_CODE_SESSION_KIND: kind } : {}) },
        stdio: 'ignore',
        detached: true,
      });
      children.push(child);
      if (child.pid === undefined) throw new Error('claude -p did not start');
      const session = makeSession(`print-${child.pid}`, child.pid, cwd, 'print');
      const until = Date.now() + 90_000;
      while (readJson(session.file)?.pid !== child.pid) {
        if (child.exitCode !== null || Date.now() > until) throw new Error(`claude -p (pid ${child.pid}) never registered`);
        await sleep(50);
      }
      return session;
    },
    async background(prompt) {
      const cwd = join(work, `job-${jobs++}`);
      mkdirSync(cwd, { recursive: true });
      trust(cwd);
      daemonUsed = true;
      const r = spawnSync(binary, ['--bg', '--permission-mode', 'default', prompt], { cwd, env, encoding: 'utf8', timeout: 90_000 });
      const jobId = /claude logs ([0-9a-f]{8})/.exec(`${r.stdout}${r.stderr}`)?.[1];
      if (r.status !== 0 || !jobId) throw new Error(`claude --bg exited ${r.status}: ${r.stdout}${r.stderr}`);
      // The job runs in a worker the daemon spawned ahead; its record appears once the job claims it.
      const until = Date.now() + 90_000;
      for (;;) {
        for (const name of existsSync(sessionsDir) ? readdirSync(sessionsDir) : []) {
          const rec = /^[0-9]+\.json$/.test(name) ? readJson(join(sessionsDir, name)) : null;
          if (rec?.jobId === jobId && typeof rec.pid === 'number') return makeSession(`job-${jobId}`, rec.pid, cwd, 'job');
        }
        if (Date.now() > until) throw new Error(`claude --bg job ${jobId} never registered`);
        await sleep(50);
      }
    },
    agents() {
      const r = agentsRun();
      if (r.status !== 0) throw new Error(`claude agents --json exited ${r.status}: ${r.stderr}`);
      return JSON.parse(r.stdout) as AgentEntry[];
    },
    timeAgents() {
      const t0 = process.hrtime.bigint();
      const r = agentsRun();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`claude agents --json exited ${r.status}: ${r.stderr}`);
      return ms;
    },
    statusLine(command, extra = {}) {
      const settings = readJson(join(configDir, 'settings.json')) ?? {};
      if (command === null) delete settings.statusLine;
      else settings.statusLine = { type: 'command', command, ...extra };
      writeFileSync(join(configDir, 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
    },
    processes: () => markedProcesses(LAB_MARKER, id),
    async close() {
      // Background jobs live under Claude Code's daemon: ask it to stop them first.
      if (daemonUsed) spawnSync(binary, ['daemon', 'stop', '--any'], { cwd: work, env, stdio: 'ignore', timeout: 30_000 });
      await endMarkedClaudes(LAB_MARKER, id);
      spawnSync('tmux', ['-S', sock, '-f', '/dev/null', 'kill-server'], { stdio: 'ignore', timeout: 10_000 });
      await endMarked(LAB_MARKER, id);
      if (daemonUsed) removeDaemonFolder(configDir, true);
      for (const child of children) child.unref();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return lab;
}
