// watch() under node.exe: events for records that appear, die and go, and the exit of a watched
// process reported by RegisterWaitForSingleObject long before the interval probe would find it.
import assert from 'node:assert/strict';
import { unlinkSync } from 'node:fs';
import { after, test } from 'node:test';
import { watch } from '../../dist/index.js';
import { addon, endAll, endChild, makeRegistry, startChild, until } from './helpers.mjs';

after(endAll);

function collect(watcher) {
  const events = [];
  for (const type of ['added', 'changed', 'died', 'removed']) watcher.on(type, (e) => events.push(e));
  watcher.on('error', (e) => events.push({ type: 'error', error: e }));
  return events;
}

test('a watched session that exits is reported died by the exit notification, far inside the interval', async () => {
  const reg = makeRegistry();
  const { child, pid, token } = await startChild();
  const path = reg.write(pid, { procStartFt: token });
  // A minute between probes and between rescans: only the exit notification can report the exit soon.
  const watcher = watch(reg.configDir, { interval: 60_000, rescanEvery: 1000 });
  const events = collect(watcher);
  try {
    assert.ok(await until(() => events.some((e) => e.type === 'added' && e.record.path === path)), JSON.stringify(events));
    assert.equal(events.find((e) => e.type === 'added').record.verdict, 'alive');
    const killedAt = Date.now();
    await endChild(child);
    assert.ok(await until(() => events.some((e) => e.type === 'died'), 20_000), JSON.stringify(events.map((e) => e.type)));
    const died = events.find((e) => e.type === 'died');
    assert.equal(died.record.path, path);
    assert.ok(['zombie', 'gone'].includes(died.record.verdict), died.record.verdict);
    assert.ok(Date.now() - killedAt < 30_000);
  } finally {
    watcher.close();
    reg.remove();
  }
});

test('the control: with exit handles off (exitHandles: 0) the same exit is not reported within seconds', async () => {
  const reg = makeRegistry();
  const { child, pid, token } = await startChild();
  reg.write(pid, { procStartFt: token });
  const watcher = watch(reg.configDir, { interval: 60_000, rescanEvery: 1000, exitHandles: 0 });
  const events = collect(watcher);
  try {
    assert.ok(await until(() => events.some((e) => e.type === 'added')), JSON.stringify(events));
    await endChild(child);
    await new Promise((r) => setTimeout(r, 3000));
    assert.deepEqual(events.map((e) => e.type), ['added']);
  } finally {
    watcher.close();
    reg.remove();
  }
});

test('added, changed and removed as Claude Code writes, rewrites and deletes a record', async () => {
  const reg = makeRegistry();
  const { child, pid, token } = await startChild();
  const watcher = watch(reg.configDir, { interval: 200 });
  const events = collect(watcher);
  try {
    const path = reg.write(pid, { procStartFt: token, status: 'idle' });
    assert.ok(await until(() => events.some((e) => e.type === 'added')), JSON.stringify(events));
    reg.write(pid, { procStartFt: token, status: 'busy' });
    assert.ok(await until(() => events.some((e) => e.type === 'changed')), JSON.stringify(events.map((e) => e.type)));
    assert.equal(events.find((e) => e.type === 'changed').record.status, 'busy');
    unlinkSync(path);
    assert.ok(await until(() => events.some((e) => e.type === 'removed')), JSON.stringify(events.map((e) => e.type)));
    assert.deepEqual(events.filter((e) => e.type === 'error'), []);
  } finally {
    watcher.close();
    reg.remove();
    await endChild(child);
  }
});

test('exit handles: keys are not reused, a removed one is never reported, a closed poller reports nothing', async () => {
  const native = addon().exitWatch(); // the exit watcher's part, made on first need (native/addon.cc)
  const a = await startChild();
  const b = await startChild();
  const reported = [];
  const poller = new native.FdPoller((key) => reported.push(key));
  const ka = native.exitHandle(a.pid);
  const kb = native.exitHandle(b.pid);
  assert.ok(ka > 0 && kb > ka);
  assert.equal(poller.add(ka), 0);
  assert.equal(poller.add(kb), 0);
  assert.equal(poller.add(ka), -17, 'EEXIST');
  assert.equal(poller.size, 2);
  assert.equal(poller.remove(kb), true);
  await Promise.all([endChild(a.child), endChild(b.child)]);
  assert.ok(await until(() => reported.length > 0, 10_000));
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(reported, [ka]);
  poller.close();
  assert.equal(poller.size, 0);
  // Gone already: no handle; a non-number is a programmer error.
  assert.ok(native.exitHandle(a.pid) < 0 || native.closeExitHandle(native.exitHandle(a.pid)));
  assert.throws(() => native.exitHandle('1'), TypeError);
  assert.equal(native.closeExitHandle(ka), false);
});
