// Windows file semantics against the registry: a record held open by another process that shares
// nothing (UV_FS_O_EXLOCK: no FILE_SHARE_READ/WRITE/DELETE) can be neither read nor renamed. Reading
// retries the sharing violation, then skips the file; prune leaves such a file in place and reports it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pruneWithReport, scanRegistry } from '../../dist/index.js';
import { deadPid, endAll, endChild, makeRegistry, runCli, until } from './helpers.mjs';

after(endAll);

// libuv's UV_FS_O_EXLOCK (uv/win.h): open with no sharing at all. Node 20 passes it through but does
// not list it in fs.constants.
const UV_FS_O_EXLOCK = 0x10000000;

/** A node.exe child holding `path` open with no sharing at all, until ended. */
async function holdExclusively(path) {
  const ready = `${path}.held`;
  const code = `const fs = require('fs');
fs.openSync(${JSON.stringify(path)}, fs.constants.O_RDONLY | ${UV_FS_O_EXLOCK});
fs.writeFileSync(${JSON.stringify(ready)}, 'held');
setInterval(() => {}, 1e6);`;
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore', windowsHide: true });
  assert.ok(await until(() => existsSync(ready) || child.exitCode !== null), 'the holder never opened the file');
  assert.equal(child.exitCode, null, 'the holder could not open the file');
  return child;
}

test('a record another process holds with no sharing: skipped as unreadable, never a crash, nothing listed', async () => {
  const reg = makeRegistry();
  const pid = await deadPid();
  const path = reg.write(pid, { procStartFt: '134000000000000000' });
  const holder = await holdExclusively(path);
  try {
    assert.throws(() => readFileSync(path), /EBUSY/, 'Wine enforces the sharing mode');
    const { records, skipped } = scanRegistry(reg.configDir);
    assert.deepEqual(records, []);
    assert.deepEqual(skipped.map((s) => [s.path, s.reason]), [[path, 'unreadable']]);
    const list = runCli(['list', '--all', '--json', '--config-dir', reg.configDir]);
    assert.equal(list.status, 0, list.stderr);
    assert.deepEqual(JSON.parse(list.stdout).records, []);
  } finally {
    await endChild(holder);
  }
  // Released: read as usual.
  assert.equal(scanRegistry(reg.configDir).records[0]?.verdict, 'gone');
  reg.remove();
});

test('prune: a dead record that cannot be moved (held open without FILE_SHARE_DELETE) stays, and is reported', async () => {
  const reg = makeRegistry();
  const [heldPid, freePid] = [await deadPid(), await deadPid()];
  const held = reg.write(heldPid, { procStartFt: '134000000000000000' });
  const free = reg.write(freePid, { procStartFt: '134000000000000000' });
  const { records } = scanRegistry(reg.configDir);
  assert.deepEqual(records.map((r) => r.verdict), ['gone', 'gone']);
  const holder = await holdExclusively(held);
  let report;
  let cli;
  try {
    report = pruneWithReport(records);
    cli = runCli(['prune', '--config-dir', reg.configDir]);
  } finally {
    await endChild(holder);
  }
  assert.deepEqual(report.removed.map((r) => r.path), [free]);
  assert.deepEqual(report.failed.map((f) => [f.path, f.pid]), [[held, heldPid]]);
  assert.match(report.failed[0].reason, /unreadable/);
  // The CLI's own scan cannot read it either, so it never knows the record dead: nothing is touched.
  assert.equal(cli.status, 0, cli.stdout + cli.stderr);
  assert.ok(existsSync(held), 'the held file stays where it was');
  assert.ok(!existsSync(free));
  // Nothing left aside: only the held record and its holder's marker remain, and a later prune removes it.
  const again = pruneWithReport(scanRegistry(reg.configDir).records);
  assert.deepEqual(again.removed.map((r) => r.path), [held]);
  assert.deepEqual(again.failed, []);
  reg.remove();
});

test('a record Claude Code is rewriting (opened with sharing) reads normally', async () => {
  const reg = makeRegistry();
  const pid = await deadPid();
  const path = reg.write(pid, { procStartFt: '134000000000000000' });
  const code = `const fs = require('fs'); fs.openSync(${JSON.stringify(path)}, 'r+'); fs.writeFileSync(${JSON.stringify(join(reg.sessions, 'x.held'))}, ''); setInterval(() => {}, 1e6);`;
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore', windowsHide: true });
  try {
    assert.ok(await until(() => existsSync(join(reg.sessions, 'x.held'))));
    assert.equal(scanRegistry(reg.configDir).records[0]?.verdict, 'gone');
  } finally {
    await endChild(child);
    reg.remove();
  }
});

// Wine has no MAX_PATH limit, so under Wine this passes with or without the \\?\ form: it can fail only
// on real Windows (the release workflow's Windows runners run this suite).
test('a registry deeper than MAX_PATH (260 characters) reads as one that is not: no record goes missing', async () => {
  const reg = makeRegistry();
  const pid = await deadPid();
  let dir = reg.configDir;
  while (dir.length < 300) dir = join(dir, 'a-rather-long-folder-name');
  const sessions = join(dir, 'sessions');
  mkdirSync(sessions, { recursive: true });
  const path = join(sessions, `${pid}.json`);
  writeFileSync(path, readFileSync(reg.write(pid, { procStartFt: '134000000000000000' })));
  assert.ok(path.length > 300);
  try {
    const { records, skipped } = scanRegistry(dir);
    assert.deepEqual(skipped, []);
    assert.deepEqual(records.map((r) => [r.path, r.verdict]), [[path, 'gone']]);
  } finally {
    reg.remove();
  }
});
