/**
 * The benchmark's fixtures: real processes and registry folders built from them.
 * - live PIDs: children of bench/c/holder sleeping in pause(), recorded with their true start token;
 * - recycled: more such live PIDs, recorded with a wrong token of the same (ticks) form;
 * - zombies: holder children that exited and are left unreaped (state Z), recorded with their token;
 * - dead: PIDs of holder children that exited and were reaped (checked ESRCH; topped up, if the kernel
 *   handed one out twice, with other PIDs no process holds);
 * - junk: files beside the records that are not candidates (keys, temp files, notes, `0123.json`).
 * Every process is a child of a holder; the holder reaps them, and exits when its stdin closes, so
 * nothing outlives the bench even if it is killed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const MIX = { live: 0.2, recycled: 0.1, zombie: 0.01 };

/** How many records of each kind a registry of n records holds. */
export function mixFor(n) {
  const live = Math.round(n * MIX.live);
  const recycled = Math.round(n * MIX.recycled);
  const zombie = Math.max(1, Math.round(n * MIX.zombie));
  return { live, recycled, zombie, dead: n - live - recycled - zombie };
}

/** Field 3 (state) and field 22 (start time, as text) of /proc/<pid>/stat. */
export function statOf(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], start: fields[19] };
}

/** Starts `holder MODE COUNT` and resolves once it has printed every child PID. */
export function startHolder(holderBin, mode, count) {
  return new Promise((resolve, reject) => {
    const child = spawn(holderBin, [mode, String(count)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const pids = [];
    let pending = '';
    child.on('error', reject);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (line === 'ready') resolve({ child, pids, mode });
        else if (line === 'short') reject(new Error(`holder could fork only ${pids.length} of ${count} (${mode})`));
        else pids.push(Number(line));
      }
    });
  });
}

/** Ends a holder's processes by PID, then closes its stdin so it reaps them and exits. */
export async function endHolder(holder) {
  if (holder.mode === 'live') {
    for (const pid of holder.pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone; its PID is not reused before the holder reaps it.
      }
    }
  }
  const exited = new Promise((resolve) => {
    if (holder.child.exitCode !== null || holder.child.signalCode !== null) resolve();
    else holder.child.once('exit', resolve);
  });
  holder.child.stdin.end();
  const timer = setTimeout(() => holder.child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Waits until every PID's state is Z (children exit at once, but the scheduler decides when). */
export async function waitForZombies(pids) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (pids.every((pid) => statOf(pid).state === 'Z')) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('zombie fixtures did not reach state Z');
}

function pidExists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code !== 'ESRCH';
  }
}

/**
 * `count` PIDs that no process holds now. The kernel hands out PIDs upwards from the last one it
 * used, so walking backwards from there picks the PIDs it will reuse last: fewer "dead" claims turn
 * into live PIDs of other programs while the bench runs on a busy machine.
 */
export function freePids(count, exclude) {
  const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
  const last = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
  const out = [];
  for (let step = 0; step < pidMax && out.length < count; step++) {
    const pid = (last - step + pidMax) % pidMax;
    if (pid < 300 || exclude.has(pid) || pidExists(pid)) continue;
    out.push(pid);
  }
  if (out.length < count) throw new Error(`only ${out.length} free PIDs found, ${count} needed`);
  return out;
}

/** Our pidDomain, computed as Claude Code computes it, so records are ours and really probed. */
export function ourPidDomain() {
  let machine = '';
  let ns = '';
  try {
    machine = readFileSync('/etc/machine-id', 'utf8').trim();
  } catch {}
  try {
    ns = readlinkSync('/proc/self/ns/pid');
  } catch {}
  return `linux:${machine}:${ns}`;
}

const STATUSES = ['busy', 'idle', 'waiting', 'shell'];

function hex(i, width) {
  return ((i * 2654435761) >>> 0).toString(16).padStart(8, '0').repeat(Math.ceil(width / 8)).slice(0, width);
}

/** A record shaped like those Claude Code 2.1.283 writes (compact JSON, ~500 bytes). */
function recordJson(pid, token, i, domain) {
  const t = 1767225600000 + i * 1000;
  const status = STATUSES[i % STATUSES.length];
  return JSON.stringify({
    pid,
    sessionId: `${hex(i, 8)}-${hex(i + 1, 4)}-4${hex(i + 2, 3)}-8${hex(i + 3, 3)}-${hex(i + 4, 12)}`,
    cwd: `/home/dev/projects/service-${i % 37}/packages/api`,
    startedAt: t,
    procStart: token,
    pidDomain: domain,
    version: '2.1.283',
    peerProtocol: 1,
    peerFeatures: ['messaging', 'status', 'names'],
    kind: i % 10 === 9 ? 'bg' : 'interactive',
    entrypoint: 'cli',
    name: `refactor the billing module, part ${i}`,
    nameSource: 'auto',
    status,
    ...(status === 'waiting' ? { waitingFor: 'approve Bash' } : {}),
    updatedAt: t + 5000,
    statusUpdatedAt: t + 4000,
    messagingSocketPath: `/tmp/claude-messaging-${pid}.sock`,
  });
}

