/**
 * What a remote's listing proves (written by the rev3 review as review-remote-listing.test.ts).
 * Locally a "no" or a `removed` rests on a listing whose folder stamps were equal before and after
 * (docs/guard.md, #20); the sh reader used to glob `sessions/*.json` once, and said "no" in 32 of 152
 * reads during prune's put-back move. Now it lists by the same rule and prints `listing unproven`
 * when it cannot prove a listing complete, which is "cannot tell". With no sshd: CLAUDE_PS_SSH names
 * a script that runs the remote command here, or prints a prepared answer when one is there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAnswer } from '../../lib/hosts/answer.js';
import { readHosts } from '../../lib/hosts/read.js';
import { watchHosts, type HostWatchEvent } from '../../lib/hosts/watch.js';
import { procStartTicks, spawnSleep, type Spawned } from '../helpers/processes.js';
import { asideNameFor } from '../../lib/registry/prune/names.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../helpers/registry-fixture.js';

const MOVER = fileURLToPath(new URL('../fixtures/put-back-mover.mjs', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cps-rev3-listing-'));
const lie = join(work, 'lie');
const shim = join(work, 'shim.sh');
const moved = join(work, 'moved');

/**
 * Shell functions the fake ssh puts before the reader: the first `ls -lnd` (read_batch's look at a
 * batch's types and sizes, after the listing was proven) first moves every record to its aside name,
 * as prune's put-back move does, so the reads find none of the listed names. With `pinnedStat`, stat(1)
 * answers one stamp for ever: a folder clock too coarse to show the move, so only the reads can tell.
 */
function moveAtFirstRead(pinnedStat: boolean): void {
  writeFileSync(
    shim,
    [
      'ls() {',
      `  if [ "$1" = -lnd ] && [ ! -e ${moved} ]; then`,
      `    : >${moved}`,
      '    set +f; for f in [1-9]*.json; do ln "$f" ".$f.prune-0123456789abcdef" && rm "$f"; done; set -f',
      '  fi',
      '  command ls "$@"',
      '}',
      ...(pinnedStat ? ["stat() { echo '2026-12-02 05:00:00.123456789 +0000|1|2|2026-12-02 05:00:00.123456789 +0000|4096'; }"] : []),
      '',
    ].join('\n'),
  );
  rmSync(moved, { force: true });
}
let env: NodeJS.ProcessEnv;
let reg: RegistryFixture;
let session: Spawned;

beforeAll(() => {
  const fake = join(work, 'fake-ssh');
  writeFileSync(
    fake,
    [
      '#!/bin/sh',
      `if [ -f ${lie} ]; then cat >/dev/null; exec cat ${lie}; fi`,
      'while [ $# -gt 0 ]; do case $1 in --) shift; break ;; -o) shift 2 ;; *) shift ;; esac; done',
      'shift',
      // A shim put before the reader (its own shell functions over ls or stat): a move at a chosen step.
      `if [ -f ${shim} ]; then { cat ${shim}; cat; } | /bin/sh -c "$*"; exit; fi`,
      'exec /bin/sh -c "$*"',
      '',
    ].join('\n'),
  );
  chmodSync(fake, 0o755);
  reg = makeRegistry('cps-rev3-listing-reg-');
  session = spawnSleep();
  reg.write(session.pid, sessionRecord(session.pid, { procStart: procStartTicks(session.pid), kind: 'interactive', status: 'idle' }));
  env = { ...process.env, CLAUDE_PS_SSH: fake, XDG_RUNTIME_DIR: '' };
});

/** A mover killed mid-cycle may leave the record at its aside name: put it home, so later tests start from one file. */
function putHome(): void {
  const home = join(reg.sessions, `${session.pid}.json`);
  for (const name of readdirSync(reg.sessions)) {
    if (!name.startsWith(`.${session.pid}.json.prune-`)) continue;
    if (existsSync(home)) unlinkSync(join(reg.sessions, name));
    else renameSync(join(reg.sessions, name), home);
  }
}

afterAll(async () => {
  await session?.end();
  reg?.remove();
  rmSync(work, { recursive: true, force: true });
});

