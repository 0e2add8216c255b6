/**
 * The snapshot file (docs/watch.md): one small, versioned JSON document that a statusline in
 * bash or Go, or a dashboard that cannot see this host's processes, reads instead of starting Node.
 * Written atomically, so a reader never sees half a document.
 */
import { jsonText } from './json-text.js';
import { pathError } from './system-error.js';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ourPidDomain } from './domain.js';
import { readRecords } from './read/scan.js';
import type { ConfigDirs, SessionRecord, Verdict } from './types.js';
import { lazyBuiltin } from '../runtime.js';

// Loaded on first use: node:crypto costs start-up time that readers of the registry never need.
const crypto = lazyBuiltin<typeof import('node:crypto')>('node:crypto');

/**
 * The longest string value (and session-id key) a snapshot holds, in UTF-16 code units. Longer values
 * are cut (never inside a surrogate pair): a name or cwd of 256 KiB must not make every statusline
 * render parse 256 KiB.
 */
export const SNAPSHOT_STRING_CAP = 1024;

export interface SnapshotSession {
  pid: number;
  /** Absent fields are `null`, so readers in any language see every key. */
  name: string | null;
  status: string | null;
  waitingFor: string | null;
  kind: string;
  interactive: boolean;
  cwd: string | null;
  statusUpdatedAt: number | null;
  verdict: Verdict;
  live: boolean;
}

export interface Snapshot {
  version: 1;
  /** Epoch ms when the snapshot was taken. */
  written: number;
  host: { platform: NodeJS.Platform; pidDomain: string };
  /** By session id (a null-prototype object: a session id such as `__proto__` is just a key). */
  sessions: Record<string, SnapshotSession>;
}

/** Cuts a string to SNAPSHOT_STRING_CAP code units without splitting a surrogate pair. */
export function capString(value: string, cap = SNAPSHOT_STRING_CAP): string {
  if (value.length <= cap) return value;
  let end = cap;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // a high surrogate whose pair would be cut off
  return value.slice(0, end);
}

function capped(value: string | undefined): string | null {
  return value === undefined ? null : capString(value);
}

/** Which of two records for the same session id the snapshot shows: a live one, else the newer file. */
function preferred(a: SessionRecord, b: SessionRecord): SessionRecord {
  if (a.live !== b.live) return a.live ? a : b;
  const ta = a.statusUpdatedAt ?? a.updatedAt ?? a.startedAt ?? 0;
  const tb = b.statusUpdatedAt ?? b.updatedAt ?? b.startedAt ?? 0;
  if (ta !== tb) return ta > tb ? a : b;
  return a.pid >= b.pid ? a : b;
}

/**
 * The snapshot of a set of records (the watcher builds it from its view without re-reading files).
 * Two records with the same session id (a resumed session whose stale file is still there) are shown
 * once: the live one, else the more recently updated one.
 */
export function snapshotOf(records: readonly SessionRecord[], written = Date.now()): Snapshot {
  const chosen = new Map<string, SessionRecord>();
  for (const record of records) {
    const key = capString(record.sessionId);
    const seen = chosen.get(key);
    chosen.set(key, seen === undefined ? record : preferred(seen, record));
  }
  const sessions: Record<string, SnapshotSession> = Object.create(null);
  for (const [key, r] of chosen) {
    sessions[key] = {
      pid: r.pid,
      name: capped(r.name),
      status: capped(r.status),
      waitingFor: capped(r.waitingFor),
      kind: capString(r.kind),
      interactive: r.interactive,
      cwd: capped(r.cwd),
      statusUpdatedAt: r.statusUpdatedAt ?? null,
      verdict: r.verdict,
      live: r.live,
    };
  }
  return {
    version: 1,
    written,
    host: { platform: process.platform, pidDomain: capString(ourPidDomain()) },
    sessions,
  };
}

/** The snapshot of the registry now: every record, live or not, liveness resolved in one batch. */
export function snapshot(configDirs?: ConfigDirs): Snapshot {
  return snapshotOf(readRecords(configDirs));
}

/** Most file systems (Linux, macOS, Windows) cap one name at 255 bytes (NAME_MAX). */
const NAME_MAX = 255;

/**
 * The temp file's name beside `name`: same folder, so the rename stays on one filesystem (atomic); a
 * dot name, so globbing readers skip it; the target's name cut (at a character, never inside one) so
 * that the whole fits NAME_MAX whatever the target's own length.
 */
function tempName(name: string): string {
  const suffix = `.${process.pid}.${crypto().randomBytes(6).toString('hex')}.tmp`;
  let stem = name;
  const room = NAME_MAX - 1 - Buffer.byteLength(suffix);
  while (Buffer.byteLength(stem) > room) stem = Array.from(stem).slice(0, -1).join('');
  return `.${stem}${suffix}`;
}

/**
 * Replaces `path` atomically with `data` as JSON: a temp file in the same folder (created exclusively,
 * mode 0600), written, fsynced, then renamed over `path`. A reader sees the old document or the new
 * one, never a mix; on any failure the temp file is removed and an error naming `path` thrown.
 */
export function writeSnapshot(path: string, data: Snapshot): void {
  if (typeof path !== 'string' || path === '') throw new TypeError('writeSnapshot(path, data): path must be a non-empty string');
  if (data === null || typeof data !== 'object') throw new TypeError('writeSnapshot(path, data): data must be a snapshot object');
  const text = `${jsonText(data)}\n`;
  const temp = join(dirname(path), tempName(basename(path)));
  let fd: number;
  try {
    fd = openSync(temp, 'wx', 0o600);
  } catch (error) {
    throw pathError('write the snapshot', path, error);
  }
  let renamed = false;
  try {
    try {
      const bytes = Buffer.from(text, 'utf8');
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    renamed = true;
  } catch (error) {
    throw pathError('write the snapshot', path, error);
  } finally {
    if (!renamed) {
      try {
        unlinkSync(temp);
      } catch {
        // Already gone: nothing left behind.
      }
    }
  }
}
