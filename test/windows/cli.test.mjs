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

test('demo under node.exe: node.exe children stand in for sleep, and every claim gets the verdict it shows', () => {
  const out = runCli(['demo', '--json']);
  assert.equal(out.status, 0, out.stderr);
  const demo = JSON.parse(out.stdout);
  assert.ok(demo.claims.length >= 5, out.stdout);
  for (const claim of demo.claims) assert.equal(claim.verdict, claim.expected, JSON.stringify(claim));
  assert.ok(!existsSync(demo.folder), 'the demo removes its folder');
});

test('count, summary, probe and snapshot under node.exe', async () => {
  const reg = makeRegistry();
  const { child, pid, token } = await startChild();
  try {
    reg.write(pid, { procStartFt: token, status: 'busy' });
    const count = runCli(['count', '--json', '--config-dir', reg.configDir]);
    assert.equal(count.status, 0, count.stderr);
    assert.deepEqual(JSON.parse(count.stdout), { count: 1, interactive: false, skipped: [] });
    const summary = runCli(['summary', '--json', '--config-dir', reg.configDir]);
    assert.equal(summary.status, 0, summary.stderr);
    assert.equal(JSON.parse(summary.stdout).busy, 1);
    const probed = runCli(['probe', String(pid)]);
    assert.equal(probed.status, 0, probed.stderr);
    assert.ok(probed.stdout.includes(token), probed.stdout);
    const file = join(reg.configDir, 'snapshot.json');
    const snap = runCli(['snapshot', '--output', file, '--config-dir', reg.configDir]);
    assert.equal(snap.status, 0, snap.stderr);
    assert.ok(readFileSync(file, 'utf8').includes(String(pid)));
    await endChild(child);
    assert.equal(runCli(['probe', String(pid)]).status, 1);
  } finally {
    await endChild(child);
    reg.remove();
  }
});
