import { describe, expect, it } from 'vitest';
import { parsePsRows, readPsRun, type PsRun } from '../../lib/proc/ps-output.js';

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;

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

/**
 * macOS `ps -o pid=,stat=,lstart= -p …` (LC_ALL=C TZ=UTC), in the layout of Apple's ps (adv_cmds
 * ps/keyword.c, print.c): PID right-aligned in 5 columns, STAT left-aligned in 4 (longer ones overflow),
 * lstart strftime `%c` left-aligned in 28, so every line ends in spaces. STAT is one of `RUSITH?` (`?`
 * when ps cannot read the task, e.g. another user's), or T / Z from p_stat, then the flags `<` `N` `X`
 * (traced) `E` (exiting) `V` `L` `s` `+`. Output is sorted by terminal, then PID; a PID that does not
 * exist is simply missing. Facts: docs/macos.md.
 */
const BSD = [
  '    1 Ss   Tue Dec  1 00:00:00 2026    ',
  '  412 R+   Fri Dec 11 00:00:00 2026    ',
  '  631 SNXs+ Sat Sep  5 05:21:48 2026    ',
  '  632 IE   Sat Sep  5 05:21:48 2026    ',
  ' 5003 U    Thu Dec 31 23:59:59 2026    ',
  ' 5004 Z    Fri Jan  1 00:00:00 2027    ',
  '77031 SN   Mon Nov  9 09:48:50 2026    ',
  '99999 ?s   Thu Jan  1 00:00:00 1970    ',
  '',
].join('\n');

describe('macOS (BSD) ps output, golden', () => {
  const rows = parsePsRows(BSD);

  it('reads every row, PIDs of one to five digits', () => {
    expect([...rows.keys()]).toEqual([1, 412, 631, 632, 5003, 5004, 77031, 99999]);
  });

  it.each<[number, string, number, boolean]>([
    [1, 'Ss', utc(2026, 12, 1), false], // a session leader; space-padded day
    [412, 'R+', utc(2026, 12, 11), false], // running in the foreground; two-digit day
    [631, 'SNXs+', utc(2026, 9, 5, 5, 21, 48), false], // a STAT wider than its column (traced: X is a flag here)
    [632, 'IE', utc(2026, 9, 5, 5, 21, 48), false], // idle and exiting, not yet a zombie: still a process
    [5003, 'U', utc(2026, 12, 31, 23, 59, 59), false], // uninterruptible; the last second of a year
    [5004, 'Z', utc(2027, 1, 1), true], // a zombie started on the first second of the next year
    [77031, 'SN', utc(2026, 11, 9, 9, 48, 50), false], // niced
    [99999, '?s', 0, false], // a task ps could not read; the largest macOS PID; epoch 0
  ])('PID %d: STAT %j, start %d, exited %s', (pid, stat, start, exited) => {
    expect(rows.get(pid)).toEqual({ stat, start, exited });
  });

  it('does not take a BSD flag X (traced) for procps X (dead): only the first letter says exited', () => {
    expect(parsePsRows('  700 SX   Sat Sep  5 05:21:48 2026    \n').get(700)!.exited).toBe(false);
  });

  it('reads the same rows with CRLF line ends and tabs (a wrapper that rewrote them)', () => {
    const mangled = parsePsRows(BSD.replaceAll('\n', '\r\n').replaceAll('   ', '\t'));
    expect(mangled).toEqual(rows);
  });

  it('exit 0: complete; an asked-for PID missing from the rows was not found', () => {
    const answer = readPsRun({ status: 0, stdout: BSD, stderr: '' });
    expect(answer.complete).toBe(true);
    expect(answer.rows.has(413)).toBe(false);
  });
});

describe('macOS (BSD) ps failure modes', () => {
  it('none of the PIDs exist: exit 1, no output, silent stderr — complete, nothing found', () => {
    // ps.c: `if (nkept == 0) exit(1)` after printing an empty header (all columns are `=`-blank).
    expect(readPsRun({ status: 1, stdout: '', stderr: '' })).toEqual({ complete: true, rows: new Map() });
  });

  it.each<[string, string]>([
    ['ps: Invalid (zero-length) process id\n', 'an empty element in the list (`-p ""` or `-p 1,,2`)'],
    ['ps: process id too large: 100000\n', 'a PID above 99999: the whole run fails, nothing is printed'],
    ['ps: Invalid process id: 12a\n', 'a PID that is not a number'],
    ['ps: stdout: Broken pipe\n', 'ps could not write its output'],
  ])('exit 1 with %j on stderr (%s): incomplete, so no PID is taken as not found', (stderr) => {
    expect(readPsRun({ status: 1, stdout: '', stderr })).toEqual({ complete: false, rows: new Map() });
  });

  it('a usage message (exit 1) is a failure too, even with lines on stdout', () => {
    const answer = readPsRun({ status: 1, stdout: 'usage: ps [-AaCcEefhjlMmrSTvwXx] ...\n', stderr: 'ps: illegal argument: x\n' });
    expect(answer.complete).toBe(false);
    expect(answer.rows.size).toBe(0);
  });
});
