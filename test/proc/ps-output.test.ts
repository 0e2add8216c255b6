import { describe, expect, it } from 'vitest';
import { parsePsRows, readPsRun, type PsRun } from '../../lib/proc/ps-output.js';

// What macOS `ps -o pid=,stat=,lstart= -p …` prints with LC_ALL=C TZ=UTC: right-aligned PIDs, values
// padded with trailing spaces.
const MACOS = [
  '  412 Ss   Mon Nov  9 09:48:50 2026   ',
  '77031 S+   Tue Nov 10 00:00:00 2026   ',
  '99999 Z    Thu Jan  1 00:00:00 1970   ',
  '',
].join('\n');

describe('parsePsRows', () => {
  it('reads PID, STAT and the lstart start time despite padding', () => {
    const rows = parsePsRows(MACOS);
    expect([...rows.keys()]).toEqual([412, 77031, 99999]);
    expect(rows.get(412)).toEqual({ stat: 'Ss', start: 1794217730, exited: false });
    expect(rows.get(77031)).toEqual({ stat: 'S+', start: 1794268800, exited: false });
    expect(rows.get(99999)).toEqual({ stat: 'Z', start: 0, exited: true });
  });

  it('reads procps output (multi-letter STAT, CRLF-free, no trailing padding)', () => {
    const rows = parsePsRows('    1 S<Ll Sun Nov 29 12:08:00 2026\n 3031 Ss   Sun Nov 29 12:13:45 2026\n 3100 Z+   Sun Nov 29 12:13:45 2026\n 3101 X    Sun Nov 29 12:13:45 2026\n');
    expect(rows.get(1)).toEqual({ stat: 'S<Ll', start: Date.UTC(2026, 10, 29, 12, 8, 0) / 1000, exited: false });
    expect(rows.get(3100)!.exited).toBe(true);
    expect(rows.get(3101)!.exited).toBe(true);
  });

  it('skips lines that are not rows: blank, headers, garbage, PID 0 or zero-padded', () => {
    const rows = parsePsRows(
      ['  PID STAT STARTED', 'garbage', '   ', 'ps: warning', '0 S Mon Nov  9 09:48:50 2026', '0012 S Mon Nov  9 09:48:50 2026', '42 S'].join('\n'),
    );
    expect(rows.size).toBe(0);
  });

  it('keeps a row whose start time does not parse, with start undefined', () => {
    const rows = parsePsRows('  500 R    Mon Nov 09 09:48:50 2026\n  501 R    -\n');
    expect(rows.get(500)).toEqual({ stat: 'R', start: undefined, exited: false });
    expect(rows.get(501)).toEqual({ stat: 'R', start: undefined, exited: false });
  });

  it('a truncated last line (ps killed mid-write) gives no start time', () => {
    const rows = parsePsRows('  412 Ss   Mon Nov  9 09:48:50 2026\n  413 Ss   Mon Nov  9 09:4');
    expect(rows.get(412)!.start).toBe(1794217730);
    expect(rows.get(413)!.start).toBeUndefined();
  });
});

describe('readPsRun', () => {
  it('exit 0: complete, and a PID missing from the rows was not found', () => {
    const answer = readPsRun({ status: 0, stdout: MACOS, stderr: '' });
    expect(answer.complete).toBe(true);
    expect(answer.rows.has(412)).toBe(true);
    expect(answer.rows.has(413)).toBe(false);
  });

  it('exit 1 with an empty stderr: none of the PIDs exist (complete, no rows)', () => {
    expect(readPsRun({ status: 1, stdout: '', stderr: '' })).toEqual({ complete: true, rows: new Map() });
    expect(readPsRun({ status: 1, stdout: '', stderr: '  \n' }).complete).toBe(true);
  });

  it('exit 1 with a message on stderr: ps failed, nothing is known', () => {
    const answer = readPsRun({ status: 1, stdout: '', stderr: 'error: process ID out of range\n' });
    expect(answer).toEqual({ complete: false, rows: new Map() });
  });

  it('a failure keeps the rows ps printed before it failed', () => {
    const answer = readPsRun({ status: null, stdout: '  412 Ss   Mon Nov  9 09:48:50 2026\n', stderr: '', error: new Error('spawnSync /bin/ps ETIMEDOUT') });
    expect(answer.complete).toBe(false);
    expect(answer.rows.get(412)!.start).toBe(1794217730);
  });

  it.each<[PsRun, string]>([
    [{ status: null, stdout: '', stderr: '', error: new Error('spawnSync ps ENOENT') }, 'ps missing'],
    [{ status: null, stdout: '', stderr: '' }, 'killed by a signal'],
    [{ status: 2, stdout: '', stderr: '' }, 'another exit status'],
    [{ status: 0, stdout: MACOS, stderr: '', error: new Error('ENOBUFS') }, 'output over maxBuffer'],
  ])('%j is incomplete (%s)', (run) => {
    expect(readPsRun(run).complete).toBe(false);
  });
});
