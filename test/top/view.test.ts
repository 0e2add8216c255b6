/**
 * The pure parts of `top`: keys from raw terminal bytes, the rows (live only, waiting first and the
 * longest-waiting first, the filter), and frames that fill the screen exactly at any size.
 */
import { describe, expect, it } from 'vitest';
import { countRecords } from '../../lib/cli/commands/summary.js';
import { makePaint } from '../../lib/cli/output.js';
import { parseKeys } from '../../lib/cli/top/keys.js';
import { renderFrame, scrollTo, type Frame } from '../../lib/cli/top/render.js';
import { topRows, SORTS } from '../../lib/cli/top/rows.js';
import { displayWidth } from '../../lib/cli/width.js';
import type { SessionRecord } from '../../lib/registry/types.js';
import { parsePanes } from '../../lib/cli/top/jump.js';
import { ttyNrOfStatLine } from '../../lib/proc/tty.js';

const NOW = 1_800_000_000_000;
let n = 0;
function record(fields: Partial<SessionRecord>): SessionRecord {
  n += 1;
  const pid = fields.pid ?? 1000 + n;
  return {
    path: `/c/sessions/${pid}.json`, pid, sessionId: `s-${n}`, token: undefined, pidDomain: undefined, kind: 'interactive',
    interactive: true, verdict: 'alive', live: true, cwd: '/home/u/p', startedAt: NOW - 60_000, procStart: undefined,
    procStartFt: undefined, version: undefined, entrypoint: undefined, name: undefined, status: 'idle', waitingFor: undefined,
    updatedAt: undefined, statusUpdatedAt: NOW - 1000, messagingSocketPath: undefined, bridgeSessionId: undefined, tmux: undefined,
    raw: {}, ...fields,
  } as SessionRecord;
}

describe('keys', () => {
  it('reads arrows in both forms, paging keys, Enter, Backspace, controls and text', () => {
    expect(parseKeys('\x1b[A\x1bOB\x1b[5~\x1b[6~\x1b[H\x1b[4~\r\x7f\x03\x1a').map((k) => k.name)).toEqual([
      'up', 'down', 'pageup', 'pagedown', 'home', 'end', 'enter', 'backspace', 'interrupt', 'suspend',
    ]);
    expect(parseKeys('jé😀')).toEqual([{ name: 'char', char: 'j' }, { name: 'char', char: 'é' }, { name: 'char', char: '😀' }]);
    // A lone Escape; an unknown sequence (F5) is dropped whole, not typed as "[15~".
    expect(parseKeys('\x1b')).toEqual([{ name: 'escape' }]);
    expect(parseKeys('\x1b[15~q')).toEqual([{ name: 'char', char: 'q' }]);
    expect(parseKeys('\x00\x07\x9b')).toEqual([]);
  });
});

describe('rows', () => {
  const waitingLong = record({ name: 'long', status: 'waiting', statusUpdatedAt: NOW - 600_000 });
  const waitingShort = record({ name: 'short', status: 'waiting', statusUpdatedAt: NOW - 5000 });
  const busy = record({ name: 'busy-one', status: 'busy' });
  const idleOld = record({ name: 'idle-old', status: 'idle', statusUpdatedAt: NOW - 90_000 });
  const idleNew = record({ name: 'idle-new', status: 'idle', statusUpdatedAt: NOW - 2000 });
  const dead = record({ name: 'dead', verdict: 'gone', live: false, status: 'waiting' });
  const all = [idleOld, dead, busy, waitingShort, idleNew, waitingLong];

  it('are live only, waiting first (the longest-waiting first), then busy, then the latest change first', () => {
    expect(topRows(all, '', 'waiting').map((r) => r.name)).toEqual(['long', 'short', 'busy-one', 'idle-new', 'idle-old']);
  });

  it('sort by name, PID, start and cwd, and every sort is total', () => {
    expect(topRows(all, '', 'name').map((r) => r.name)).toEqual(['busy-one', 'idle-new', 'idle-old', 'long', 'short']);
    for (const sort of SORTS) expect(topRows(all, '', sort)).toHaveLength(5);
  });

  it('filter on the visible text, case-insensitively', () => {
    expect(topRows(all, 'IDLE', 'waiting').map((r) => r.name)).toEqual(['idle-new', 'idle-old']);
    expect(topRows(all, String(busy.pid), 'waiting').map((r) => r.name)).toEqual(['busy-one']);
    expect(topRows(all, 'nothing', 'waiting')).toEqual([]);
  });

  it('name a session by its folder when it has no name, and mark what cannot be verified', () => {
    const [row] = topRows([record({ name: undefined, cwd: '/srv/app', verdict: 'unverified' })], '', 'waiting');
    expect(row).toMatchObject({ name: 'app', mark: '?' });
  });
});

