/**
 * The tuned pure-JS peer: the fastest registry reader we know how to write in plain Node without a
 * library, held to the rules every reader in this bench follows (bench/README.md): list the folder,
 * keep `<pid>.json` names, open without following a link or blocking (O_NOFOLLOW | O_NONBLOCK), fstat
 * (a regular file of at most 256 KiB), read, JSON.parse, `pid` equal to the name's and a `sessionId`,
 * a record of another pidDomain is live unprobed, then kill(pid, 0) and /proc/<pid>/stat (a zombie is
 * dead, another start time is recycled). Tuned: one reused read buffer and stat buffer, string
 * concatenation for paths, no stack captured for the errors of dead PIDs, no per-record objects but
 * the parsed JSON.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from 'node:fs';

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const MAX = 256 * 1024;
const record = Buffer.allocUnsafe(MAX + 1);
const stat = Buffer.allocUnsafe(1024);

function exists(pid) {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code !== 'ESRCH';
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** 'Z'/'X' → null (dead), else the start time text, or undefined when the stat cannot be read. */
function startOf(pid) {
  let fd;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
  } catch {
    return undefined;
  }
  let n;
  try {
    n = readSync(fd, stat, 0, stat.length, null);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  const text = stat.latin1Slice(0, n);
  const rest = text.slice(text.lastIndexOf(')') + 2);
  if (rest[0] === 'Z' || rest[0] === 'X') return null;
  let at = 0;
  for (let f = 0; f < 19; f++) at = rest.indexOf(' ', at) + 1;
  return rest.slice(at, rest.indexOf(' ', at));
}

function namePid(name) {
  const c = name.charCodeAt(0);
  if (c < 49 || c > 57 || !name.endsWith('.json')) return 0;
  let pid = 0;
  for (let i = 0; i < name.length - 5; i++) {
    const d = name.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return 0;
    pid = pid * 10 + d;
  }
  return pid;
}

export function tunedLiveRecords(sessionsDir, ourDomain) {
  const live = [];
  const prefix = sessionsDir + '/';
  for (const name of readdirSync(sessionsDir)) {
    const pid = namePid(name);
    if (pid === 0) continue;
    let fd;
    try {
      fd = openSync(prefix + name, FLAGS);
    } catch {
      continue;
    }
    let n = -1;
    try {
      const st = fstatSync(fd);
      if (st.isFile() && st.size <= MAX) n = readSync(fd, record, 0, MAX + 1, 0);
    } catch {
      n = -1;
    } finally {
      closeSync(fd);
    }
    if (n <= 0 || n > MAX) continue;
    let r;
    try {
      r = JSON.parse(record.utf8Slice(0, n));
    } catch {
      continue;
    }
    if (r === null || typeof r !== 'object' || r.pid !== pid || typeof r.sessionId !== 'string' || r.sessionId === '') continue;
    if (typeof r.pidDomain === 'string' && r.pidDomain !== ourDomain) {
      live.push(r);
      continue;
    }
    if (!exists(pid)) continue;
    const start = startOf(pid);
    if (start === null) continue;
    if (start !== undefined && typeof r.procStart === 'string' && r.procStart !== start) continue;
    live.push(r);
  }
  return live.sort((a, b) => a.pid - b.pid);
}
