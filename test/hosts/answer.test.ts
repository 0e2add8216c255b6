/**
 * The reader's answer as untrusted input: the shipped reader run here by `sh` (no ssh), then that
 * answer cut, corrupted and forged. Anything but a complete answer of the one shape is `bad answer`;
 * a forged stat line or ps run is only ever a measurement, judged by registry/verdict.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES, parseAnswer } from '../../lib/hosts/answer.js';
import { judgeAnswer } from '../../lib/hosts/judge.js';
import { readerInput } from '../../lib/hosts/reader-text.js';
import { spawnSleep } from '../helpers/processes.js';

const hex = (s: string) => Buffer.from(s).toString('hex');
const work = mkdtempSync(join(tmpdir(), 'cps-answer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runReader(configDirs: string[], env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync('sh', ['-s'], { input: readerInput(configDirs), encoding: 'latin1', env: { PATH: '/usr/bin:/bin', ...env } });
  expect(r.status).toBe(0);
  return r.stdout;
}

function header(extra: string[] = [], domain = 'linux:m:pid:[1]'): string {
  return ['claude-ps-reader 1', 'clock 1700000000', 'platform linux', 'probe proc', `domain ${hex(domain)}`, 'wsl 0', 'proc ours', ...extra, 'end', ''].join('\n');
}

describe('the reader, run by sh here', () => {
  it('measures a live session, a dead one, and names what it would not read', async () => {
    const config = join(work, 'local');
    mkdirSync(join(config, 'sessions'), { recursive: true });
    const sleeper = spawnSleep();
    try {
      writeFileSync(join(config, 'sessions', `${sleeper.pid}.json`), JSON.stringify({ pid: sleeper.pid, sessionId: 'a' }));
      writeFileSync(join(config, 'sessions', '4194304.json'), JSON.stringify({ pid: 4194304, sessionId: 'b' }));
      writeFileSync(join(config, 'sessions', '0123.json'), '{}');
      const parsed = parseAnswer(runReader([config, join(work, 'none')]));
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      expect(parsed.answer.folders.map((f) => f.listing)).toEqual(['ok', 'missing']);
      expect(parsed.answer.folders[0]!.files.map((f) => f.name).sort()).toEqual([`${sleeper.pid}.json`, '4194304.json'].sort());
      const { records } = judgeAnswer(parsed.answer);
      // Without a token the remote's measurement can only say it exists; the dead PID is gone.
      expect(records.map((r) => [r.pid, r.verdict])).toEqual([
        [sleeper.pid, 'unverified'],
        [4194304, 'gone'],
      ]);
    } finally {
      await sleeper.end();
    }
  });

  it('CLAUDE_PS_BACKEND=ps on the remote measures with ps (the macOS path), tokens as lstart text', async () => {
    const config = join(work, 'ps');
    mkdirSync(join(config, 'sessions'), { recursive: true });
    const sleeper = spawnSleep();
    try {
      const lstart = spawnSync('ps', ['-o', 'lstart=', '-p', String(sleeper.pid)], { encoding: 'utf8', env: { TZ: 'UTC', LC_ALL: 'C', PATH: '/usr/bin:/bin' } }).stdout.trim();
      writeFileSync(join(config, 'sessions', `${sleeper.pid}.json`), JSON.stringify({ pid: sleeper.pid, sessionId: 'a', procStart: lstart }));
      writeFileSync(join(config, 'sessions', '3.json'), JSON.stringify({ pid: 3, sessionId: 'b', procStart: 'Mon Jan  1 00:00:00 2001' }));
      const parsed = parseAnswer(runReader([config], { CLAUDE_PS_BACKEND: 'ps' }));
      expect(parsed.ok && parsed.answer.probe).toBe('ps');
      if (!parsed.ok) return;
      const verdicts = Object.fromEntries(judgeAnswer(parsed.answer).records.map((r) => [r.pid, r.verdict]));
      expect(verdicts[sleeper.pid]).toBe('alive');
      // PID 3 exists here (a kernel thread or init's child) or not; either way not this 2001 process.
      expect(['recycled', 'gone', 'unverified']).toContain(verdicts[3]);
    } finally {
      await sleeper.end();
    }
  });

  it('every cut of a complete answer is a bad answer, never a shorter registry', () => {
    const config = join(work, 'cut');
    mkdirSync(join(config, 'sessions'), { recursive: true });
    for (let pid = 2; pid < 6; pid++) writeFileSync(join(config, 'sessions', `${pid}.json`), JSON.stringify({ pid, sessionId: `s${pid}` }));
    const full = runReader([config]);
    expect(parseAnswer(full).ok).toBe(true);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: full.length - 2 }), (cut) => {
        expect(parseAnswer(full.slice(0, cut)).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a forged or broken answer', () => {
  it('is refused with the line and the reason', () => {
    const listed = ['dir 2f78', 'listing ok'];
    const cases: [string, RegExp][] = [
      ['HTTP/1.1 200 OK\n', /line 1: it does not start/],
      ['claude-ps-reader 2\n', /format 2/],
      [header().replace('wsl 0', 'wsl maybe'), /wsl/],
      [header(['dir 2f78', 'listing ok', 'file ../../etc/passwd ok 00']), /not <pid>\.json/],
      [header(['dir 2f78', 'listing ok', 'file 12.json ok 7g']), /not hex/],
      [header(['dir 2f78', 'listing ok', 'file 12.json ok 7']), /not hex/],
      [header([...listed, 'file 12.json unreadable', 'pid 12 3 - -']), /kill answer/],
      [header([...listed, 'file 12.json unreadable', 'pid 012 0 - 0']), /not a PID/],
      [header([...listed, 'pid 99999999999999999 0 - 0']), /names no file/],
      [header(['file 12.json ok 00']), /outside a listed folder/],
      // The one order the reader prints: each dir with its listing, files, then pids, ps, end.
      [header([]), /names no sessions folder/],
      [header(['dir 2f78', 'file 12.json ok 00']), /outside a listed folder/],
      [header(['dir 2f78', 'listing missing', 'file 12.json ok 00']), /outside a listed folder/],
      [header(['dir 2f78', 'listing ok', 'listing ok']), /follows no "dir"/],
      [header(['dir 2f78', 'listing unreadable']), /listing line is malformed/],
      [header(['dir 2f78', 'listing ok 00']), /listing line is malformed/],
      [header(['dir 2f78', 'dir 2f79', 'listing ok']), /no "listing" line/],
      [header(['dir 2f78', 'listing ok', 'dir 2f79']), /no "listing" line/],
      [header([...listed, 'file 12.json symlink', 'pid 12 1 - -']), /names no file/],
      [header([...listed, 'file 12.json unreadable', 'pid 12 1 - -', 'dir 2f79', 'listing ok']), /after the measurements/],
      [header([...listed, 'file 12.json unreadable', 'pid 12 1 - -', 'file 13.json unreadable']), /outside a listed folder/],
      [header([...listed, 'file 12.json unreadable', 'pid 12 1 - 0']), /pid line is malformed/],
      [header([...listed, 'file 12.json unreadable', 'pid 12 0 - -']), /pid line is malformed/],
      [header([...listed, 'file 12.json unreadable', 'pid 12 0 00 0']), /pid line is malformed/],
      [header([...listed, 'file 12.json unreadable', 'pid 12 1 - -', 'pid 12 1 - -']), /measured twice/],
      [header([...listed, 'file 12.json unreadable', 'ps 0 00 -']), /where the reader prints none/],
      [header().replace('clock 1700000000', 'clock 017'), /line 2: the clock/],
      [header().replace('probe proc', 'probe ps').replace('end\n', 'dir 2f78\nlisting ok\nps 0 00 -\nps 0 00 -\nend\n'), /where the reader prints none/],
      [header() + 'more\n', /after "end"/],
      [header(['\u001b[2Jdir 00']), /unexpected line \("\\u001b\[2Jdir"\)/],
    ];
    for (const [text, why] of cases) {
      const parsed = parseAnswer(text);
      expect(parsed.ok, text).toBe(false);
      if (!parsed.ok) expect(parsed.why).toMatch(why);
    }
    expect(parseAnswer('x'.repeat(MAX_ANSWER_BYTES + 1))).toEqual({ ok: false, why: expect.stringMatching(/over/) });
  });

  it('forged measurements are judged, not believed beyond what they say', () => {
    const record = (pid: number, extra: object = {}) => hex(JSON.stringify({ pid, sessionId: `s${pid}`, pidDomain: 'linux:m:pid:[1]', ...extra }));
    const stat = (pid: number, state: string, ticks: string) => hex(`${pid} (evil) name) ${state} 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 ${ticks} 1 1`);
    const text = header([
      'dir 2f78',
      'listing ok',
      `file 10.json ok ${record(10, { procStart: '500' })}`,
      `file 11.json ok ${record(11, { procStart: '500' })}`,
      `file 12.json ok ${record(12, { procStart: '500' })}`,
      `file 13.json ok ${record(13, { procStart: '500', pidDomain: 'linux:other:pid:[2]' })}`,
      `file 14.json ok ${record(14, { procStart: '500' })}`,
      `pid 10 0 ${stat(10, 'S', '500')} -`,
      `pid 11 0 ${stat(11, 'S', '501')} -`,
      `pid 12 0 ${stat(12, 'Z', '500')} -`,
      'pid 13 0 - 0',
      // 14 is not measured at all: it exists as far as anyone knows.
    ]);
    const parsed = parseAnswer(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const verdicts = judgeAnswer(parsed.answer).records.map((r) => [r.pid, r.verdict]);
    expect(verdicts).toEqual([
      [10, 'alive'],
      [11, 'recycled'],
      [12, 'zombie'],
      [13, 'foreign'],
      [14, 'unverified'],
    ]);
    // A /proc of another namespace: the same stat lines give no token.
    const foreign = parseAnswer(text.replace('proc ours', 'proc foreign'));
    if (!foreign.ok) throw new Error(foreign.why);
    expect(judgeAnswer(foreign.answer).records.map((r) => r.verdict)).toEqual(['unverified', 'unverified', 'unverified', 'foreign', 'unverified']);
  });
});
