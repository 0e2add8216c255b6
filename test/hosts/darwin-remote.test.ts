/**
 * The reader's macOS branch, end to end: the shipped reader over a real ssh connection on a remote
 * that says it is Darwin. These are injected answers, not a Mac (docs/hosts.md): `uname` and `ps`
 * are scripts answering from a table this test writes, /proc is an empty tmpfs, and every process
 * the table names is a real `sleep` on the remote, so `kill -0` (a shell builtin) is real. The
 * verdicts must come from the lstart tokens and STAT letters the fake `ps` gave, judged here.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHosts } from '../../lib/hosts/read.js';
import { makeLab, sshdMissing, type Lab, type TestHost } from './sshd.js';

const missing = sshdMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true: the sshd tests cannot run: ${missing}`);

const STARTED = 'Tue Dec  1 10:00:00 2026';
const ANOTHER = 'Tue Dec  1 10:07:31 2026';
const HOUR_OFF = 'Tue Dec  1 11:00:00 2026';

describe.skipIf(missing !== undefined)('a macOS remote (fake uname and ps, no /proc)', () => {
  let lab: Lab;
  let mac: TestHost;

  beforeAll(async () => {
    lab = await makeLab();
    mac = await lab.start('mac');
  });

  afterAll(async () => {
    await lab?.close();
  });

  it('judges lstart tokens, zombies, a recycled PID and a PID ps does not list, as measured there', async () => {
    // Real processes on the remote (its own PID space), started before it turns into a "Mac".
    const [alive, spaced, zombie, recycled, shifted, unlisted, ended] = mac
      .run('for i in 1 2 3 4 5 6 7; do setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $!; done')
      .trim()
      .split('\n')
      .map(Number) as [number, number, number, number, number, number, number];
    mac.run(`kill ${ended}; while kill -0 ${ended} 2>/dev/null; do sleep 0.1; done`);
    const record = (pid: number, fields: Record<string, unknown>) =>
      writeFileSync(join(mac.sessionsDir, `${pid}.json`), JSON.stringify({ pid, sessionId: `s-${pid}`, kind: 'interactive', ...fields }));
    record(alive, { procStart: STARTED, pidDomain: 'darwin', name: 'on-the-mac' });
    record(spaced, { procStart: 'Tue Dec 1 10:00:00 2026' }); // whitespace collapsed: the same start
    record(zombie, { procStart: STARTED, pidDomain: 'darwin' });
    record(recycled, { procStart: STARTED, pidDomain: 'darwin' });
    record(shifted, { procStart: STARTED, pidDomain: 'darwin' });
    record(unlisted, { procStart: STARTED, pidDomain: 'darwin' });
    record(ended, { procStart: STARTED, pidDomain: 'darwin' });
    record(123456, { procStart: STARTED, pidDomain: 'darwin' }); // above macOS's PID_MAX: never handed to ps
    record(4242, { procStart: STARTED, pidDomain: 'linux:0123:pid:[1]' }); // another machine's claim
    mac.darwin([
      { pid: alive, stat: 'Ss', lstart: STARTED },
      { pid: spaced, stat: 'S+', lstart: STARTED },
      { pid: zombie, stat: 'Z', lstart: STARTED },
      { pid: recycled, stat: 'S', lstart: ANOTHER },
      { pid: shifted, stat: 'S', lstart: HOUR_OFF },
    ]);
    try {
      const [scan] = await readHosts(['mac'], { env: lab.env });
      expect(scan!.state).toBe('ok');
      expect(scan!.remote).toMatchObject({ platform: 'darwin', probe: 'ps', pidDomain: 'darwin', proc: 'none' });
      const verdicts = Object.fromEntries(scan!.records.map((r) => [r.pid, r.verdict]));
      expect(verdicts).toEqual({
        [alive]: 'alive',
        [spaced]: 'alive',
        [zombie]: 'zombie',
        [recycled]: 'recycled',
        [shifted]: 'unverified', // a whole hour off may be a writer's time zone (docs/macos.md): not proof
        [unlisted]: 'unverified', // kill -0 says it exists, ps did not list it: never gone
        [ended]: 'gone',
        123456: 'gone',
        4242: 'foreign',
      });
      expect(scan!.records.find((r) => r.pid === alive)).toMatchObject({ host: 'mac', name: 'on-the-mac', live: true });
      expect(scan!.interactive).toBe(true);
      // One ps run, in UTC, for the PIDs that exist and macOS's ps accepts.
      const calls = mac.psCalls();
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatch(/^-o pid=,stat=,lstart= -p [0-9,]+ TZ=UTC$/);
      const asked = calls[0]!.split(' ')[3]!.split(',').map(Number).sort((x, y) => x - y);
      expect(asked).toEqual([alive, spaced, zombie, recycled, shifted, unlisted].sort((x, y) => x - y));

      // A ps that knows none of them (exit 1, empty stderr) proves nothing the kernel contradicts.
      mac.darwin([]);
      const [none] = await readHosts(['mac'], { env: lab.env });
      expect(none!.records.filter((r) => r.verdict !== 'gone' && r.verdict !== 'foreign').map((r) => r.verdict)).toEqual(
        Array(6).fill('unverified'),
      );
    } finally {
      mac.mode('normal');
      mac.run(`kill ${alive} ${spaced} ${zombie} ${recycled} ${shifted} ${unlisted}; rm -f $HOME/.claude/sessions/*.json`);
    }
  }, 60_000);
});
