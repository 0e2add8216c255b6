/**
 * The answer parser (lib/hosts/answer.ts) against answers the shipped reader can never print, from
 * the hostile review rev3 (defects 4 and 5): a file, folder or PID twice, a folder without its
 * listing line, loose header values; and one odd file name in a remote registry, which is one
 * skipped candidate as it is locally, not a `bad answer` for the whole host.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAnswer } from '../../lib/hosts/answer.js';
import { judgeAnswer, remoteHasLiveInteractive } from '../../lib/hosts/judge.js';
import { readerInput } from '../../lib/hosts/reader-text.js';
import { procStartTicks, spawnSleep } from '../helpers/processes.js';

const hex = (s: string | Buffer) => Buffer.from(s).toString('hex');
const work = mkdtempSync(join(tmpdir(), 'cps-rev3-answer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DOMAIN = 'linux:remote-machine:pid:[4026531836]';
const HEAD = ['claude-ps-reader 1', 'clock 1700000000', 'platform linux', 'probe proc', `domain ${hex(DOMAIN)}`, 'wsl 0', 'proc ours'];
const answer = (...body: string[]) => [...HEAD, ...body, 'end', ''].join('\n');

/** A record of a real local sleep, claiming the remote's domain, and the measurement of it. */
async function liveFacts() {
  const s = spawnSleep();
  const pid = s.pid;
  const record = hex(JSON.stringify({ pid, sessionId: 's', procStart: procStartTicks(pid), pidDomain: DOMAIN, kind: 'interactive' }));
  const stat = hex(spawnSync('cat', [`/proc/${pid}/stat`], { encoding: 'latin1' }).stdout);
  return { s, pid, file: `file ${pid}.json ok ${record}`, pidLine: `pid ${pid} 0 ${stat} -` };
}

describe('answers of a shape the reader never prints', () => {
  it('refuses the same file twice in one folder (else one session counts twice)', async () => {
    const f = await liveFacts();
    try {
      const parsed = parseAnswer(answer(`dir ${hex('/r/.claude/sessions')}`, 'listing ok', f.file, f.file, f.pidLine));
      const counted = parsed.ok ? judgeAnswer(parsed.answer).records.filter((r) => r.live).length : 'bad answer';
      expect(counted).toBe('bad answer');
    } finally {
      await f.s.end();
    }
  });

  it('refuses the same sessions folder twice (else each of its sessions counts twice)', async () => {
    const f = await liveFacts();
    try {
      const dir = `dir ${hex('/r/.claude/sessions')}`;
      const parsed = parseAnswer(answer(dir, 'listing ok', f.file, dir, 'listing ok', f.file, f.pidLine));
      const counted = parsed.ok ? judgeAnswer(parsed.answer).records.filter((r) => r.live).length : 'bad answer';
      expect(counted).toBe('bad answer');
    } finally {
      await f.s.end();
    }
  });

  it('never takes a folder whose listing was not stated as listed and empty (the guard would say "no")', () => {
    // The reader always prints `listing …` after `dir …`; a `dir` with none must not read as listed.
    const parsed = parseAnswer(answer(`dir ${hex('/r/.claude/sessions')}`));
    const guard = parsed.ok ? remoteHasLiveInteractive(parsed.answer, judgeAnswer(parsed.answer)) : 'bad answer';
    expect(parsed.ok ? parsed.answer.folders.map((f) => f.listing) : 'bad answer').toBe('bad answer');
    expect(guard).toBe('bad answer');
  });

  it('refuses a second listing line for one folder (`unreadable` then `ok` must not read as listed)', () => {
    const parsed = parseAnswer(answer(`dir ${hex('/r/.claude/sessions')}`, `listing unreadable ${hex('Permission denied')}`, 'listing ok'));
    expect(parsed.ok ? parsed.answer.folders[0]!.listing : 'bad answer').toBe('bad answer');
  });

  it('refuses two measurements of one PID ("gone" then "alive" must not read alive)', async () => {
    const f = await liveFacts();
    try {
      const parsed = parseAnswer(answer(`dir ${hex('/r/.claude/sessions')}`, 'listing ok', f.file, `pid ${f.pid} 1 - -`, f.pidLine));
      expect(parsed.ok ? judgeAnswer(parsed.answer).records.map((r) => r.verdict) : 'bad answer').toBe('bad answer');
    } finally {
      await f.s.end();
    }
  });

  it('refuses header values the reader never prints (a format "0001", a clock "yesterday")', () => {
    const odd = answer().replace('claude-ps-reader 1\n', 'claude-ps-reader 0001\n').replace('clock 1700000000', 'clock yesterday');
    expect(parseAnswer(odd).ok).toBe(false);
  });
});