describe('frames', () => {
  const records = Array.from({ length: 40 }, (_, i) => record({ name: `s${i} 日本語 👩‍💻`, status: i % 3 ? 'idle' : 'waiting', waitingFor: 'permission prompt' }));
  const frame = (over: Partial<Frame> = {}): Frame => ({
    rows: topRows(records, '', 'waiting'), counts: countRecords(records, false), selected: 0, offset: 0, sort: 'waiting',
    filter: '', mode: 'normal', message: '', ...over,
  });

  it('fill every size exactly: as many lines as rows of the screen, each as wide as it', () => {
    for (const [w, h] of [[80, 24], [200, 60], [40, 10], [20, 5], [1, 1], [300, 2]] as const) {
      const lines = renderFrame(frame(), w, h, makePaint(false), NOW);
      expect(lines, `${w}x${h}`).toHaveLength(h);
      for (const line of lines) expect(displayWidth(line), `${w}x${h}: ${line}`).toBe(w);
    }
  });

  it('keep the header, the column heads and the footer in place, the selection marked without colour', () => {
    const lines = renderFrame(frame({ selected: 0 }), 80, 24, makePaint(false), NOW);
    expect(lines[0]).toContain('40 sessions: 14 waiting, 0 busy, 26 idle');
    expect(lines[1]).toMatch(/^ {2}NAME/);
    expect(lines[2]).toMatch(/^> s0/);
    expect(lines[23]).toContain('q quit');
    expect(lines.join('')).not.toContain('\x1b');
  });

  it('colour only when asked: waiting rows, the selection inverse', () => {
    const lines = renderFrame(frame({ selected: 1 }), 80, 24, makePaint(true), NOW);
    expect(lines[3]).toMatch(/^\x1b\[7m> /);
    expect(lines[2]).toMatch(/^\x1b\[33m/);
  });

  it('scroll so that the selection stays visible', () => {
    expect(scrollTo(30, 0, 21, 40)).toBe(10);
    expect(scrollTo(3, 10, 21, 40)).toBe(3);
    expect(scrollTo(5, 30, 21, 10)).toBe(0);
    const lines = renderFrame(frame({ selected: 30, offset: scrollTo(30, 0, 21, 40) }), 80, 24, makePaint(false), NOW);
    expect(lines.filter((l) => l.startsWith('>'))).toHaveLength(1);
  });

  it('show the prompt of each mode in the footer', () => {
    expect(renderFrame(frame({ mode: 'filter', filter: 'ab' }), 80, 24, makePaint(false), NOW)[23]).toContain('filter: ab_');
    expect(renderFrame(frame({ mode: 'confirm', counts: { ...countRecords(records, false), dead: 3 } }), 100, 24, makePaint(false), NOW)[23]).toContain('prune 3 dead claims');
  });
});

describe('the terminal of a process', () => {
  it('reads tty_nr after the last parenthesis', () => {
    expect(ttyNrOfStatLine('12 (a) b) c) S 1 12 12 34816 12 4194560')).toBe(34816);
    expect(ttyNrOfStatLine('12 (sleep) S 1 12 12 0 -1')).toBe(0);
    expect(ttyNrOfStatLine('garbage')).toBeUndefined();
    expect(ttyNrOfStatLine('12 (x) S 1 12')).toBeUndefined();
  });

  it('reads tmux pane lines and skips malformed ones', () => {
    expect(parsePanes('%1\t/dev/pts/3\t@1\tmain\nbogus\t/dev/pts/4\t@1\tmain\n%2\t/dev/pts/5\t@2\ta\tb\n\n')).toEqual([
      { id: '%1', tty: '/dev/pts/3', window: '@1', session: 'main' },
      { id: '%2', tty: '/dev/pts/5', window: '@2', session: 'a\tb' },
    ]);
  });
});
