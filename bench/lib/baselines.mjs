/**
 * "What you would write yourself" in Node: the straightforward probe and registry reader that the
 * library is measured against. Deliberately plain, but correct (same answers as the library).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** state and start time (text) after the last ')' of /proc/<pid>/stat, or undefined. */
function readStat(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], start: fields[19] };
}

function exists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code !== 'ESRCH';
  }
}

/** process.kill(pid, 0) in try/catch, then readFileSync of the stat for the PIDs that exist. */
export function straightforwardProbe(pids) {
  const results = [];
  for (const pid of pids) {
    if (!exists(pid)) {
      results.push({ pid, state: 'gone', token: undefined });
      continue;
    }
    const stat = readStat(pid);
    if (!stat) results.push({ pid, state: 'unverified', token: undefined });
    else results.push({ pid, state: stat.state === 'Z' || stat.state === 'X' ? 'zombie' : 'alive', token: stat.start });
  }
  return results;
}

const CANDIDATE = /^[1-9][0-9]*\.json$/;

/** readdir + readFileSync + JSON.parse + process.kill + stat read: the live records, sorted by PID. */
export function straightforwardLiveRecords(sessionsDir) {
  const live = [];
  for (const name of readdirSync(sessionsDir)) {
    if (!CANDIDATE.test(name)) continue;
    let record;
    try {
      record = JSON.parse(readFileSync(join(sessionsDir, name), 'utf8'));
    } catch {
      continue;
    }
    if (record === null || typeof record !== 'object' || record.pid !== Number(name.slice(0, -5))) continue;
    if (typeof record.sessionId !== 'string' || record.sessionId === '') continue;
    if (!exists(record.pid)) continue;
    const stat = readStat(record.pid);
    if (stat && (stat.state === 'Z' || stat.state === 'X')) continue;
    if (stat && typeof record.procStart === 'string' && record.procStart !== stat.start) continue;
    live.push(record);
  }
  return live.sort((a, b) => a.pid - b.pid);
}
