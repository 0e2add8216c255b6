import { describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/cli/args.js';
import { splitCommandLine } from '../../lib/cli/statusline/command-line.js';
import { findSelf } from '../../lib/cli/statusline/self.js';
import { othersLine, parseStatuslineTemplate, renderStatusline } from '../../lib/cli/statusline/template.js';
import { sanitise, viewFor } from '../../lib/cli/statusline/view.js';
import type { SessionRecord, Verdict } from '../../lib/registry/types.js';

// Records as the reader returns them (plain objects: the view and template are pure functions of them).
function rec(pid: number, fields: Partial<SessionRecord> = {}): SessionRecord {
  const verdict: Verdict = fields.verdict ?? 'alive';
  return {
    path: `/cfg/sessions/${pid}.json`,
    pid,
    sessionId: `session-${pid}`,
    kind: 'interactive',
    interactive: true,
    verdict,
    live: !['gone', 'recycled', 'zombie'].includes(verdict),
    status: 'idle',
    raw: {},
    ...fields,
  } as SessionRecord;
}

const render = (t: string, records: SessionRecord[], self: SessionRecord[] = []) =>
  renderStatusline(parseStatuslineTemplate(t), viewFor(records, self));

describe('the statusline line', () => {
  const me = rec(100, { status: 'busy', name: 'me' });
  const records = [
    me,
    rec(200, { status: 'waiting', name: 'api-3f', waitingFor: 'permission prompt', statusUpdatedAt: 2000 }),
    rec(300, { status: 'busy' }),
    rec(400, { status: 'busy', kind: 'bg', interactive: false }),
    rec(500, { status: 'waiting', name: 'web', statusUpdatedAt: 1000 }),
    rec(600, { status: 'busy', verdict: 'gone' }),
  ];

  it('names the waiting others (longest waiting first), counts the rest, and leaves this session out', () => {
    expect(render('{others}', records, [me])).toBe('⏳ web · ⏳ api-3f (permission prompt) · 2 busy');
    // Without a self, this session's own "busy" counts as another's.
    expect(render('{others}', records)).toBe('⏳ web · ⏳ api-3f (permission prompt) · 3 busy');
  });

  it('is empty when no other session is live', () => {
    expect(render('{others}', [me, rec(600, { verdict: 'recycled' })], [me])).toBe('');
    expect(render('{others.live:# others}', [me], [me])).toBe('');
  });

  it('has the summary keys for all sessions and the same counts for the others', () => {
    const t = '{busy}/{others.busy} {waiting}/{others.waiting} {live}/{others.live} {dead} {background} [{summary}] [{others.summary}]';
    expect(render(t, records, [me])).toBe('3/2 2/2 5/4 1 1 [3 busy · 2 waiting] [2 busy · 2 waiting]');
  });

  it('lists the waiters and this session\'s own status', () => {
    expect(render('{waiters}', records, [me])).toBe('web, api-3f (permission prompt)');
    expect(render('{self.status}|{self.name}|{self.status:(#)}|{self.waitingFor:[#]}', records, [me])).toBe('busy|me|(busy)|');
    expect(render('{self.status:(#)}', records, [])).toBe('');
  });

  it('names at most three waiters and counts the rest', () => {
    const many = [1, 2, 3, 4, 5].map((i) => rec(i, { status: 'waiting', name: `w${i}`, statusUpdatedAt: i }));
    expect(othersLine(viewFor(many, []))).toBe('⏳ w1 · ⏳ w2 · ⏳ w3 · +2 waiting');
  });

  it('labels a nameless waiter by its folder, else by its PID', () => {
    expect(render('{waiters}', [rec(7, { status: 'waiting', cwd: '/src/app' }), rec(8, { status: 'waiting' })])).toBe('app, pid 8');
  });

  it('sanitises every value from another program: escapes, bidi overrides, newlines, length', () => {
    const hostile = rec(9, {
      status: 'waiting',
      name: '\x1b]0;pwned\x07evil\u202ename\nline2',
      waitingFor: '\x9b31m' + 'x'.repeat(100),
    });
    const line = render('{others}', [hostile]);
    expect(line).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
    expect(line.startsWith('⏳ ]0;pwned evilname line2')).toBe(true);
    expect(line.length).toBeLessThan(80);
    expect(sanitise('a\u200b\u2066b', 10)).toBe('ab');
  });

  it('never cuts a character in half, and drops lone surrogates and the Arabic letter mark (a bidi mark)', () => {
    const wellFormed = (s: string) => !/\p{Cs}/u.test(s);
    const emoji = '\u{1F600}'.repeat(30);
    for (const max of [23, 24, 25]) {
      const cut = sanitise(emoji, max);
      expect(wellFormed(cut)).toBe(true);
      expect(cut.endsWith('…')).toBe(true);
      expect(cut.length).toBeLessThanOrEqual(max);
    }
    expect(render('{waiters}', [rec(1, { status: 'waiting', name: emoji })])).toMatch(/^(\u{1F600})+…$/u);
    expect(sanitise('a\ud800b\udfffc', 10)).toBe('abc');
    expect(sanitise('\u061cab\u200e', 10)).toBe('ab');
  });

  it('inserts a value holding $& or # as written', () => {
    expect(render('{waiters:<#>}', [rec(1, { status: 'waiting', name: "$& $' #1" })])).toBe("<$& $' #1>");
  });

  it('keeps the template\'s own text (colours included) and rejects unknown keys', () => {
    expect(render('\x1b[33m{others.busy:#}\x1b[0m', [rec(1, { status: 'busy' })])).toBe('\x1b[33m1\x1b[0m');
    expect(() => parseStatuslineTemplate('{others.bussy}')).toThrow(UsageError);
    expect(() => parseStatuslineTemplate('{self}')).toThrow(/unknown key \{self\}/);
  });
});

describe('finding this session', () => {
  const a = rec(111, { sessionId: 'aaa' });
  const b = rec(222, { sessionId: 'bbb' });
  const records = [a, b];

  it('trusts CLAUDE_PID when a local record has that PID', () => {
    expect(findSelf(records, { CLAUDE_PID: '222', CLAUDE_CODE_SESSION_ID: 'aaa' }, 'aaa')).toEqual({ records: [b], by: 'CLAUDE_PID' });
  });

  it('falls back to the stdin session id, then the environment\'s, when CLAUDE_PID has no record', () => {
    expect(findSelf(records, { CLAUDE_PID: '333', CLAUDE_CODE_SESSION_ID: 'bbb' }, 'aaa').by).toBe('session_id');
    expect(findSelf(records, { CLAUDE_PID: '333', CLAUDE_CODE_SESSION_ID: 'bbb' }, undefined)).toEqual({ records: [b], by: 'CLAUDE_CODE_SESSION_ID' });
    expect(findSelf(records, { CLAUDE_CODE_SESSION_ID: 'bbb' }, 'nope').records).toEqual([b]);
  });

  it('finds none when nothing matches: every session is another', () => {
    expect(findSelf(records, {}, undefined)).toEqual({ records: [], by: 'none' });
    expect(findSelf(records, { CLAUDE_PID: '' }, '')).toEqual({ records: [], by: 'none' });
  });

  it('rejects a CLAUDE_PID that is not a canonical positive integer, and says so', () => {
    for (const bad of ['0', '-1', '0111', '111.0', '1e3', ' 111', '111abc', '99999999999999999999']) {
      const found = findSelf(records, { CLAUDE_PID: bad }, undefined);
      expect(found.records, bad).toEqual([]);
      expect(found.problem, bad).toMatch(/CLAUDE_PID is not a PID/);
    }
  });

  it('never takes a foreign record (another PID space) for this process', () => {
    const foreign = rec(111, { verdict: 'foreign', sessionId: 'zzz' });
    expect(findSelf([foreign], { CLAUDE_PID: '111' }, undefined).records).toEqual([]);
  });
});

describe('splitting an --exec command line without a shell', () => {
  it('splits on blanks and honours quotes and backslashes', () => {
    expect(splitCommandLine(`notify-send  'Claude: $X'  "a \\"b\\" \\$c" d\\ e ''`)).toEqual(['notify-send', 'Claude: $X', 'a "b" $c', 'd e', '']);
    expect(splitCommandLine('a;b|c $(rm) `x`')).toEqual(['a;b|c', '$(rm)', '`x`']);
  });

  it('rejects an unclosed quote and an empty command', () => {
    expect(() => splitCommandLine("echo 'x")).toThrow(/unclosed single quote/);
    expect(() => splitCommandLine('echo "x')).toThrow(/unclosed double quote/);
    expect(() => splitCommandLine('  ')).toThrow(UsageError);
  });
});
