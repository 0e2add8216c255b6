/**
 * End to end with real Claude Code: the one-line snippet of `statusline --install` (no folder, the
 * watcher started by the first render, "refreshInterval": 1). Three sessions; the third stays idle;
 * the first starts waiting for a permission prompt; the third's rendered line must show it within
 * refreshInterval + 0.5 s of the first session's record saying so, with no turn of its own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWithClaude, useHarness } from './suite.js';

const REFRESH_S = 1;

async function until<T>(get: () => T | undefined, what: string, timeoutMs = 60_000, stepMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

describeWithClaude('the statusline follows other sessions while idle', () => {
  const h = useHarness();
  const text = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');

  it('shows the third, idle session that the first waits, within refreshInterval + 0.5 s', async () => {
    const printed = spawnSync(process.execPath, [h.cli, 'statusline', '--snippet'], { encoding: 'utf8' });
    const setting = JSON.parse(printed.stdout) as { command: string; refreshInterval: number };
    expect(setting.refreshInterval).toBe(REFRESH_S);
    // Each render's output, appended per session with the time it ended (ms), for the measurement.
    const log = `${h.lab.root}/render.$CLAUDE_PID.log`;
    h.lab.statusLine(`out=$( ${setting.command} ); printf '%s %s\\n' "$(date +%s%3N)" "$out" >> "${log}"; printf '%s\\n' "$out"`, {
      refreshInterval: setting.refreshInterval,
    });
    const [first, second, third] = await h.lab.start('first', 'second', 'third');
    await Promise.all([first, second, third].map((s) => s!.waitFor('idle', 90_000)));
    // The first renders found no watcher and started one, in the lab's $XDG_RUNTIME_DIR.
    const lines = join(h.lab.root, 'run', 'claude-ps');
    await until(() => (text(join(lines, String(third!.pid))) !== '' ? true : undefined), 'the autostarted watcher\'s line file for the third session');
    const renders = join(h.lab.root, `render.${third!.pid}.log`);
    const before = text(renders).length;
    await first!.send('TOOL');
    const waiting = (await first!.waitFor('waiting', 90_000))!;
    // When Claude Code recorded the change: its statusUpdatedAt, else the record's modification time.
    const recordAt = typeof waiting.statusUpdatedAt === 'number' ? waiting.statusUpdatedAt : statSync(join(h.lab.configDir, 'sessions', `${first!.pid}.json`)).mtimeMs;
    const expected = `⏳ ${waiting.name as string} (permission prompt)`;
    const shownAt = await until(
      () => {
        for (const line of text(renders).slice(before).split('\n')) {
          const [at, ...rest] = line.split(' ');
          if (rest.join(' ').startsWith(expected)) return Number(at);
        }
        return undefined;
      },
      "the third session's line to show the waiting one",
      20_000,
      50,
    );
    const delay = (shownAt - recordAt) / 1000;
    console.log(`statusline idle follow: shown ${delay.toFixed(2)} s after the first session's record said waiting (refreshInterval ${REFRESH_S} s)`);
    expect(delay).toBeLessThanOrEqual(REFRESH_S + 0.5);
    // The third never had a turn: it is still idle, and rendered through the line file meanwhile.
    expect(third!.record()?.status).toBe('idle');
  }, 240_000);
});
