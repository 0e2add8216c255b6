// The CLI bundle under node.exe: the statusline render Claude Code for Windows would start, and
// `watch --exec` running a command per event without a shell.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cli, endAll, endChild, makeRegistry, runCli, startChild, until } from './helpers.mjs';

after(endAll);

test('statusline under node.exe: the other sessions, not our own, exit 0, one line', async () => {
  const reg = makeRegistry();
  const [self, waiting, busy] = await Promise.all([startChild(), startChild(), startChild()]);
  try {
    reg.write(self.pid, { procStartFt: self.token, status: 'busy' });
    reg.write(waiting.pid, { procStartFt: waiting.token, status: 'waiting', waitingFor: 'permission prompt', name: 'api' });
    reg.write(busy.pid, { procStartFt: busy.token, status: 'busy' });
    const out = runCli(['statusline', '--config-dir', reg.configDir], { CLAUDE_PID: String(self.pid) });
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stderr, '');
    assert.match(out.stdout, /permission prompt/);
    assert.match(out.stdout, /1 busy/);
    assert.equal(out.stdout.trimEnd().split('\n').length, 1);
  } finally {
    await Promise.all([self, waiting, busy].map((c) => endChild(c.child)));
    reg.remove();
  }
});

test('watch --exec under node.exe: node.exe runs per event, without a shell, the event in its environment', async () => {
  const reg = makeRegistry();
  const { child, pid, token } = await startChild();
  const log = join(reg.configDir, 'events.log');
  const script = join(reg.configDir, 'on-event.cjs');
  writeFileSync(script, `require('fs').appendFileSync(${JSON.stringify(log)}, process.env.CLAUDE_PS_EVENT + ' ' + process.env.CLAUDE_PS_PID + '\\n');`);
  const path = reg.write(pid, { procStartFt: token });
  // A path with backslashes and a drive letter, quoted as --exec's word splitting wants it.
  const exec = `'${process.execPath}' '${script}'`;
  const watcher = spawn(process.execPath, [cli, 'watch', '--interval', '200', '--config-dir', reg.configDir, '--exec', exec], {
    stdio: 'ignore',
    windowsHide: true,
  });
  try {
    assert.ok(await until(() => existsSync(log) && readFileSync(log, 'utf8').includes(`added ${pid}`), 20_000), 'no added event ran');
    await endChild(child);
    assert.ok(await until(() => readFileSync(log, 'utf8').includes(`died ${pid}`), 20_000), readFileSync(log, 'utf8'));
    // The last event's command done before the watcher ends: Windows has no process group to end a
    // command with its watcher (TerminateProcess ends only the watcher), so none may be running then.
    unlinkSync(path);
    assert.ok(await until(() => readFileSync(log, 'utf8').includes(`removed ${pid}`), 20_000), readFileSync(log, 'utf8'));
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    watcher.kill();
    await new Promise((r) => (watcher.exitCode !== null ? r() : watcher.once('exit', r)));
    reg.remove();
  }
});
