/**
 * `top --host` against a real sshd (test/hosts/sshd.ts: its own PID namespace, no Node there), in a
 * private tmux: remote rows with a HOST column beside this machine's, a host that cannot be reached
 * named on the hosts line (never "no sessions"), a remote change shown, a server that stops keeps
 * its rows marked `!`, Enter on a remote row says how to reach it, and the prune key stays local.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, removeCopy } from '../cli/run-cli.js';
import { endAll } from '../helpers/processes.js';
import { makeLab, sshdMissing, startRemoteSession, type Lab, type TestHost } from '../hosts/sshd.js';
import { makeRegistry, type RegistryFixture } from '../helpers/registry-fixture.js';
import { startSession } from './helpers.js';
import { hasTmux, openTmux, type Tmux } from './tmux.js';

const missing = sshdMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true: the sshd tests cannot run: ${missing}`);

const rowOf = (lines: string[], text: string) => lines.findIndex((l) => l.includes(text));

describe.skipIf(missing !== undefined || !hasTmux)('top --host', () => {
  let lab: Lab;
  let remote: TestHost;
  let cli: string;
  let reg: RegistryFixture;
  let tmux: Tmux | undefined;

  beforeAll(async () => {
    cli = await builtCli();
    lab = await makeLab();
    remote = await lab.start('host-t');
    reg = makeRegistry();
  });
  afterAll(async () => {
    tmux?.close();
    await lab?.close();
    reg?.remove();
    await endAll();
    if (cli) removeCopy(cli);
  });

  const env = () => Object.fromEntries(Object.entries(lab.env).filter(([, v]) => v !== undefined)) as Record<string, string>;

  it('shows remote and local rows with their host, and names the host that cannot be reached', { timeout: 120_000 }, async () => {
    const pid = startRemoteSession(remote, { status: 'busy', name: 'on-remote', tmux: 'work:1.0' });
    startSession(reg, { name: 'on-local', status: 'idle' });
    tmux = openTmux(120, 24, env());
    await tmux.start(
      `env NO_COLOR=1 ${process.execPath} ${cli} top --config-dir ${reg.configDir} --host local --host host-t --host ${lab.downAlias} --interval 300 --host-timeout 5`,
    );
    let lines = await tmux.until((l) => rowOf(l, 'on-remote') > 2 && (l[1] ?? '').includes('unreachable'), 'the remote row and the down host', 20_000);
    expect(lines[0]).toContain('2 sessions');
    expect(lines[1]).toContain('local 1 live');
    expect(lines[1]).toContain('host-t 1 live');
    expect(lines[1]).toContain(`${lab.downAlias} unreachable`);
    expect(lines[2]).toMatch(/HOST +NAME +STATUS/);
    expect(lines[rowOf(lines, 'on-remote')]).toMatch(new RegExp(`host-t +on-remote +busy.* ${pid} `));
    expect(lines[rowOf(lines, 'on-local')]).toMatch(/local +on-local +idle/);

    // A remote change, within the read interval (300 ms) and ssh's round trip.
    const file = join(remote.sessionsDir, `${pid}.json`);
    const doc = JSON.parse(remote.run(`cat ${file}`));
    writeFileSync(file, JSON.stringify({ ...doc, status: 'waiting', waitingFor: 'remote prompt' }));
    lines = await tmux.until((l) => (l[rowOf(l, 'on-remote')] ?? '').includes('remote prompt'), 'the remote change', 10_000);

    // Enter on the remote row (waiting now: first; g selects it) says how to reach it; nothing is switched.
    tmux.type('g');
    lines = await tmux.until((l) => (l[rowOf(l, 'on-remote')] ?? '').startsWith('>'), 'the remote row selected', 5000);
    expect(rowOf(lines, 'on-remote')).toBe(3);
    tmux.keys('Enter');
    lines = await tmux.until((l) => (l[23] ?? '').includes('runs on host-t'), 'the remote hint', 5000);
    expect(lines[23]).toMatch(/pid \d+ runs on host-t: ssh '?host-t'?, then tmux attach -t '?work'?/);

    // The server goes away: the host is named, its row stays as last seen and is marked.
    await remote.stop();
    lines = await tmux.until((l) => (l[1] ?? '').includes('host-t unreachable'), 'the lost host', 30_000);
    expect(lines[1]).not.toContain('host-t 1 live');
    expect(lines[rowOf(lines, 'on-remote')]).toMatch(/^.!/);
    expect(lines.join('\n')).not.toContain('no live sessions');
    tmux.type('q');
    await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
    tmux.close();
    tmux = undefined;
  });

  it('only unreachable hosts: the screen says so, not "no live sessions"; p is local only', async () => {
    tmux = openTmux(100, 24, env());
    await tmux.start(`env NO_COLOR=1 ${process.execPath} ${cli} top --host ${lab.downAlias} --host-timeout 5`);
    const lines = await tmux.until((l) => (l[1] ?? '').includes('unreachable'), 'the down host', 20_000);
    expect(lines.join('\n')).toContain('no live sessions on the hosts that answered');
    tmux.type('p');
    await tmux.until((l) => (l[23] ?? '').includes('prune is local only'), 'the refusal');
    tmux.type('q');
    await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
  });
});