/** A watcher of the fake host; its change and host events as lines (`added <pid>`, `host ok`). */
function watchBox(intervalMs: number): { watcher: ReturnType<typeof watchHosts>; events: string[] } {
  const events: string[] = [];
  const watcher = watchHosts(['box'], { env, remoteConfigDirs: [reg.configDir], intervalMs, timeoutMs: 15_000 });
  watcher.on('change', (e: HostWatchEvent) => events.push(`${e.type} ${e.record.pid}`));
  watcher.on('host', (e: { state: string }) => events.push(`host ${e.state}`));
  watcher.on('error', () => {});
  return { watcher, events };
}

/** Until `line` is among `events`, 15 s at most (the caller asserts it is). */
async function seen(events: string[], line: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!events.includes(line) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

describe('a remote listing', () => {
  it('`listing unproven` carries its reason, and takes no file lines', () => {
    const hex = (t: string) => Buffer.from(t).toString('hex');
    const head = ['claude-ps-reader 1', 'clock 1', 'platform linux', 'probe proc', `domain ${hex('linux:x:y')}`, 'wsl 0', 'proc ours', `dir ${hex('/r/sessions')}`];
    const answer = (...body: string[]) => parseAnswer([...head, ...body, 'end', ''].join('\n'));
    const ok = answer(`listing unproven ${hex('the folder kept changing')}`);
    expect(ok.ok && ok.answer.folders[0]).toMatchObject({ listing: 'unproven', listingError: 'the folder kept changing', files: [] });
    expect(answer('listing unproven')).toMatchObject({ ok: false, why: expect.stringMatching(/malformed/) });
    expect(answer(`listing unproven ${hex('x')}`, 'file 12.json ok 00')).toMatchObject({ ok: false, why: expect.stringMatching(/outside a listed folder/) });
  });

  it('of a quiet folder is proven: the guard says yes, and the host is ok', async () => {
    const [scan] = await readHosts(['box'], { env, remoteConfigDirs: [reg.configDir], timeoutMs: 15_000 });
    expect(scan!.state).toBe('ok');
    expect(scan!.interactive).toBe(true);
  });

  it('the guard over a remote never says "no" while a live interactive session is being put back (prune\'s move)', async () => {
    const mover: ChildProcess = spawn(process.execPath, [MOVER, reg.sessions, String(session.pid)], { stdio: 'ignore' });
    const answers: (boolean | undefined)[] = [];
    try {
      const until = Date.now() + 6000;
      while (Date.now() < until) {
        const [scan] = await readHosts(['box'], { env, remoteConfigDirs: [reg.configDir], timeoutMs: 15_000 });
        answers.push(scan!.interactive);
      }
    } finally {
      mover.kill('SIGKILL');
      await new Promise((r) => mover.once('exit', r));
      putHome();
    }
    // Only `true` or `undefined` (cannot tell), as the local guard answers in the same race
    // (test/registry/read/put-back-race.test.ts).
    const no = answers.filter((a) => a === false).length;
    const unknown = answers.filter((a) => a === undefined).length;
    console.log(`remote guard during the put-back move: ${answers.length} reads, ${no} no, ${unknown} cannot tell`);
    expect({ reads: answers.length, no }).toEqual({ reads: answers.length, no: 0 });
    expect(answers.length).toBeGreaterThan(0);
  });

  it('watch --host: a remote whose listing turns unproven (prune\'s move) is no `removed`, and says so', async () => {
    const { watcher, events } = watchBox(100);
    let mover: ChildProcess | undefined;
    try {
      await seen(events, `added ${session.pid}`);
      expect(events).toContain(`added ${session.pid}`);
      mover = spawn(process.execPath, [MOVER, reg.sessions, String(session.pid)], { stdio: 'ignore' });
      await seen(events, 'host unreadable');
      await new Promise((r) => setTimeout(r, 1500));
      expect(events).toContain('host unreadable');
      expect(events.filter((e) => e.startsWith('removed'))).toEqual([]);
    } finally {
      mover?.kill('SIGKILL');
      if (mover) await new Promise((r) => mover!.once('exit', r));
      putHome();
      watcher.close();
    }
  });

  it.each([
    ['a folder stamp that shows the move', false],
    ['a folder clock too coarse to show it', true],
  ])('a record moved aside between the proven listing and its read is "cannot tell", never a "no" (%s)', async (_, pinnedStat) => {
    moveAtFirstRead(pinnedStat);
    try {
      const [scan] = await readHosts(['box'], { env, remoteConfigDirs: [reg.configDir], timeoutMs: 15_000 });
      expect(existsSync(moved)).toBe(true);
      // The reader read the folder again, found the record aside, and proved nothing.
      expect({ state: scan!.state, interactive: scan!.interactive }).toEqual({ state: 'unreadable', interactive: undefined });
      expect(scan!.detail).toContain(`.${session.pid}.json.prune-`);
    } finally {
      rmSync(shim, { force: true });
      putHome();
    }
    const [after] = await readHosts(['box'], { env, remoteConfigDirs: [reg.configDir], timeoutMs: 15_000 });
    expect({ state: after!.state, interactive: after!.interactive }).toEqual({ state: 'ok', interactive: true });
  });

  it('watch --host: a record moved aside between the proven listing and its read is no `removed`', async () => {
    const { watcher, events } = watchBox(100);
    try {
      await seen(events, `added ${session.pid}`);
      expect(events).toContain(`added ${session.pid}`);
      moveAtFirstRead(true);
      await seen(events, 'host unreadable');
      expect(existsSync(moved)).toBe(true);
      expect(events).toContain('host unreadable');
      expect(events.filter((e) => e.startsWith('removed'))).toEqual([]);
    } finally {
      rmSync(shim, { force: true });
      putHome();
      watcher.close();
    }
  });

  it('watch --host: a remote that answered, then sends a folder with no listing line, is no `removed`', async () => {
    rmSync(lie, { force: true });
    const { watcher, events } = watchBox(200);
    try {
      await seen(events, `added ${session.pid}`);
      expect(events).toContain(`added ${session.pid}`);
      const hex = (s: string) => Buffer.from(s).toString('hex');
      // The header as the real reader prints it, then the folder with its `listing` line missing.
      writeFileSync(
        lie,
        ['claude-ps-reader 1', `clock ${Math.floor(Date.now() / 1000)}`, 'platform linux', 'probe proc', `domain ${hex('linux:x:y')}`, 'wsl 0', 'proc ours', `dir ${hex(reg.sessions)}`, 'end', ''].join('\n'),
      );
      await new Promise((r) => setTimeout(r, 1500));
      expect(existsSync(lie)).toBe(true);
      // `bad answer` (a host event), the record kept: never `removed <pid>`.
      expect(events.filter((e) => e.startsWith('removed'))).toEqual([]);
    } finally {
      watcher.close();
      rmSync(lie, { force: true });
    }
  });

  it('watch --host, a remote that answered and then prints garbage, is a `bad answer` host event and no `removed`', async () => {
    rmSync(lie, { force: true });
    const { watcher, events } = watchBox(200);
    try {
      await seen(events, `added ${session.pid}`);
      writeFileSync(lie, 'claude-ps-reader 1\nclock 1\nHTTP/1.1 200 OK\r\n\r\n');
      await seen(events, 'host bad answer');
      rmSync(lie, { force: true });
      await new Promise((r) => setTimeout(r, 1500)); // it answers again (after a backoff)
      expect(events).toContain('host bad answer');
      expect(events.filter((e) => e.startsWith('removed'))).toEqual([]);
    } finally {
      watcher.close();
      rmSync(lie, { force: true });
    }
  });
  it('a live session whose only copy an interrupted prune left aside is "cannot tell", never a "no"', async () => {
    // Locally the scan reads `.<pid>.json.prune-<hex>` as a claim (docs/prune.md); the sh reader does not,
    // so it must not prove such a listing: the host is unreadable and the guard cannot tell.
    const name = `${session.pid}.json`;
    const aside = asideNameFor(name, '0123456789abcdef');
    renameSync(join(reg.sessions, name), join(reg.sessions, aside));
    try {
      const [scan] = await readHosts(['box'], { env, remoteConfigDirs: [reg.configDir], timeoutMs: 15_000 });
      expect(scan!.state).toBe('unreadable');
      expect(scan!.interactive).toBeUndefined();
      expect(scan!.detail).toContain(aside);
    } finally {
      renameSync(join(reg.sessions, aside), join(reg.sessions, name));
    }
    const [after] = await readHosts(['box'], { env, remoteConfigDirs: [reg.configDir], timeoutMs: 15_000 });
    expect(after!.interactive).toBe(true);
  });
});
