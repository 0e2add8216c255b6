/**
 * The driver leaves nothing behind even when the test process running it dies: a child process opens
 * a lab, starts a real session, and is SIGKILLed before it can close it. The lab's processes outlive it
 * (tmux, claude, the mock), and the run's sweep, which the suite's global teardown calls, ends them all
 * and removes the lab's folder.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, expect, it } from 'vitest';
import { markedProcesses, RUN_MARKER, sweepRun } from './lab.js';
import { claudeCode, describeWithClaude } from './suite.js';

describeWithClaude('a lab whose test process was killed is swept by the run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cps-lab-crash-'));
  const run = randomBytes(8).toString('hex');
  afterAll(async () => {
    await sweepRun(run);
    rmSync(dir, { recursive: true, force: true });
  });

  it('this worker carries the run marker its labs inherit', () => {
    expect(process.env[RUN_MARKER]).toMatch(/^[0-9a-f]{16}$/);
  });

  it('SIGKILL the lab owner mid-run: its processes stay; the sweep ends them and removes the folder', async () => {
    if (!claudeCode.ok) return;
    // The driver as plain JavaScript, beside the mock it starts.
    buildSync({ entryPoints: [join(import.meta.dirname, 'lab.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(dir, 'lab.mjs'), logLevel: 'error' });
    copyFileSync(join(import.meta.dirname, 'mock-api.mjs'), join(dir, 'mock-api.mjs'));
    writeFileSync(
      join(dir, 'owner.mjs'),
      `import { openLab } from './lab.mjs';
const lab = await openLab(process.argv[2]);
const [s] = await lab.start('doomed');
await s.waitFor('idle');
process.stdout.write(JSON.stringify({ root: lab.root, pid: s.pid }) + '\\n');
setInterval(() => {}, 1 << 30);
`,
    );
    const owner = spawn(process.execPath, [join(dir, 'owner.mjs'), claudeCode.binary], {
      env: { ...process.env, [RUN_MARKER]: run },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const ready = await new Promise<{ root: string; pid: number }>((resolve, reject) => {
      let text = '';
      owner.stdout!.on('data', (d: Buffer) => {
        text += d;
        if (text.includes('\n')) resolve(JSON.parse(text));
      });
      owner.once('exit', (code) => reject(new Error(`the owner exited (${code}) before its lab was ready`)));
    });
    const exited = new Promise((r) => owner.once('exit', r));
    owner.kill('SIGKILL');
    await exited;

    // tmux server, pane shell, claude and the mock: all still there, all carrying the run's marker.
    const left = markedProcesses(RUN_MARKER, run);
    expect(left).toContain(ready.pid);
    expect(left.length).toBeGreaterThanOrEqual(4);
    expect(existsSync(ready.root)).toBe(true);

    await sweepRun(run);
    expect(markedProcesses(RUN_MARKER, run)).toEqual([]);
    expect(existsSync(ready.root)).toBe(false);
  });
});
