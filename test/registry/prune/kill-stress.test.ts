/**
 * The kill stress of docs/prune.md (issue 11): a child process prunes in a loop while another keeps
 * turning dead claims live (rewriting `<pid>.json` in place, with ~200 KiB records to widen the
 * windows); the pruner is frozen (SIGSTOP) at a random moment and killed while frozen (SIGKILL), once
 * per cycle (the sessions' writes land in the same window). After every kill, the next readRecords must see every live session (at its name, or as
 * the stranded copy the kill left aside), and after the next prune no aside copy or journal is left
 * and every live `<pid>.json` is back with its latest content. Live keys are never removed.
 *
 * Pruners are spawned ahead of their cycle (each waits for a line on stdin), so a cycle does not wait
 * for Node's start-up. Runs under js and native; under ps every prune spawns `ps` twice, and the
 * protocol's file steps do not depend on the backend (prune.test.ts and recovery.test.ts cover ps).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prune, readRecords } from '../../../lib/index.js';
import { isPruneLeftover } from '../../../lib/registry/prune/names.js';
import { selectBackendForSuite } from '../../helpers/backends.js';
import { endAll, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { anotherToken, tokenOf } from '../../helpers/tokens.js';
import { bundleChild, freePids, readNumber, stressDir } from './helpers.js';

/** Kills per backend; two backends make the suite's 500+. CLAUDE_PS_KILL_STRESS=N runs N per backend. */
const KILLS = Number(process.env.CLAUDE_PS_KILL_STRESS) || 260;
const SLOTS = 3; // live sessions whose dead claims are turned live every cycle
const EXTRA_DEAD = 4; // claims of PIDs no process has, each with a key file
// The pruner is frozen at a random moment within this much of its start. How long its first passes
// take depends on the machine's load, so the window adapts: it grows while kills land before the
// pruner touched anything, and shrinks while they land after it had finished every dead claim.
const FIRST_WINDOW_MS = 16; // the pruner is frozen within this much of the cycle's start (its first passes)
const PAD_BYTES = 200 * 1024;
const AHEAD = 2; // pruners started ahead of their cycle
const PAD = 'x'.repeat(PAD_BYTES); // dead claims are large too: reading and parsing a copy is the window

const REWRITER = fileURLToPath(new URL('../../fixtures/prune-kill-rewriter.mjs', import.meta.url));
// Bundled under the package root (not /tmp), so the child finds binding.gyp and can load the addon.
const CHILD_DIR = join(process.cwd(), 'node_modules', '.cache', `claude-ps-kill-stress-${process.pid}`);

let CHILD: string;

beforeAll(async () => {
  // Start-up is most of a pruner's cost, and there is one per kill: minified, without zod.
  CHILD = await bundleChild(
    CHILD_DIR,
    `import { writeSync } from 'node:fs';
        import { readRecords } from './lib/registry/read/scan.ts';
        import { prune } from './lib/registry/prune/prune.ts';
        import { verdict } from './lib/registry/verdict.ts';
        const [configDir] = process.argv.slice(2);
        // Load the backend and the code paths before the clock starts, writing nothing (a pruner may be
        // killed while it starts).
        verdict(process.pid);
        prune(readRecords(configDir + '-missing'), { configDirs: configDir + '-missing' });
        process.stdout.write('ready\\n');
        process.stdin.once('data', () => {
          writeSync(1, 'started\\n');
          for (;;) prune(readRecords(configDir), { configDirs: configDir });
        });`,
    true,
  );
});

afterAll(() => rmSync(CHILD_DIR, { recursive: true, force: true }));

interface Pruner {
  child: ChildProcess;
  ready: Promise<void>;
  /** Resolves once the pruner has entered its loop (after a line on stdin). */
  started: Promise<void>;
  exited: Promise<void>;
}

