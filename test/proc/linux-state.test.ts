/**
 * The Linux probe's decisions with injected kill(pid, 0) and /proc/<pid>/stat answers, run against both
 * twins: native/linux_state.h through a small g++ driver, and lib/backend/js-linux.ts through its calls
 * seam. The interesting case is a race no test can schedule on demand: a process that exits (and is
 * reaped) between kill and the stat read must come out `gone`, while hidepid (kill says EPERM, stat is
 * unreadable) stays `unverified`. Real processes are covered in test/backend/probe.test.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linuxProbeInto } from '../../lib/backend/js-linux.js';
import { STATE_NAMES } from '../../lib/backend/types.js';
import { compileDriver, hasGxx, type Driver } from '../helpers/cxx-driver.js';

const EPERM = 1;
const ESRCH = 3;
const STAT = '4242 (sleep) S 1 4242 4242 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 654274470 5 6 7';
const ZOMBIE = STAT.replace(' S ', ' Z ');
const ODD_NAME = '4242 (a) b) (c\nd) R 1 4242 4242 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 99 5 6 7';

interface Case {
  name: string;
  pid: number;
  /** errno of each successive kill(pid, 0): 0 success. */
  kills: number[];
  /** The stat bytes, or null for a read that fails. */
  stat: string | null;
  expected: { state: string; token: number | undefined; kills: number; reads: number };
}

const CASES: Case[] = [
  { name: 'PID 0 and below: no system call', pid: 0, kills: [], stat: null, expected: { state: 'invalid', token: undefined, kills: 0, reads: 0 } },
  { name: 'ESRCH: gone, stat not read', pid: 42, kills: [ESRCH], stat: STAT, expected: { state: 'gone', token: undefined, kills: 1, reads: 0 } },
  { name: 'a running process: alive with field 22', pid: 42, kills: [0], stat: STAT, expected: { state: 'alive', token: 654274470, kills: 1, reads: 1 } },
  { name: 'EPERM (another user), stat readable: alive', pid: 42, kills: [EPERM], stat: STAT, expected: { state: 'alive', token: 654274470, kills: 1, reads: 1 } },
  { name: 'state Z: zombie, keeping its token', pid: 42, kills: [0], stat: ZOMBIE, expected: { state: 'zombie', token: 654274470, kills: 1, reads: 1 } },
  { name: 'a command name with ) spaces and a newline', pid: 42, kills: [0], stat: ODD_NAME, expected: { state: 'alive', token: 99, kills: 1, reads: 1 } },
  {
    name: 'exited and reaped between kill and the stat read: kill asked again says ESRCH → gone',
    pid: 42,
    kills: [0, ESRCH],
    stat: null,
    expected: { state: 'gone', token: undefined, kills: 2, reads: 1 },
  },
  {
    name: 'the same race, the read returning no bytes: gone',
    pid: 42,
    kills: [0, ESRCH],
    stat: '',
    expected: { state: 'gone', token: undefined, kills: 2, reads: 1 },
  },
  {
    name: 'hidepid: kill says EPERM twice, stat unreadable → unverified, never gone',
    pid: 42,
    kills: [EPERM, EPERM],
    stat: null,
    expected: { state: 'unverified', token: undefined, kills: 2, reads: 1 },
  },
  {
    name: 'unreadable stat while kill still succeeds (a PID reused in between): unverified',
    pid: 42,
    kills: [0, 0],
    stat: null,
    expected: { state: 'unverified', token: undefined, kills: 2, reads: 1 },
  },
  {
    name: 'a malformed stat line, then ESRCH: gone',
    pid: 42,
    kills: [0, ESRCH],
    stat: '4242 (sleep S 1',
    expected: { state: 'gone', token: undefined, kills: 2, reads: 1 },
  },
  {
    name: 'a malformed stat line of a process that still exists: unverified',
    pid: 42,
    kills: [0, 0],
    stat: '4242 (sleep) S 1 2 3',
    expected: { state: 'unverified', token: undefined, kills: 2, reads: 1 },
  },
];

