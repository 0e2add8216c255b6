/**
 * `claude-ps demo` leaves nothing behind: no process it started, no folder, whether it runs to the
 * end, is interrupted while building its registry, or while holding it (--wait).
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEY_FIELDS, OBSERVED_FIELDS, PERMISSION_PROMPT } from '../claude/observed.js';
import { builtCli, cliEnv, removeCopy, runCli, startCli } from './run-cli.js';

let cli: string;
let tmp: string; // the demo's TMPDIR: must be empty again after every run

/** PIDs of live processes whose environment carries the demo's marker for this demo process. */
function markedProcesses(demoPid: number): number[] {
  const marker = `CLAUDE_PS_DEMO_PARENT=${demoPid}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker)) found.push(Number(entry));
    } catch {
      // exited meanwhile, or a kernel thread
    }
  }
  return found;
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0); // existence check only: signal 0 is never delivered
    return true;
  } catch {
    return false;
  }
}

/** Processes ended by the demo are reaped by init shortly after it exits: wait a bounded time. */
async function untilGone(pids: number[]): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  let left = pids.filter(exists);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = left.filter(exists);
  }
  return left;
}

async function expectNothingLeft(demoPid: number, pids: number[] = []): Promise<void> {
  expect(await untilGone([...markedProcesses(demoPid), ...pids])).toEqual([]);
  expect(readdirSync(tmp)).toEqual([]);
}

beforeAll(async () => {
  cli = await builtCli();
});

beforeEach(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = mkdtempSync(join(tmpdir(), 'cps-demo-test-'));
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  if (cli) removeCopy(cli);
});

describe('claude-ps demo', () => {
  it('shows each verdict, prunes only the dead, and cleans up', async () => {
    const child = startCli(cli, ['demo'], { env: cliEnv({ TMPDIR: tmp }) });
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d));
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    const status = await new Promise((r) => child.once('exit', r));
    expect(status, stderr).toBe(0);
    for (const verdict of ['alive', 'recycled', 'gone', 'zombie']) expect(stdout).toMatch(new RegExp(`^\\d+\\s+${verdict}\\s`, 'm'));
    expect(stdout).not.toContain('expected');
    expect(stdout).toMatch(/^Removed 3 dead records:/m);
    expect(stdout).toContain('1 busy · 1 waiting · 1 idle');
    expect(stdout).toMatch(/^\d+\s+interactive\s+waiting \(permission prompt\) 3m ago\s/m);
    expect(stdout).toContain('What was filtered, and why');
    const pids = [...stdout.matchAll(/^(\d+)\s+(?:alive|recycled|gone|zombie)\s/gm)].map((m) => Number(m[1]));
    expect(stdout).toMatch(/^Cleaned up: ended PIDs [\d, ]+ and removed .*\.$/m);
    await expectNothingLeft(child.pid!, pids);
  });

  it('--json reports each claim with the verdict it was meant to get', async () => {
    const r = runCli(cli, ['demo', '--json'], { env: cliEnv({ TMPDIR: tmp }) });
    expect(r.status, r.stderr).toBe(0);
    const data = JSON.parse(r.stdout);
    for (const claim of data.claims) expect(claim.verdict).toBe(claim.expected);
    expect(new Set(data.claims.map((c: { expected: string }) => c.expected))).toEqual(new Set(['alive', 'recycled', 'gone', 'zombie']));
    expect(data.skipped.map((s: { reason: string }) => s.reason).sort()).toEqual(['symlink', 'unparseable']);
    expect(data.pruned).toHaveLength(3);
    expect(data.after.every((a: { verdict: string }) => a.verdict === 'alive')).toBe(true);
    const claimed = data.claims.map((c: { pid: number }) => c.pid);
    expect(await untilGone([...data.processes, ...claimed])).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} while it holds its registry (--wait): exit ${code}, nothing left`, async () => {
      const child = startCli(cli, ['demo', '--wait'], { env: cliEnv({ TMPDIR: tmp }) });
      let stdout = '';
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => {
          stdout += d;
          if (stdout.includes('until you press Ctrl-C')) resolve();
        });
        child.once('exit', () => reject(new Error(`demo exited early: ${stderr}`)));
      });
      expect(markedProcesses(child.pid!).length).toBeGreaterThan(0);
      expect(readdirSync(tmp)).toHaveLength(1);
      const exited = new Promise((r) => child.once('exit', (c) => r(c)));
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(stderr).toMatch(/^\nclaude-ps demo: interrupted; its processes were ended and .* removed\n$/);
      await expectNothingLeft(child.pid!);
    });
  }

  it('its records are shaped like what the real Claude Code writes (test/claude/observed.ts)', async () => {
    const child = startCli(cli, ['demo', '--wait'], { env: cliEnv({ TMPDIR: tmp }) });
    let stdout = '';
    const folder = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        stdout += d;
        const m = /The demo registry stays at (\S+) until you press Ctrl-C/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child.once('exit', () => reject(new Error('demo exited early')));
    });
    try {
      const dir = join(folder, 'sessions');
      const records = readdirSync(dir)
        .filter((n) => /^[1-9][0-9]*\.json$/.test(n) && !lstatSync(join(dir, n)).isSymbolicLink())
        .flatMap((n) => {
          try {
            return [JSON.parse(readFileSync(join(dir, n), 'utf8')) as Record<string, unknown>];
          } catch {
            return []; // the demo's half-written file
          }
        });
      expect(records.length).toBe(3); // the live ones: the tour pruned the dead before holding
      for (const r of records) {
        const keys = Object.keys(r);
        // Only fields the real writer emits, in the order it writes them.
        expect(keys.filter((k) => !(OBSERVED_FIELDS as readonly string[]).includes(k))).toEqual([]);
        expect(keys).toEqual(OBSERVED_FIELDS.filter((k) => keys.includes(k)));
        expect(r).toMatchObject({ version: '2.1.332', peerProtocol: 1, entrypoint: 'cli' });
        expect(r.updatedAt).toBe(r.statusUpdatedAt);
        if (r.status !== 'waiting') expect(r).not.toHaveProperty('waitingFor');
      }
      expect(records.filter((r) => r.status === 'waiting').map((r) => r.waitingFor)).toEqual([PERMISSION_PROMPT]);
      expect(records.find((r) => r.kind === 'bg')).toMatchObject({ nameSource: 'auto', jobId: expect.stringMatching(/^[0-9a-f]{8}$/) });
      const keyFiles = readdirSync(dir).filter((n) => n.endsWith('.key'));
      expect(keyFiles).toHaveLength(1);
      const owner = records.find((r) => keyFiles[0]!.startsWith(`${r.pid}.`))!;
      expect(keyFiles[0]).toBe(`${owner.pid}.${createHash('sha256').update(String(owner.messagingSocketPath)).digest('hex')}.key`);
      expect(Object.keys(JSON.parse(readFileSync(join(dir, keyFiles[0]!), 'utf8')))).toEqual([...KEY_FIELDS]);
      expect(statSync(join(dir, keyFiles[0]!)).mode & 0o777).toBe(0o600);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    }
    await expectNothingLeft(child.pid!);
  });

  it('SIGINT while it is still building its registry: nothing left', async () => {
    const child = startCli(cli, ['demo'], { env: cliEnv({ TMPDIR: tmp }) });
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    const exited = new Promise((r) => child.once('exit', (c) => r(c)));
    child.kill('SIGINT');
    // Building takes at least the zombie's 0.2 s, so the signal lands mid-way.
    expect(await exited).toBe(130);
    await expectNothingLeft(child.pid!);
  });
});
