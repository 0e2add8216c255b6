/**
 * The demo's throw-away registry: real processes of its own (live sleeps, a reaped PID, a live PID
 * claimed with a wrong start token, a zombie) and junk files, in a fresh temp folder. Everything it
 * starts is remembered and ended by PID in `cleanup()`, which is synchronous so signal handlers can
 * call it; the folder is removed there too.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { probe } from '../backend/index.js';
import { formatLstart } from '../proc/lstart.js';
import { ourPidDomain } from '../registry/domain.js';

/** What each claim is meant to show, and the verdict the filter should reach. */
export interface DemoClaim {
  pid: number;
  role: string;
  expected: 'alive' | 'gone' | 'recycled' | 'zombie';
}

export interface DemoJunk {
  file: string;
  why: string;
}

export interface DemoRegistry {
  configDir: string;
  sessionsDir: string;
  claims: DemoClaim[];
  junk: DemoJunk[];
  /** PIDs of every process the demo started (to end), including the zombie's parent. */
  started(): number[];
  /** Starts the processes and writes the files. On failure everything is cleaned up and it throws. */
  populate(): Promise<void>;
  /** Ends every process by PID and removes the folder. Idempotent, synchronous. */
  cleanup(): void;
}

/** Marks the demo's processes (in their environment) so a test can tell they are gone. */
export const DEMO_MARKER = 'CLAUDE_PS_DEMO_PARENT';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Windows has no `sleep`, `true` or `sh`: node itself stands in, and there is no zombie to show.
const WINDOWS = process.platform === 'win32';
const RESTING: [string, string[]] = WINDOWS ? [process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)']] : ['sleep', ['600']];
const EXITING: [string, string[]] = WINDOWS ? [process.execPath, ['-e', '0']] : ['true', []];

/** A start token of the same form as `real` but another value: what a reused PID looks like. */
function wrongToken(real: string | undefined): string {
  if (real === undefined || !/^[0-9]+$/.test(real)) return formatLstart(Date.now() / 1000 - 86_400);
  const n = Number(real);
  return String(n > 1000 ? n - 1000 : n + 1000);
}

/**
 * Makes the folder now and returns at once, so the caller can install its signal handlers before
 * any process exists; `populate()` then fills it.
 */