function startPruner(configDir: string): Pruner {
  const child = spawn(process.execPath, [CHILD, configDir], { stdio: ['pipe', 'pipe', 'inherit'], env: process.env });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let text = '';
  let onReady: () => void;
  let onStarted: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const started = new Promise<void>((resolve) => (onStarted = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    if (text.startsWith('ready\n')) onReady();
    if (text.startsWith('ready\nstarted\n')) onStarted();
  });
  return { child, ready, started, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const keyName = (pid: number, c: string) => `${pid}.${c.repeat(64)}.key`;

describe.each(['js', 'native'] as const)('prune killed mid-flight, over and over (%s backend)', (backendName) => {
  selectBackendForSuite(backendName);
  let sleeps: Spawned[] = [];

  beforeAll(() => {
    sleeps = Array.from({ length: SLOTS }, () => spawnSleep(3600)); // outlives the longest run: the sessions must stay live
  });
  afterAll(async () => {
    for (const s of sleeps) await s.end();
    await endAll();
  });

  it(`no live session is ever lost, and the next prune leaves nothing aside (${KILLS} kills)`, async () => {
    const reg = stressDir('claude-ps-kill-stress-');
    const { configDir, sessions } = reg;
    const control = join(configDir, 'control');
    mkdirSync(control);
    const slots = sleeps.map((s) => ({ pid: s.pid, token: tokenOf(s.pid, backendName) }));
    const extra = freePids(EXTRA_DEAD);
    // A live key per session, never to be removed.
    for (const s of slots) {
      writeFileSync(join(sessions, keyName(s.pid, 'a')), JSON.stringify({ peerToken: 'p', procStart: s.token, pidDomain: undefined }));
    }
    const liveKeys = slots.map((s) => keyName(s.pid, 'a'));

    writeFileSync(join(control, 'go'), '0');
    writeFileSync(join(control, 'done'), '0');
    const rewriter = spawn(
      process.execPath,
      [REWRITER, sessions, control, String(PAD_BYTES), ...slots.map((s) => `${s.pid}:${s.token}`)],
      { stdio: 'ignore' },
    );
    const rewriterExited = new Promise<void>((resolve) => rewriter.once('exit', () => resolve()));
    const pool: Pruner[] = [];
    let lost = 0;
    let leftAside = 0;
    let strandedSeen = 0;
    let early = 0; // kills before the pruner had moved anything
    let late = 0; // kills after it had removed every dead claim
    let window = FIRST_WINDOW_MS;
    let waitedReady = 0;
    const problems: string[] = [];
    const started = Date.now();
    try {
      for (let i = 0; i < AHEAD; i++) pool.push(startPruner(configDir));
      for (let cycle = 1; cycle <= KILLS; cycle++) {
        // Stale claims on disk: each session's PID with another start token (recycled), with a key
        // naming that dead process; and claims of PIDs nobody has, with keys.
        for (const s of slots) {
          const stale = { pid: s.pid, sessionId: `dead-${cycle}`, procStart: anotherToken(s.token), pad: PAD };
          writeFileSync(join(sessions, `${s.pid}.json`), JSON.stringify(stale));
          writeFileSync(join(sessions, keyName(s.pid, 'b')), JSON.stringify({ peerToken: 'p', procStart: anotherToken(s.token) }));
        }
        for (const pid of extra) {
          writeFileSync(join(sessions, `${pid}.json`), JSON.stringify({ pid, sessionId: `gone-${cycle}`, procStart: '12345' }));
          writeFileSync(join(sessions, keyName(pid, 'c')), JSON.stringify({ peerToken: 'p', procStart: '12345' }));
        }
        const pruner = pool.shift()!;
        pool.push(startPruner(configDir));
        const w0 = Date.now();
        await pruner.ready;
        waitedReady += Date.now() - w0;
        pruner.child.stdin!.write('go\n');
        await pruner.started;
        // The sessions' writes land within the same window as the kill.
        writeFileSync(join(control, 'go'), `${cycle} ${Math.round(window * 1000)}`);
        await sleep(Math.random() * window);
        pruner.child.kill('SIGSTOP'); // frozen at a random instruction…
        pruner.child.kill('SIGKILL'); // …and killed while frozen
        await pruner.exited;
        for (let n = 0; readNumber(join(control, 'done')) !== cycle; n++) {
          if (n > 5000) throw new Error(`rewriter stuck in cycle ${cycle}`);
          await sleep(1);
        }

        // After the kill: every live session is seen, at its name or as a stranded copy.
        const names = readdirSync(sessions);
        const aside = names.some(isPruneLeftover);
        const untouched = extra.filter((pid) => names.includes(`${pid}.json`)).length;
        if (aside) leftAside++;
        if (!aside && untouched === EXTRA_DEAD) {
          early++;
          window = Math.min(window * 1.25, 1000);
        } else if (!aside && untouched === 0) {
          late++;
          window = Math.max(window * 0.8, 2);
        }
        const seen = readRecords(configDir);
        for (const s of slots) {
          const record = seen.find((r) => r.pid === s.pid && r.sessionId === `live-${cycle}-${s.pid}`);
          if (record === undefined) {
            lost++;
            problems.push(`cycle ${cycle}: session ${s.pid} not seen; folder: ${names.join(' ')}`);
          } else if (basename(record.path) !== `${s.pid}.json`) strandedSeen++;
        }

        // After the next prune: nothing aside, every live <pid>.json back, every dead claim gone.
        prune(seen, { configDirs: configDir });
        const after = readdirSync(sessions);
        const leftovers = after.filter(isPruneLeftover);
        if (leftovers.length > 0) problems.push(`cycle ${cycle}: left after prune: ${leftovers.join(' ')}`);
        for (const s of slots) {
          let sessionId: unknown;
          try {
            sessionId = JSON.parse(readFileSync(join(sessions, `${s.pid}.json`), 'utf8')).sessionId;
          } catch {
            sessionId = undefined;
          }
          if (sessionId !== `live-${cycle}-${s.pid}`) problems.push(`cycle ${cycle}: ${s.pid}.json holds ${String(sessionId)}`);
        }
        for (const pid of extra) if (after.includes(`${pid}.json`)) problems.push(`cycle ${cycle}: dead claim ${pid}.json left`);
        for (const key of liveKeys) if (!after.includes(key)) problems.push(`cycle ${cycle}: live key ${key} removed`);
        // Keys a killed pruner orphaned (record removed, key not yet) are no record's now: cleared for the next cycle.
        for (const name of after) if (name.endsWith('.key') && !liveKeys.includes(name)) unlinkSync(join(sessions, name));
        if (problems.length > 0) break;
      }
    } finally {
      writeFileSync(join(control, 'go'), '-1');
      for (const p of pool) {
        p.child.kill('SIGKILL');
        await p.exited;
      }
      await rewriterExited;
      reg.remove();
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `[kill-stress ${backendName}] ${KILLS} SIGSTOP+SIGKILL: ${leftAside} left a copy or journal aside, ` +
        `${strandedSeen} live sessions read from a stranded copy, ${lost} lost; ${early} before the first move, ` +
        `${late} after the last; ${seconds} s (kill window ended at ${window.toFixed(0)} ms; ` +
        `${(waitedReady / 1000).toFixed(1)} s waiting for pruners to start)`,
    );
    expect(problems).toEqual([]);
    expect(lost).toBe(0);
    expect(leftAside).toBeGreaterThan(0); // the kills did land inside the protocol's windows
  }, 600_000); // ~25 s on an idle 2-core machine; several times that while other suites load it
});