type Outcome = Case['expected'];

/** The JS twin with the same injected answers (kill's errno → exists unless ESRCH). */
function runJs(c: Case): Outcome {
  let kills = 0;
  let reads = 0;
  const states = new Uint8Array(1).fill(255);
  const tokens = new Float64Array(1).fill(-1);
  linuxProbeInto(
    {
      killZero() {
        const errno = c.kills[kills++];
        if (errno === undefined) throw new Error('kill called too often');
        return errno !== ESRCH;
      },
      readStat(_pid, buf) {
        if (reads++ > 0) throw new Error('stat read twice');
        if (c.stat === null) return -1;
        return buf.write(c.stat, 0, 'latin1');
      },
    },
    Int32Array.of(c.pid),
    states,
    tokens,
  );
  return { state: STATE_NAMES[states[0]!]!, token: Number.isNaN(tokens[0]) ? undefined : tokens[0], kills, reads };
}

let driver: Driver;

function runNative(cases: Case[]): Outcome[] {
  // One case per line: a newline inside a command name travels as the two characters `\n`.
  const input = cases.map((c) => `${c.pid}\t${c.kills.join(',') || '-'}\t${c.stat === null ? '!' : c.stat.replaceAll('\n', '\\n')}`).join('\n');
  return driver
    .run(`${input}\n`)
    .trimEnd()
    .split('\n')
    .map((line) => {
      const [state, token, kills, reads] = line.split(' ');
      return { state: STATE_NAMES[Number(state)]!, token: token === 'nan' ? undefined : Number(token), kills: Number(kills), reads: Number(reads) };
    });
}

describe('Linux probe decisions, JS twin (js-linux.ts, injected calls)', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(runJs(c)).toEqual(c.expected);
  });
});

describe.skipIf(!hasGxx)('Linux probe decisions, native (linux_state.h, injected calls)', () => {
  beforeAll(() => {
    driver = compileDriver(join(import.meta.dirname, 'linux-state.cc'), 'linux-state');
  }, 130_000);
  afterAll(() => driver?.remove());

  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(runNative([c])).toEqual([c.expected]);
  });

  it('gives the JS twin answers for every case in one batch', () => {
    expect(runNative(CASES)).toEqual(CASES.map(runJs));
  });

  // Under the sanitizers (cxx-driver.ts builds with them where they exist), an out-of-bounds read of a
  // torn or hostile line is a report, and the driver's stderr fails the run.
  it('agrees with the JS twin on 3,000 hostile stat lines: torn, unbalanced, past the 1,024-byte buffer', () => {
    let seed = 20;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const alphabet = ['4', '2', '9', ' ', ' ', ')', '(', 'S', 'Z', 'X', 'R', '\n', 'x', '0', '-'];
    const hostile: Case[] = Array.from({ length: 3000 }, (_, i) => {
      let stat: string;
      if (i % 3 === 0) {
        // A real line cut or mutated at one place.
        const base = [STAT, ZOMBIE, ODD_NAME][random(3)]!;
        const cut = random(base.length + 1);
        stat = base.slice(0, cut) + alphabet[random(alphabet.length)]!.repeat(random(4)) + base.slice(cut + random(3));
      } else {
        stat = Array.from({ length: random(i % 10 === 1 ? 1500 : 120) }, () => alphabet[random(alphabet.length)]).join('');
      }
      stat = stat.replaceAll('\\n', '\n');
      return { name: `hostile ${i}`, pid: 42, kills: [0, random(2) === 0 ? 0 : ESRCH], stat, expected: undefined as unknown as Outcome };
    });
    const js = hostile.map(runJs);
    expect(runNative(hostile)).toEqual(js);
    // The lines reach every answer, not only "unparsable".
    expect(new Set(js.map((o) => o.state))).toEqual(new Set(['alive', 'zombie', 'unverified', 'gone']));
  });
});
