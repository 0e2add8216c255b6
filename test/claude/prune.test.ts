/**
 * `prune` on a registry of real sessions: it removes exactly the phantoms (SIGKILLed sessions, and a
 * real record whose PID a process of ours now holds) and never a live session's file, while real
 * sessions keep rewriting their records (busy ↔ idle, waiting → approved), a new one registers, and a
 * stopped one sits still.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect, it } from 'vitest';
import { prune, readRecords } from '../../lib/index.js';
import type { Session } from './lab.js';
import { describeWithClaude, recycledPhantom, useHarness } from './suite.js';

const keysOf = (dir: string, pid: number) => readdirSync(dir).filter((n) => new RegExp(`^${pid}\\.[0-9a-f]{64}\\.key$`).test(n));

describeWithClaude('prune removes exactly the phantoms of real sessions, never a live file', () => {
  const h = useHarness();
  const live: Session[] = [];
  const phantoms: number[] = [];
  const phantomKeys: string[] = [];

  it('sets up live, stopped, bg and phantom sessions', async () => {
    const sessions = await h.lab.start('churn1', 'churn2', 'asks', 'stopped', { name: 'bg', kind: 'bg' }, 'killed1', 'killed2', 'killed3');
    await Promise.all(sessions.map((s) => s.waitFor('idle')));
    live.push(...sessions.slice(0, 5));
    sessions[3]!.signal('SIGSTOP');
    for (const killed of sessions.slice(5)) {
      phantomKeys.push(...keysOf(h.lab.sessionsDir, killed.pid));
      killed.signal('SIGKILL');
      phantoms.push(killed.pid);
    }
    phantoms.push(recycledPhantom(h, sessions[7]!.file).pid);
    expect(phantomKeys).toHaveLength(3); // Claude Code writes one key per session; SIGKILL leaves it
    for (const s of live) expect(keysOf(h.lab.sessionsDir, s.pid)).toHaveLength(1);
  });

  it('a dry run names the phantoms and removes nothing', () => {
    const r = h.cps('prune', '--dry-run', '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).removed.map((x: { pid: number }) => x.pid).sort()).toEqual([...phantoms].sort());
    for (const pid of phantoms) expect(existsSync(join(h.lab.sessionsDir, `${pid}.json`))).toBe(true);
  });

  it('while sessions change state and a new one registers: the phantoms go, every live file stays', async () => {
    const [churn1, churn2, asks] = live;
    let stop = false;
    const turns = new Map<string, number>();
    const churn = async (s: Session, prompt: string, approve: boolean) => {
      while (!stop) {
        await s.turn(prompt, { approve });
        turns.set(s.name, (turns.get(s.name) ?? 0) + 1);
      }
    };
    const churning = Promise.all([churn(churn1!, 'SLOW 300 a', false), churn(churn2!, 'SLOW 700 b', false), churn(asks!, 'TOOL', true)]);
    const newcomer = h.lab.start('newcomer');

    const removed: Array<{ pid: number; verdict: string; keys: readonly string[] }> = [];
    const missing: string[] = [];
    const deadline = Date.now() + 60_000;
    let round = 0;
    try {
      while (Date.now() < deadline && ([...turns.values()].length < 3 || Math.min(...turns.values()) < 3 || round < 10)) {
        round++;
        if (round % 2) {
          const r = h.cps('prune', '--json');
          expect(r.status, r.stderr).toBe(0);
          removed.push(...JSON.parse(r.stdout).removed);
        } else {
          removed.push(...prune(readRecords(h.lab.configDir)).map((x) => ({ pid: x.pid, verdict: x.verdict, keys: x.keys })));
        }
        for (const s of live) if (!existsSync(s.file)) missing.push(`${s.name} after round ${round}`);
        await new Promise((r) => setTimeout(r, 50)); // the CLI and prune() are synchronous: let the churn run
      }
    } finally {
      stop = true;
      await churning;
    }
    live.push(...(await newcomer));
    expect(missing).toEqual([]);
    expect(Object.fromEntries(turns)).toEqual({ churn1: expect.any(Number), churn2: expect.any(Number), asks: expect.any(Number) });
    expect(Math.min(...turns.values()), JSON.stringify(Object.fromEntries(turns))).toBeGreaterThanOrEqual(3);
    expect(removed.map((x) => x.pid).sort()).toEqual([...phantoms].sort()); // each exactly once
    expect(removed.find((x) => x.pid === phantoms[3])?.verdict).toBe('recycled');
    // The phantoms' key files went with them, as Claude Code's own sweep would remove them, and were reported.
    expect(removed.flatMap((x) => x.keys.map((k) => basename(k))).sort()).toEqual([...phantomKeys].sort());
  });

  it('afterwards the folder holds exactly the live records and their keys, and both readers agree', () => {
    const expected = [
      ...live.flatMap((s) => [`${s.pid}.json`, ...keysOf(h.lab.sessionsDir, s.pid)]),
    ].sort();
    for (const s of live) expect(keysOf(h.lab.sessionsDir, s.pid)).toHaveLength(1);
    expect(readdirSync(h.lab.sessionsDir).sort()).toEqual(expected);
    for (const s of live) expect(JSON.parse(readFileSync(s.file, 'utf8')).pid).toBe(s.pid);
    const official = h.lab.agents().map((a) => a.pid).sort();
    expect(official).toEqual(live.map((s) => s.pid).sort());
    expect(JSON.parse(h.cps('list', '--json', '--all').stdout).records.map((r: { pid: number }) => r.pid).sort()).toEqual(official);
    expect(JSON.parse(h.cps('prune', '--json').stdout).removed).toEqual([]);
  });
});