/**
 * Registry folders for each n in sizes, all drawn from the same pools of processes.
 * Returns { root, registries: Map<n, { configDir, sessionsDir, pids, mix, expectedLive }>,
 * allLive: { configDir, pids } (up to 1,000 records, all live), end() }.
 */
export async function buildFixtures(holderBin, sizes) {
  const biggest = mixFor(Math.max(...sizes));
  const holders = [];
  const root = mkdtempSync(join(tmpdir(), 'claude-ps-bench-'));
  const end = async () => {
    await Promise.all(holders.map(endHolder));
    if (existsSync(root)) rmSync(root, { recursive: true, force: true });
  };
  try {
    // Reaped first: the kernel hands out PIDs upwards, so the live ones that follow do not reuse them.
    const reaped = await startHolder(holderBin, 'reaped', biggest.dead);
    await new Promise((resolve) => (reaped.child.exitCode !== null ? resolve() : reaped.child.once('exit', resolve)));
    const liveHolder = await startHolder(holderBin, 'live', biggest.live + biggest.recycled);
    holders.push(liveHolder);
    const zombieHolder = await startHolder(holderBin, 'zombie', biggest.zombie);
    holders.push(zombieHolder);
    await waitForZombies(zombieHolder.pids);
    const used = new Set([...liveHolder.pids, ...zombieHolder.pids]);
    const deadPool = [...new Set(reaped.pids)].filter((pid) => !used.has(pid) && !pidExists(pid));
    for (const pid of deadPool) used.add(pid);
    deadPool.push(...freePids(biggest.dead - deadPool.length, used));
    const livePool = liveHolder.pids.slice(0, biggest.live);
    const recycledPool = liveHolder.pids.slice(biggest.live);
    const domain = ourPidDomain();
    const registries = new Map();
    for (const n of sizes) {
      const mix = mixFor(n);
      const claims = [
        ...livePool.slice(0, mix.live).map((pid) => [pid, statOf(pid).start]),
        ...recycledPool.slice(0, mix.recycled).map((pid) => [pid, String(Number(statOf(pid).start) + 7)]),
        ...zombieHolder.pids.slice(0, mix.zombie).map((pid) => [pid, statOf(pid).start]),
        ...deadPool.slice(0, mix.dead).map((pid, i) => [pid, String(4_000_000 + i * 13)]),
      ];
      const configDir = join(root, `n${n}`);
      const sessionsDir = join(configDir, 'sessions');
      mkdirSync(sessionsDir, { recursive: true });
      claims.forEach(([pid, token], i) => writeFileSync(join(sessionsDir, `${pid}.json`), recordJson(pid, token, i, domain)));
      writeJunk(sessionsDir, claims.map(([pid]) => pid), Math.max(4, Math.round(n / 10)));
      // Mixed order, as a poller would pass the PIDs of its records.
      const pids = claims.map(([pid]) => pid).sort((a, b) => ((a * 7919) % 10007) - ((b * 7919) % 10007));
      registries.set(n, { n, configDir, sessionsDir, pids, mix, expectedLive: mix.live });
    }
    // The watcher's idle poll is measured on a registry where every record is live.
    const allLive = liveHolder.pids.slice(0, Math.min(1000, liveHolder.pids.length));
    const watchDir = join(root, 'live');
    mkdirSync(join(watchDir, 'sessions'), { recursive: true });
    allLive.forEach((pid, i) => writeFileSync(join(watchDir, 'sessions', `${pid}.json`), recordJson(pid, statOf(pid).start, i, domain)));
    return { root, registries, allLive: { configDir: watchDir, pids: allLive }, end };
  } catch (err) {
    await end();
    throw err;
  }
}

/** Files that are not candidates: each reader must skip them by name alone. */
function writeJunk(dir, pids, count) {
  for (let i = 0; i < count; i++) {
    const pid = pids[i % pids.length];
    const name = [
      `${pid}.${hex(i, 64)}.key`,
      `${pid}.${hex(i, 16)}.key.tmp.${i}`,
      `0${pid}.json`,
      `${pid}.json.tmp`,
      `notes-${i}.md`,
    ][i % 5];
    writeFileSync(join(dir, name), name.endsWith('.key') ? hex(i, 64) : '{"junk":true}');
  }
}
