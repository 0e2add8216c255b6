// The win32 backend on real Wine processes: node.exe children this test starts and ends.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { backend, probe, verdict } from '../../dist/index.js';
import { DOTNET_OFFSET, addon, deadPid, endAll, endChild, startChild, until } from './helpers.mjs';

after(endAll);

test('the native backend serves, from the win32 prebuild', () => {
  assert.equal(process.platform, 'win32');
  assert.deepEqual(backend(), { name: 'native' });
});

test('a live child: alive, its token the creation FILETIME (exact decimal text, the instant it started)', async () => {
  const before = Date.now();
  const { child, pid, token } = await startChild();
  assert.match(token, /^1[0-9]{17}$/);
  const startedMs = Number((BigInt(token) - 116444736000000000n) / 10000n);
  assert.ok(Math.abs(startedMs - before) < 10_000, `created at ${new Date(startedMs).toISOString()}`);
  // The same token every time: a FILETIME read through no double.
  assert.equal(probe([pid])[0].token, token);
  assert.equal(verdict(pid, token, undefined), 'alive');
  await endChild(child);
});

test('a planted token one tick off either way is recycled; .NET ticks of the same instant (to the µs) are alive', async () => {
  const { child, pid, token } = await startChild();
  const t = BigInt(token);
  assert.equal(verdict(pid, (t + 1n).toString()), 'recycled');
  assert.equal(verdict(pid, (t - 1n).toString()), 'recycled');
  assert.equal(verdict(pid, (t + DOTNET_OFFSET).toString()), 'alive');
  // What Claude Code's PowerShell fallback writes: a CIM datetime's ticks, the FILETIME cut to the µs.
  const fallback = (t / 10n) * 10n + DOTNET_OFFSET;
  assert.equal(verdict(pid, fallback.toString()), 'alive');
  assert.equal(verdict(pid, (fallback + 10n).toString()), 'recycled');
  // A token of another platform's form proves nothing here.
  assert.equal(verdict(pid, '654274470'), 'unverified');
  await endChild(child);
});

test('exited while a handle on it is held: zombie (provably dead); once released: gone', async () => {
  const { child, pid } = await startChild();
  const native = addon().exitWatch(); // the exit watcher's part, made on first need (native/addon.cc)
  const key = native.exitHandle(pid);
  assert.ok(key > 0, `exitHandle answered ${key}`);
  try {
    await endChild(child);
    assert.equal(probe([pid])[0].state, 'zombie');
    assert.equal(verdict(pid, '134000000000000000'), 'zombie');
  } finally {
    assert.equal(native.closeExitHandle(key), true);
  }
  assert.ok(await until(() => probe([pid])[0].state === 'gone'), 'the PID never read gone');
});

test('gone: an ended child, a PID above any Wine gives, and PID+1 of a live process (Windows ignores the low bits)', async () => {
  const pid = await deadPid();
  assert.equal(verdict(pid, '134000000000000000'), 'gone');
  const { child, pid: live } = await startChild();
  const [huge, plusOne, plusThree] = probe([0x7ffffffc, live + 1, live + 3]);
  assert.equal(huge.state, 'gone');
  assert.equal(plusOne.state, 'gone');
  assert.equal(plusThree.state, 'gone');
  assert.deepEqual(probe([0, -4, 1.5]).map((r) => r.state), ['invalid', 'invalid', 'invalid']);
  await endChild(child);
});

// Wine lets every process open every other; on a real Windows runner the System process (PID 4) and
// protected ones answer ERROR_ACCESS_DENIED to some rights: they exist, so never gone.
test('real Windows only: the System process (PID 4) exists, alive or unverified, never gone', { skip: process.env.CLAUDE_PS_WINE === '1' }, () => {
  assert.ok(['alive', 'unverified'].includes(probe([4])[0].state));
});

test('a batch of 1,000 PIDs in one call: the live ones alive with their tokens, the rest as probed one by one', async () => {
  const live = await Promise.all([startChild(), startChild(), startChild()]);
  const dead = await deadPid();
  const pids = [];
  for (let i = 0; i < 1000; i++) pids.push(i % 250 === 0 ? live[(i / 250) % 3].pid : i % 250 === 1 ? dead : 0x40000000 + i * 4);
  const batch = probe(pids);
  assert.equal(batch.length, 1000);
  for (let i = 0; i < 1000; i++) {
    const single = probe([pids[i]])[0];
    assert.deepEqual(batch[i], single, `PID ${pids[i]} at ${i}`);
  }
  for (const { pid, token } of live) {
    assert.ok(batch.filter((r) => r.pid === pid).every((r) => r.state === 'alive' && r.token === token));
  }
  assert.equal(batch.filter((r) => r.state === 'gone').length, 1000 - batch.filter((r) => live.some((l) => l.pid === r.pid)).length);
  await Promise.all(live.map((l) => endChild(l.child)));
});