describe('one odd file name in a remote registry', () => {
  it('is one skipped candidate, as it is locally, not a `bad answer` for the whole host', async () => {
    const config = join(work, 'odd-name');
    mkdirSync(join(config, 'sessions'), { recursive: true });
    const s = spawnSleep();
    try {
      writeFileSync(join(config, 'sessions', `${s.pid}.json`), JSON.stringify({ pid: s.pid, sessionId: 'a', procStart: procStartTicks(s.pid) }));
      // 17 digits: a candidate name to isCandidateName, past the parser's PID pattern (16 digits).
      writeFileSync(join(config, 'sessions', '12345678901234567.json'), '{}');
      const r = spawnSync('sh', ['-s'], { input: readerInput([config]), encoding: 'latin1', env: { PATH: '/usr/bin:/bin' } });
      const parsed = parseAnswer(r.stdout);
      expect(parsed.ok ? judgeAnswer(parsed.answer).records.map((x) => x.pid) : parsed.why).toEqual([s.pid]);
      if (!parsed.ok) return;
      // The odd one is a skip (its record cannot match a name beyond a safe integer), never a claim.
      expect(judgeAnswer(parsed.answer).skipped.map((x) => [x.path.endsWith('/12345678901234567.json'), x.reason])).toEqual([[true, 'pid-mismatch']]);
    } finally {
      await s.end();
    }
  });
});

describe('what the one shape still takes', () => {
  it('two config dirs, the same PID in each: both files, one measurement, no refusal', async () => {
    const s = spawnSleep();
    try {
      const dirs = ['one', 'two'].map((n) => join(work, `both-${n}`));
      for (const d of dirs) {
        mkdirSync(join(d, 'sessions'), { recursive: true });
        writeFileSync(join(d, 'sessions', `${s.pid}.json`), JSON.stringify({ pid: s.pid, sessionId: d, procStart: procStartTicks(s.pid) }));
      }
      // A dir given twice is sent once (readerInput), so the answer names each folder once.
      const r = spawnSync('sh', ['-s'], { input: readerInput([...dirs, dirs[0]!]), encoding: 'latin1', env: { PATH: '/usr/bin:/bin' } });
      const parsed = parseAnswer(r.stdout);
      if (!parsed.ok) throw new Error(parsed.why);
      expect(parsed.answer.folders.map((f) => f.listing)).toEqual(['ok', 'ok']);
      expect(judgeAnswer(parsed.answer).records.map((x) => [x.pid, x.sessionId])).toEqual(dirs.map((d) => [s.pid, d]));
    } finally {
      await s.end();
    }
  });

  it('a 17-digit file the remote could not read is judged gone by the guard (no process has that PID)', () => {
    const parsed = parseAnswer(answer(`dir ${hex('/r/.claude/sessions')}`, 'listing ok', 'file 12345678901234567.json unreadable', 'pid 12345678901234567 2 - 2'));
    if (!parsed.ok) throw new Error(parsed.why);
    const scan = judgeAnswer(parsed.answer);
    expect(scan.skipped.map((x) => x.reason)).toEqual(['unreadable']);
    expect(remoteHasLiveInteractive(parsed.answer, scan)).toBe(false);
  });
});