export function createDemoRegistry(): DemoRegistry {
  const configDir = mkdtempSync(join(tmpdir(), 'claude-ps-demo-'));
  const dir = join(configDir, 'sessions');
  const children: ChildProcess[] = [];
  let cleaned = false;

  const env = { ...process.env, [DEMO_MARKER]: String(process.pid) };
  const start = (cmd: string, args: string[], stdout: 'ignore' | 'pipe' = 'ignore') => {
    if (cleaned) throw new Error('the demo registry was already cleaned up');
    const child = spawn(cmd, args, { stdio: ['ignore', stdout, 'ignore'], env });
    child.on('error', () => {}); // a failed spawn shows as a missing PID below
    children.push(child);
    return child;
  };

  const registry: DemoRegistry = {
    configDir,
    sessionsDir: dir,
    claims: [],
    junk: [],
    started: () => children.map((c) => c.pid).filter((p): p is number => p !== undefined),
    cleanup() {
      if (cleaned) return;
      cleaned = true;
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      rmSync(configDir, { recursive: true, force: true });
    },
    populate: () => populate(registry),
  };
  return registry;

  async function populate(registry: DemoRegistry): Promise<void> {
    try {
      mkdirSync(dir, { mode: 0o700 });
      const domain = ourPidDomain();
      const now = Date.now();
      // Shaped like what Claude Code 2.1.332 writes (docs/testing-with-claude-code.md): the same fields in
      // the same order, `updatedAt` moving with `statusUpdatedAt`.
      const write = (pid: number, fields: Record<string, unknown>, file = `${pid}.json`) => {
        const { procStart, status, statusUpdatedAt, waitingFor, name, nameSource, jobId, ...rest } = fields;
        const record = {
          pid,
          sessionId: randomUUID(),
          cwd: join(homedir(), 'src', 'demo-app'),
          startedAt: now - 3_600_000,
          procStart,
          version: '2.1.332',
          peerProtocol: 1,
          peerFeatures: ['notify_idle', 'reply_across_default_dirs', 'artifact_yield'],
          kind: 'interactive',
          entrypoint: 'cli',
          pidDomain: domain,
          asksForConvertedSkills: null,
          messagingSocketPath: join(tmpdir(), 'cc-socks', `${pid}.sock`),
          ...rest,
          ...(name === undefined ? {} : { name, nameSource: nameSource ?? 'derived', nameSince: now - 3_600_000 }),
          ...(jobId === undefined ? {} : { jobId }),
          status,
          updatedAt: statusUpdatedAt,
          statusUpdatedAt,
          ...(waitingFor === undefined ? {} : { waitingFor }),
        };
        writeFileSync(join(dir, file), JSON.stringify(record));
        return record;
      };
      const liveSleep = () => {
        const pid = start(...RESTING).pid;
        if (pid === undefined) throw new Error(`could not start \`${RESTING[0]}\``);
        return pid;
      };

      // Live claims with their true start token.
      const [a, b, c, recycled, halfWritten] = [liveSleep(), liveSleep(), liveSleep(), liveSleep(), liveSleep()];
      const tokens = probe([a, b, c, recycled]).map((p) => p.token ?? undefined);
      const recordA = write(a, { procStart: tokens[0], name: 'refactor-auth', status: 'busy', statusUpdatedAt: now - 42_000 });
      write(b, {
        procStart: tokens[1],
        name: 'fix-flaky-test',
        status: 'waiting',
        waitingFor: 'permission prompt',
        statusUpdatedAt: now - 180_000,
      });
      // A `claude --bg` job: kind bg, a job id, and a label Claude Code made up for it.
      const job = randomBytes(4).toString('hex');
      write(c, { procStart: tokens[2], kind: 'bg', name: 'nightly report', nameSource: 'auto', jobId: job, status: 'idle', statusUpdatedAt: now - 7_200_000 });
      registry.claims.push(
        { pid: a, role: 'a live interactive session (busy)', expected: 'alive' },
        { pid: b, role: 'a live interactive session (waiting for approval)', expected: 'alive' },
        { pid: c, role: 'a live background session (kind bg)', expected: 'alive' },
      );

      // A PID that is alive but not the process that wrote the claim: its start token differs.
      write(recycled, { procStart: wrongToken(tokens[3]), name: 'last-week', status: 'busy', statusUpdatedAt: now - 6e8 });
      registry.claims.push({ pid: recycled, role: 'a reused PID: alive, but another start token', expected: 'recycled' });

      // A process that ran and was reaped: nothing has its PID now.
      const dead = spawnSync(...EXITING).pid;
      // Windows keeps an exited process openable while a handle on it lasts (~0.1–0.3 s under Wine).
      for (let i = 0; WINDOWS && dead !== undefined && i < 100 && probe([dead])[0]!.state !== 'gone'; i++) await sleep(20);
      if (dead !== undefined && probe([dead])[0]!.state === 'gone') {
        write(dead, { procStart: '1', name: 'crashed-yesterday', status: 'idle', statusUpdatedAt: now - 9e7 });
        registry.claims.push({ pid: dead, role: 'a process that exited and was reaped', expected: 'gone' });
      }

      // A zombie: the shell's child exits, and the shell (exec'd into sleep) never reaps it.
      const parent = WINDOWS ? undefined : start('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 600'], 'pipe');
      const zombie = parent && (await new Promise<number | undefined>((resolve) => {
        let text = '';
        parent.stdout!.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('\n')) resolve(Number(text.split('\n')[0]) || undefined);
        });
        parent.once('exit', () => resolve(undefined));
        parent.once('error', () => resolve(undefined));
      }));
      if (zombie !== undefined) {
        const zombieToken = probe([zombie])[0]!.token;
        for (let i = 0; i < 250 && probe([zombie])[0]!.state !== 'zombie'; i++) await sleep(20);
        if (probe([zombie])[0]!.state === 'zombie') {
          write(zombie, { procStart: zombieToken, name: 'stuck-exit', status: 'busy', statusUpdatedAt: now - 5_000 });
          registry.claims.push({ pid: zombie, role: 'a process that exited, not yet reaped', expected: 'zombie' });
        }
      }

      // Files that are not records: skipped or ignored, never deleted.
      writeFileSync(join(dir, 'notes.json'), '{"note": "not a <pid>.json name"}');
      // The peer key beside a record: `<pid>.<sha256 of messagingSocketPath>.key`, mode 0600.
      const keyName = `${a}.${createHash('sha256').update(recordA.messagingSocketPath).digest('hex')}.key`;
      const key = { peerToken: randomBytes(16).toString('hex'), procStart: recordA.procStart, pidDomain: domain };
      writeFileSync(join(dir, keyName), JSON.stringify(key), { mode: 0o600 });
      writeFileSync(join(dir, '0123.json'), JSON.stringify({ pid: 123, sessionId: randomUUID() }));
      const linked = parent?.pid ?? liveSleep();
      writeFileSync(join(configDir, 'elsewhere.json'), JSON.stringify({ pid: linked, sessionId: randomUUID() }));
      writeFileSync(join(dir, `${halfWritten}.json`), `{"pid": ${halfWritten}, "sessionId": "`);
      registry.junk.push(
        { file: 'notes.json', why: 'not a <pid>.json name: ignored' },
        { file: `${a}.<64 hex>.key`, why: "a peer key: not a candidate, ignored" },
        { file: '0123.json', why: 'not a canonical PID (leading zero): ignored' },
      );
      try {
        symlinkSync(join('..', 'elsewhere.json'), join(dir, `${linked}.json`));
        registry.junk.push({ file: `${linked}.json`, why: 'a symlink: never followed, skipped (Claude Code never writes one, so guards ignore it)' });
      } catch (error) {
        // Windows lets only administrators and developer mode make symlinks: the demo goes without one.
        if (!WINDOWS) throw error;
      }
      registry.junk.push({ file: `${halfWritten}.json`, why: 'half-written (unparseable): skipped, but its PID is alive, so a guard counts it' });
    } catch (error) {
      registry.cleanup();
      throw error;
    }
  }
}
