/**
 * `claude-ps top` driven in a private tmux server, on real processes and records: the first screen,
 * a status change, resize, the filter, colours or none, and a hostile record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, removeCopy } from '../cli/run-cli.js';
import { endAll, reapedPid } from '../helpers/processes.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';
import { startSession, type Session } from './helpers.js';
import { hasTmux, openTmux, PROMPT, type Tmux } from './tmux.js';

let cli: string;
beforeAll(async () => {
  cli = await builtCli();
});
afterAll(async () => {
  await endAll();
  if (cli) removeCopy(cli);
});

const top = (reg: RegistryFixture, extra = '') => `${process.execPath} ${cli} top --config-dir ${reg.configDir} ${extra}`;
const header = (l: string[]) => l[0] ?? '';
const rowOf = (lines: string[], text: string) => lines.findIndex((l) => l.includes(text));

describe.skipIf(!hasTmux)('top in a terminal', () => {
  let reg: RegistryFixture;
  let tmux: Tmux;
  let api: Session;
  let docs: Session;
  beforeAll(() => {
    reg = makeRegistry();
    api = startSession(reg, { name: 'api-server', status: 'idle', cwd: '/home/user/src/api' });
    docs = startSession(reg, { name: 'docs-site', status: 'waiting', waitingFor: 'permission prompt', cwd: '/home/user/src/docs', statusUpdatedAt: Date.now() - 125_000 });
    const dead = reapedPid();
    reg.write(dead, sessionRecord(dead, { status: 'busy' }));
  });
  afterAll(() => {
    tmux?.close();
    reg.remove();
  });

  it('shows the first screen: counts, dead claims, the waiting session first', async () => {
    tmux = openTmux(80, 24);
    await tmux.start(`env NO_COLOR=1 ${top(reg)}`);
    const lines = await tmux.until((l) => header(l).includes('2 sessions'), 'the first screen');
    expect(header(lines)).toContain('2 sessions: 1 waiting, 0 busy, 1 idle');
    expect(header(lines)).toContain('1 dead claim');
    expect(lines[1]).toMatch(/NAME +STATUS +WAITING FOR +KIND +PID +CWD/);
    const waiting = rowOf(lines, 'docs-site');
    expect(waiting).toBe(2);
    // 80 columns leave the cwd its end only.
    expect(lines[waiting]).toMatch(new RegExp(`^> docs-site +waiting 2m +permission prompt +interactive +${docs.pid} +…?[a-z/]*src/docs$`));
    expect(rowOf(lines, 'api-server')).toBe(3);
    expect(lines[23]).toContain('q quit');
    expect(lines.every((l) => l.length <= 80)).toBe(true);
    expect(tmux.format('#{alternate_on}')).toBe('1');
  });

  it('shows a status change within 500 ms of the write (1 s allowed on a loaded machine)', async () => {
    const before = Date.now();
    api.update({ status: 'waiting', waitingFor: 'worker request' });
    const lines = await tmux.until((l) => header(l).includes('2 waiting'), 'the change', 5000);
    const took = Date.now() - before;
    expect(lines[rowOf(lines, 'api-server')]).toContain('worker request');
    // The older wait stays first: longest-waiting first.
    expect(rowOf(lines, 'docs-site')).toBeLessThan(rowOf(lines, 'api-server'));
    expect(took).toBeLessThan(1000);
  });

  it('follows a resize: wide adds the config dir, narrow keeps every line inside the screen', async () => {
    tmux.run('resize-window', '-t', 'main', '-x', '140', '-y', '30');
    let lines = await tmux.until((l) => (l[1] ?? '').includes('CONFIG') && l.length === 30 && (l[29] ?? '').includes('q quit'), 'the wide screen');
    expect(lines[rowOf(lines, 'docs-site')]).toContain(reg.configDir.slice(-12));
    tmux.run('resize-window', '-t', 'main', '-x', '50', '-y', '12');
    lines = await tmux.until((l) => l.length === 12 && (l[11] ?? '').includes('q quit') && !(l[1] ?? '').includes('CONFIG') && header(l).includes('2 sessions'), 'the narrow screen');
    expect(lines.every((l) => l.length <= 50)).toBe(true);
    expect(header(lines)).toContain('2 sessions');
    tmux.run('resize-window', '-t', 'main', '-x', '80', '-y', '24');
    await tmux.until((l) => l.length === 24 && (l[1] ?? '').includes('WAITING FOR'), 'back to 80x24');
  });

  it('filters with / and clears the filter with Esc', async () => {
    tmux.type('/');
    tmux.type('docs');
    let lines = await tmux.until((l) => (l[23] ?? '').includes('filter: docs'), 'the filter prompt');
    await tmux.until((l) => rowOf(l, 'api-server') < 0 && rowOf(l, 'docs-site') >= 0, 'only the matching row');
    tmux.keys('Enter');
    lines = await tmux.until((l) => (l[23] ?? '').includes('[filter: docs]'), 'the kept filter');
    expect(rowOf(lines, 'api-server')).toBe(-1);
    tmux.type('/');
    tmux.type('nothing-like-it');
    tmux.keys('Enter');
    await tmux.until((l) => l.some((x) => x.includes('no live session matches "docsnothing-like-it"')), 'no match');
    tmux.keys('Escape');
    await tmux.until((l) => rowOf(l, 'api-server') >= 0 && rowOf(l, 'docs-site') >= 0, 'both rows again');
  });

  it('moves the selection with j/k and arrows, and sorts with s', async () => {
    tmux.type('j');
    let lines = await tmux.until((l) => (l[3] ?? '').startsWith('>'), 'the second row selected');
    tmux.keys('Up');
    lines = await tmux.until((l) => (l[2] ?? '').startsWith('>'), 'the first row selected');
    tmux.type('s');
    lines = await tmux.until((l) => header(l).includes('sort: name'), 'sort by name');
    expect(rowOf(lines, 'api-server')).toBeLessThan(rowOf(lines, 'docs-site'));
    tmux.type('ssss');
    await tmux.until((l) => header(l).includes('sort: waiting'), 'back to the waiting sort');
  });

  it('q leaves the alternate screen: the shell is back, the cursor shown, the terminal cooked', async () => {
    tmux.type('q');
    const lines = await tmux.exited(0);
    expect(lines.some((l) => l.includes('claude-ps top') && l.includes('sessions:'))).toBe(false);
    expect(lines.filter((l) => l.startsWith(PROMPT.trimEnd())).length).toBeGreaterThanOrEqual(2);
    expect(tmux.format('#{alternate_on}')).toBe('0');
    expect(tmux.format('#{cursor_flag}')).toBe('1');
    tmux.type('stty -a | tr " " "\\n" | grep -x -e icanon -e -icanon -e echo -e -echo | tr "\\n" " "; echo');
    tmux.keys('Enter');
    await tmux.until((l) => l.some((x) => x.trim() === 'icanon echo'), 'a cooked terminal');
  });
});

describe.skipIf(!hasTmux)('top with colour and without', () => {
  let reg: RegistryFixture;
  beforeAll(() => {
    reg = makeRegistry();
    startSession(reg, { name: 'paint-me', status: 'waiting', waitingFor: 'permission prompt' });
  });
  afterAll(() => reg.remove());

  for (const [label, env, coloured] of [
    ['NO_COLOR', 'NO_COLOR=1', false],
    ['--color never', '', false],
    ['a colour terminal', '', true],
  ] as const) {
    it(`draws ${coloured ? 'with' : 'without'} colour under ${label}`, async () => {
      const tmux = openTmux(80, 24);
      try {
        await tmux.start(`env ${env} ${top(reg, label === '--color never' ? '--color never' : '')}`);
        await tmux.until((l) => rowOf(l, 'paint-me') >= 0, 'the row');
        const raw = tmux.run('capture-pane', '-p', '-e', '-t', 'main');
        // capture-pane -e writes the attributes of each cell run as SGR sequences.
        expect(/\x1b\[[0-9;]*m/.test(raw.replace(/\x1b\[0?m/g, ''))).toBe(coloured);
        tmux.type('q');
        await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
      } finally {
        tmux.close();
      }
    });
  }
});

describe.skipIf(!hasTmux)('top and a hostile record', () => {
  it('keeps escapes, bidi overrides and a 10 000-character name off the terminal and inside the layout', async () => {
    const reg = makeRegistry();
    const tmux = openTmux(80, 24);
    try {
      const name = 'evil\u202eoverride\u2066\x1b]0;pwned\x07\x1b[2J\x1b[31m' + 'N'.repeat(10_000);
      startSession(reg, { name, status: 'waiting', waitingFor: 'perm\x1b[5mission\r\nprompt', cwd: '/tmp/\x1b[Hcwd\u202e' });
      startSession(reg, { name: 'plain-one', status: 'idle' });
      await tmux.start(top(reg));
      // The whole frame, footer included: capture-pane can read a frame that tmux has only partly parsed.
      const lines = await tmux.until((l) => rowOf(l, 'plain-one') >= 0 && rowOf(l, 'evil') >= 0 && (l[23] ?? '').includes('q quit'), 'both rows');
      expect(header(lines)).toContain('2 sessions: 1 waiting');
      expect(lines[1]).toContain('NAME');
      expect(lines[23]).toContain('q quit');
      expect(lines.every((l) => l.length <= 80)).toBe(true);
      const row = lines[rowOf(lines, 'evil')]!;
      expect(row).toMatch(/^> eviloverride [^\x1b]*… +waiting/);
      expect(row).toContain('perm [5mission');
      expect(lines.join('\n')).not.toMatch(/[\u202e\u2066\x1b]/);
      expect(tmux.format('#{pane_title}')).not.toContain('pwned');
      tmux.type('q');
      await tmux.until((l) => l.includes('EXIT=0'), 'the exit');
    } finally {
      tmux.close();
      reg.remove();
    }
  });
});
