/**
 * notify's macOS path, by injection (this is not a Mac run): a stub `osascript` on PATH records its
 * argv. The text reaches AppleScript as `argv` items of a fixed script, never inside an AppleScript
 * string, so quotes, backslashes and `" & do shell script "` are inert; newlines, bidi overrides
 * and control characters are removed before. On darwin with osascript on PATH it is the default.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, cliEnv, removeCopy, startCli } from '../cli/run-cli.js';
import { chooseSender } from '../../lib/cli/notify/senders.js';
import { endAll, until } from '../helpers/processes.js';
import { makeRegistry } from '../helpers/registry-fixture.js';
import { startSession } from '../top/helpers.js';

let cli: string;
beforeAll(async () => {
  cli = await builtCli();
});
afterAll(async () => {
  await endAll();
  if (cli) removeCopy(cli);
});

function stubOsascript() {
  const bin = mkdtempSync(join(tmpdir(), 'cps-osascript-'));
  const log = join(bin, 'calls.log');
  writeFileSync(log, '');
  writeFileSync(join(bin, 'osascript'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\037' "$a"; done >> '${log}'\nprintf '\\036' >> '${log}'\n`);
  chmodSync(join(bin, 'osascript'), 0o755);
  const calls = () =>
    readFileSync(log, 'utf8')
      .split('\x1e')
      .slice(0, -1)
      .map((c) => c.split('\x1f').slice(0, -1));
  return { bin, calls, remove: () => rmSync(bin, { recursive: true, force: true }) };
}

describe('notify --via osascript (a stub osascript: not a Mac run)', () => {
  it('passes title and body as argv to a fixed script; quotes and backslashes inert, newlines and bidi gone', async () => {
    const reg = makeRegistry();
    const stub = stubOsascript();
    const child = startCli(cli, ['notify', '--via', 'osascript', '--config-dir', reg.configDir, '--rate-limit', '100'], {
      env: cliEnv({ PATH: `${stub.bin}:${process.env.PATH}` }),
    });
    try {
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const name = 'a"b\\"c & do shell\u202eZ\nY\\';
      const s = startSession(reg, { name, status: 'busy', cwd: '/w/"q"\\b' });
      await until(() => stderr.includes('notifying via osascript'), 'notify to start');
      s.update({ status: 'waiting', waitingFor: 'perm\r\nission "x"' });
      await until(() => stub.calls().length === 1, 'one osascript call');
      const argv = stub.calls()[0]!;
      expect(argv.slice(0, 6)).toEqual(['-e', 'on run argv', '-e', 'display notification (item 2 of argv) with title (item 1 of argv)', '-e', 'end run']);
      expect(argv).toHaveLength(8);
      const [title, body] = argv.slice(6);
      // Quotes and backslashes arrive as they were: they are data in argv, no string to end.
      expect(title).toContain('a"b\\"c & do shell');
      expect(title).toMatch(/Y\\ needs you$/);
      expect(body).toContain('"x"');
      for (const text of [title!, body!]) expect(text).not.toMatch(/[\n\r\u202e\x00-\x1f]/);
      expect(title!.length).toBeLessThanOrEqual(200);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      stub.remove();
      reg.remove();
    }
  });

  it('is the default on darwin when osascript is on PATH, and names its absence', () => {
    const stub = stubOsascript();
    try {
      const env = { PATH: stub.bin };
      expect(chooseSender(undefined, env, () => {}, 'darwin').name).toBe('osascript');
      expect(() => chooseSender('osascript', { PATH: '/nonexistent' }, () => {}, 'darwin')).toThrow(/osascript is not on PATH/);
    } finally {
      stub.remove();
    }
  });
});
