// A registry as Claude Code 2.1.332 writes it on Windows (procStartFt, a win32 pidDomain, Windows cwd
// paths), scanned, pruned and asked through the CLI under node.exe, with node.exe children as sessions.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { prune, scanRegistry } from '../../dist/index.js';
import { DOTNET_OFFSET, deadPid, endAll, endChild, makeRegistry, runCli, startChild } from './helpers.mjs';

let reg;
let live;
let other;
let third;
let dead;
const paths = {};

before(async () => {
  reg = makeRegistry();
  [live, other, third] = await Promise.all([startChild(), startChild(), startChild()]);
  dead = await deadPid();
  paths.live = reg.write(live.pid, { procStartFt: live.token });
  // Claude Code's PowerShell fallback wrote .NET ticks: the same instant, so the same process.
  paths.dotnet = reg.write(other.pid, { procStartFt: (BigInt(other.token) + DOTNET_OFFSET).toString(), kind: 'bg' });
  paths.recycled = reg.write(third.pid, { procStartFt: (BigInt(third.token) + 1n).toString() });
  paths.gone = reg.write(dead, { procStartFt: '134000000000000000' });
  // Another machine's PID (a shared folder): never probed, never pruned.
  paths.foreign = reg.write(424242, { procStartFt: '134000000000000000', pidDomain: 'win32:another-machine', kind: 'bg' });
});

after(async () => {
  await endAll();
  reg?.remove();
});

function byPath(records) {
  return Object.fromEntries(Object.entries(paths).map(([name, path]) => [name, records.find((r) => r.path === path)]));
}

test('a scan of procStartFt records: alive, alive (.NET ticks), recycled, gone, foreign; cwd shown as written', () => {
  const { records, skipped } = scanRegistry(reg.configDir);
  assert.deepEqual(skipped, []);
  const r = byPath(records);
  assert.equal(r.live.verdict, 'alive');
  assert.equal(r.dotnet.verdict, 'alive');
  assert.equal(r.recycled.verdict, 'recycled');
  assert.equal(r.gone.verdict, 'gone');
  assert.equal(r.foreign.verdict, 'foreign');
  assert.equal(r.live.cwd, 'C:\\Users\\dev\\project');
  assert.equal(r.live.procStartFt, live.token);
  assert.equal(r.live.procStart, undefined);
});

test('the CLI under node.exe: list --json names the same verdicts', () => {
  const out = runCli(['list', '--all', '--json', '--config-dir', reg.configDir]);
  assert.equal(out.status, 0, out.stderr);
  const parsed = JSON.parse(out.stdout);
  const verdicts = Object.fromEntries(parsed.records.map((s) => [s.path, s.verdict]));
  assert.equal(verdicts[paths.live], 'alive');
  assert.equal(verdicts[paths.recycled], 'recycled');
  assert.equal(verdicts[paths.gone], 'gone');
  assert.equal(verdicts[paths.foreign], 'foreign');
});

test('has-interactive: 0 while an interactive session lives', () => {
  assert.equal(runCli(['has-interactive', '--config-dir', reg.configDir]).status, 0);
});

test('prune removes the dead records only, and the CLI agrees afterwards', () => {
  const removed = prune(scanRegistry(reg.configDir).records).map((r) => r.path).sort();
  assert.deepEqual(removed, [paths.gone, paths.recycled].sort());
  for (const name of ['live', 'dotnet', 'foreign']) assert.ok(existsSync(paths[name]), `${name} was kept`);
  for (const name of ['gone', 'recycled']) assert.ok(!existsSync(paths[name]), `${name} was removed`);
  const dry = runCli(['prune', '--dry-run', '--config-dir', reg.configDir]);
  assert.equal(dry.status, 0, dry.stderr);
});

test('has-interactive: 1 (a proven no) once the interactive session has ended', async () => {
  await endChild(live.child);
  const out = runCli(['has-interactive', '--verbose', '--config-dir', reg.configDir]);
  assert.equal(out.status, 1, out.stdout + out.stderr);
  assert.match(out.stdout, /^no/);
});

test('doctor under node.exe: the native backend, exits by RegisterWaitForSingleObject, our win32 domain', () => {
  const out = runCli(['doctor', '--json', '--config-dir', reg.configDir]);
  assert.equal(out.status, 0, out.stderr);
  const d = JSON.parse(out.stdout);
  assert.equal(d.platform, 'win32');
  assert.equal(d.backend.name, 'native');
  assert.deepEqual(d.exits, { mode: 'kernel', mechanism: 'RegisterWaitForSingleObject', reason: null });
  assert.match(d.pidDomain, /^win32:[^A-Z]+$/);
});
