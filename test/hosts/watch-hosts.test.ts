/**
 * `watch --host` against a real sshd (own PID namespace, no Node): a remote session is added,
 * changes, dies and is removed; the connection dropping is a `host` event (never a run of
 * `removed`), and the watch reconnects when the server is back.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cliEnv, removeCopy, startCli } from '../cli/run-cli.js';
import { makeLab, sshdMissing, startRemoteSession, type Lab, type TestHost } from './sshd.js';

const missing = sshdMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true: the sshd tests cannot run: ${missing}`);

interface Line {
  type: string;
  host: string;
  state?: string;
  fields?: string[];
  record?: { pid: number; status: string | null; verdict: string; host: string; measuredAt: number };
}

describe.skipIf(missing !== undefined)('watch --host', () => {
  let lab: Lab;
  let a: TestHost;
  let cli: string;

  beforeAll(async () => {
    cli = await builtCli();
    lab = await makeLab();
    a = await lab.start('host-w');
  });

  afterAll(async () => {
    await lab?.close();
    if (cli) removeCopy(cli);
  });

  it('sees a remote session start, change, die and go, and the connection drop and return', async () => {
    const child = startCli(cli, ['watch', '--host', 'host-w', '--interval', '300', '--host-timeout', '5'], {
      env: cliEnv({ ...lab.env, CLAUDE_CONFIG_DIR: join(lab.dir, 'none') }),
    });
    const lines: Line[] = [];
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const p of parts) lines.push(JSON.parse(p) as Line);
    });
    const waitFor = async (what: string, test: (l: Line) => boolean, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = lines.find(test);
        if (hit) return hit;
        if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms; saw ${JSON.stringify(lines)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      await waitFor('first answer', (l) => l.type === 'host' && l.state === 'ok');
      const pid = startRemoteSession(a, { status: 'busy' });
      const added = await waitFor('added', (l) => l.type === 'added' && l.record?.pid === pid);
      expect(added.record).toMatchObject({ host: 'host-w', verdict: 'alive', status: 'busy' });

      const file = join(a.sessionsDir, `${pid}.json`);
      const doc = JSON.parse(a.run(`cat ${file}`));
      writeFileSync(file, JSON.stringify({ ...doc, status: 'waiting' }));
      const changed = await waitFor('changed', (l) => l.type === 'changed' && l.record?.pid === pid);
      expect(changed.fields).toEqual(['status']);

      a.run(`kill ${pid}`);
      await waitFor('died', (l) => l.type === 'died' && l.record?.pid === pid);
      a.run(`rm -f ${file}`);
      await waitFor('removed', (l) => l.type === 'removed' && l.record?.pid === pid);

      // A second session, then the server goes away: a host event, and no `removed` for it.
      const second = startRemoteSession(a);
      await waitFor('second added', (l) => l.type === 'added' && l.record?.pid === second);
      await a.stop();
      const lost = await waitFor('lost', (l) => l.type === 'host' && l.state !== 'ok');
      expect(['unreachable', 'timeout']).toContain(lost.state);
      expect(lines.some((l) => l.type === 'removed' && l.record?.pid === second)).toBe(false);

      // Back, in a new PID namespace (another pidDomain): the second session's file stays, and its
      // claim is now of another PID space than the remote's, so it is foreign there: never probed.
      const mark = lines.length;
      await a.restart();
      await waitFor('back', (l) => lines.indexOf(l) >= mark && l.type === 'host' && l.state === 'ok', 60_000);
      const foreign = await waitFor('second foreign', (l) => lines.indexOf(l) >= mark && l.record?.pid === second);
      expect(foreign).toMatchObject({ type: 'changed', record: { verdict: 'foreign' } });
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 240_000);
});
