/**
 * `watch --statusline-dir DIR` (docs/statusline.md): one file per live local session, `DIR/<pid>`,
 * holding the line that session's statusline shows, so a render is `cat DIR/$CLAUDE_PID`.
 *
 * Nothing stale may look fresh once the watcher is gone:
 * - files are replaced atomically (a temp file in DIR, then rename), removed when the session goes,
 *   and all removed when the watcher stops (SIGINT, SIGTERM, its reader gone, any exit);
 * - one watcher per folder: the folder's lock (lib/backend/folder-lock.ts) is released by the kernel
 *   with its last holder, and the guardian holds it too;
 * - a guardian (`/bin/sh`, its own session) holds the read end of a pipe whose write end only this
 *   process holds: the kernel closes it however the watcher dies (`kill -9` too), and the guardian
 *   then removes the files. It holds the folder's lock until it is done, so no successor can have
 *   taken the folder meanwhile: it can only remove what its own watcher wrote;
 * - a watcher starting in DIR removes whatever an earlier one left (it holds the lock: none runs);
 * - a file is rewritten whenever its own session's record changes, so it is newer than that record
 *   while a watcher keeps it; the settings snippet renders it only then (`[ DIR/P -nt …/P.json ]`),
 *   which also catches a watcher that is stopped (SIGSTOP) or a guardian that died with it;
 * - and only while the watcher beats (heartbeat.ts): a stopped watcher's lines stop being believed
 *   within seconds even for a session whose record does not change.
 * DIR must hold nothing but these files: the cleanup may then remove every `<pid>` name in it. It must be
 * this user's, and nobody else may write it or replace it (owned-folder.ts): what is in it is printed as it is.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { processStartToken } from '../../backend/index.js';
import { lockFolderWithin, type FolderLock } from '../../backend/folder-lock.js';
import type { SessionRecord } from '../../registry/types.js';
import { BEAT_FILE, Heartbeat, LEAD_MS, LEAD_SECONDS_MS, NOW_FILE } from './heartbeat.js';
import { OwnedFolder } from './owned-folder.js';
import { renderStatusline, type StatuslineTemplate } from './template.js';
import type { HostPart } from './hosts-line.js';
import { viewsOver } from './view.js';
import { AUTOSTART_STAMP, INFO_FILE, INFO_TEMP, readWatcherInfo, WATCHER_LOG, writeWatcherInfo, type WatcherInfo } from './watcher-info.js';

const LINE_NAME = /^[1-9][0-9]*$/;
const TEMP_NAME = /^\.[1-9][0-9]*\.[0-9a-f]{12}\.tmp$/;
const isOurName = (n: string) => LINE_NAME.test(n) || TEMP_NAME.test(n) || INFO_TEMP.test(n) || n === INFO_FILE || n === AUTOSTART_STAMP || n === WATCHER_LOG || n === BEAT_FILE || n === NOW_FILE;

// Enters DIR at once, while it is the folder the watcher took, and stays there: its working folder is
// that folder whatever is later renamed onto the path, so a folder another user puts at DIR's path
// (owned-folder.ts refuses to write there) is never cleaned. Waits for EOF on stdin (the watcher's
// death, however it came), then removes the files. It holds the folder's lock (descriptors 3 and up,
// inherited) until it exits, so nothing it removes is a successor's. Ignores the signals a terminal
// or a service manager sends a group.
const GUARDIAN = `trap '' INT TERM HUP
cd -- "$1" 2>/dev/null || exit 0
while read -r _; do :; done
for f in [1-9]*; do case $f in *[!0-9]*) ;; *) rm -f -- "$f" ;; esac; done
for f in .[1-9]*.tmp ${INFO_FILE}.*.tmp; do [ -f "$f" ] && rm -f -- "$f"; done
rm -f -- ${INFO_FILE} ${BEAT_FILE}`;

/** A live session that has a line file: live, and of our PID space (a foreign PID is not ours to name). */
function hasLineFile(r: SessionRecord): boolean {
  return r.live && r.verdict !== 'foreign';
}

export interface LineFilesOptions {
  /** Where mtimes compare in whole seconds (macOS /bin/sh's `test -nt`): `seconds`. Default by platform. */
  mtimeGranularity?: 'seconds' | 'fine';
  /** A failure after the start (a write that failed): reported, never thrown. */
  onError?: (error: unknown) => void;
  /** How long to wait for the folder's lock (a guardian cleaning up holds it briefly). Default 3000 ms. */
  lockWaitMs?: number;
  /** The sessions folders watched, for `DIR/.watcher` (doctor and autostart read them). */
  sessionsDirs?: readonly string[];
  /** What else `DIR/.watcher` says of this watcher (doctor and autostart read it). */
  about?: Pick<WatcherInfo, 'notifies' | 'hosts'>;
}

export class LineFiles {
  /** What made the folder unusable, last reported (reported once, not per update). */
  private problem: string | undefined;
  private readonly written = new Map<number, string>();
  private guardian: ChildProcess | undefined;
  private heartbeat: Heartbeat | undefined;
  private closed = false;
  private readonly seconds: boolean;
  private readonly onError: (error: unknown) => void;
  /** Other hosts' parts, the same on every line (setHosts). */
  private hosts: readonly HostPart[] = [];

  /**
   * Takes DIR (creating it, 0700): rejects when it is not this user's own, holds other files, or
   * another watcher holds its lock (after waiting `lockWaitMs` for it).
   */
  static async open(dir: string, template: StatuslineTemplate, options: LineFilesOptions = {}): Promise<LineFiles> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const real = realpathSync(dir);
    // A statusline prints DIR/<pid> as it is: a file someone else could plant or replace there would
    // reach the terminal (escapes and all) and, touched, pass the freshness test. The whole path is
    // checked now and again before each write (owned-folder.ts).
    let folder: OwnedFolder;
    try {
      folder = new OwnedFolder(real, dir);
    } catch (error) {
      throw new Error(`--statusline-dir: ${(error as Error).message}`);
    }
    const st = lstatSync(real);
    const foreign = readdirSync(real).find((n) => !isOurName(n));
    if (foreign !== undefined) {
      throw new Error(`--statusline-dir: ${real} holds other files (${JSON.stringify(foreign)}); give it a folder of its own`);
    }
    const attempt = await lockFolderWithin(real, options.lockWaitMs ?? 3000);
    if ('busy' in attempt) {
      const holder = readWatcherInfo(real);
      throw new Error(`--statusline-dir: another watcher${holder ? ` (pid ${holder.pid})` : ''} keeps ${real}`);
    }
    if ('error' in attempt) throw new Error(`--statusline-dir: cannot lock ${real}: ${attempt.error}`);
    try {
      return new LineFiles(real, { dev: st.dev, ino: st.ino }, folder, template, attempt.lock, options);
    } catch (error) {
      attempt.lock.release();
      throw error;
    }
  }

  private constructor(
    readonly dir: string,
    /** The folder taken, by device and inode: a folder put at its path later is another one. */
    readonly identity: { dev: number; ino: number },
    private readonly folder: OwnedFolder,
    private readonly template: StatuslineTemplate,
    private readonly lock: FolderLock,
    options: LineFilesOptions,
  ) {
    this.seconds = (options.mtimeGranularity ?? (process.platform === 'darwin' ? 'seconds' : 'fine')) === 'seconds';
    this.onError = options.onError ?? (() => {});
    this.startGuardian();
    // What an earlier watcher left (it died with its guardian, or the machine went down): none runs,
    // since this process holds the lock.
    for (const n of readdirSync(this.dir)) if (LINE_NAME.test(n) || TEMP_NAME.test(n) || INFO_TEMP.test(n)) this.unlink(join(this.dir, n));
    // Made before `.watcher`, so whoever waits for `.watcher` finds `.beat` there too.
    this.heartbeat = new Heartbeat(this.dir, this.seconds ? LEAD_SECONDS_MS : LEAD_MS, this.onError);
    try {
      writeWatcherInfo(this.dir, {
        pid: process.pid,
        token: processStartToken(process.pid) ?? null,
        since: Date.now(),
        sessionsDirs: [...(options.sessionsDirs ?? [])],
        ...options.about,
      });
    } catch (error) {
      this.heartbeat.close(true);
      throw error;
    }
  }

  private startGuardian(): void {
    try {
      const child = spawn('/bin/sh', ['-c', GUARDIAN, 'claude-ps-guardian', this.dir], {
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore', ...this.lock.fds],
      });
      child.on('error', (error) => this.onError(error));
      child.unref();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      this.guardian = child;
    } catch (error) {
      this.onError(error); // without it, only a clean stop and the -nt test protect the renderer
    }
  }

  /** Other hosts' waiting sessions and states for every line, from the next update on. */
  setHosts(parts: readonly HostPart[]): void {
    this.hosts = parts;
  }

  /** The guardian's PID (tests end it or watch it). */
  get guardianPid(): number | undefined {
    return this.guardian?.pid;
  }

  /**
   * Brings DIR in line with `records` (the whole current view). `touched` are PIDs whose own record
   * changed: their files are rewritten even when the line is the same, to stay newer than the record.
   */
  update(records: readonly SessionRecord[], touched: ReadonlySet<number> = new Set()): void {
    if (this.closed || !this.folderIsOurs()) return;
    const byPid = new Map<number, SessionRecord[]>();
    for (const r of records) {
      if (!hasLineFile(r)) continue;
      const own = byPid.get(r.pid);
      if (own) own.push(r);
      else byPid.set(r.pid, [r]);
    }
    for (const pid of [...this.written.keys()]) {
      if (!byPid.has(pid)) {
        this.written.delete(pid);
        this.unlink(join(this.dir, String(pid)));
      }
    }
    // Each session's own records, grouped in one pass: with a view per session made by subtraction,
    // a flush costs O(records), not O(sessions × records) (110 ms of CPU per change at 1,500 sessions).
    const selfOf = new Map<number, SessionRecord[]>();
    for (const r of records) {
      if (r.verdict === 'foreign') continue;
      const list = selfOf.get(r.pid);
      if (list) list.push(r);
      else selfOf.set(r.pid, [r]);
    }
    const viewOf = viewsOver(records, this.hosts);
    for (const [pid, own] of byPid) {
      const line = renderStatusline(this.template, viewOf(selfOf.get(pid) ?? []));
      const content = line === '' ? '' : line + '\n';
      if (this.written.get(pid) === content && !touched.has(pid)) continue;
      try {
        this.write(pid, content, own);
        this.written.set(pid, content);
      } catch (error) {
        // The file there now holds an older line, and may still test newer than its record: it goes,
        // and the statusline falls back until a write succeeds (and close() would not know it).
        this.written.delete(pid);
        // A folder that stopped being ours meanwhile is reported (once) instead of the failed write.
        if (!this.folderIsOurs()) return;
        this.unlink(join(this.dir, String(pid)));
        this.onError(error);
      }
    }
  }

  /**
   * Whether DIR is still the folder taken at the start, behind a path nobody else can change: checked
   * before anything is written or removed there. A problem is reported once, until it is gone.
   */
  private folderIsOurs(): boolean {
    try {
      this.folder.verify();
      this.problem = undefined;
      return true;
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.problem) this.onError(error);
      this.problem = message;
      return false;
    }
  }

  private write(pid: number, content: string, own: readonly SessionRecord[]): void {
    const temp = join(this.dir, `.${pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      let written;
      try {
        writeFileSync(fd, content);
        written = fstatSync(fd, { bigint: true });
      } finally {
        closeSync(fd);
      }
      if (this.seconds) this.bumpMtime(temp, own);
      else this.keepNewer(temp, written.mtimeNs, own);
      renameSync(temp, join(this.dir, String(pid)));
      // The folder may have been swapped between the check and the rename: the name must be our file.
      this.folder.holds(String(pid), written);
    } catch (error) {
      this.unlink(temp);
      throw error;
    }
  }

  /**
   * Fine comparisons: a file written within the same clock tick as its record (tmpfs and ext4 stamp
   * files with a coarse clock, a tick of 1 to 10 ms) has the record's mtime, and `-nt` is false for
   * equal times: such a file is set two milliseconds past its newest record.
   */
  private keepNewer(path: string, mtimeNs: bigint, own: readonly SessionRecord[]): void {
    // In nanoseconds, as `-nt` compares: two ways of making milliseconds of one time can differ. The
    // new time is given in seconds (a double, ~0.2 us apart here): 2 ms past, so it lands past for sure.
    const newest = newestMtimeNs(own);
    if (mtimeNs <= newest) utimesSync(path, new Date(), Number(newest / 1_000_000n + 2n) / 1000);
  }

  /** Whole-second comparisons: the file must be at least a second newer than its record to test newer. */
  private bumpMtime(path: string, own: readonly SessionRecord[]): void {
    const newest = Number(newestMtimeNs(own) / 1_000_000n);
    const wanted = (Math.floor(newest / 1000) + 1) * 1000;
    if (wanted > Date.now()) utimesSync(path, new Date(), new Date(wanted));
  }

  private unlink(path: string): void {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }

  /** Removes every line file and the information, then gives the lock back; synchronous (an 'exit' handler). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const ours = this.folderIsOurs();
    if (ours) for (const pid of this.written.keys()) this.unlink(join(this.dir, String(pid)));
    this.written.clear();
    if (ours) this.unlink(join(this.dir, INFO_FILE)); // ours: the lock is still held
    this.heartbeat?.close(ours);
    this.lock.release();
    // EOF for the guardian: it finds nothing left, and its exit gives the lock back for good.
    this.guardian?.stdin?.destroy();
  }
}

/** The newest mtime of a session's record files, in ns (0 when none is left). */
function newestMtimeNs(own: readonly SessionRecord[]): bigint {
  let newest = 0n;
  for (const r of own) {
    try {
      const { mtimeNs } = statSync(r.path, { bigint: true });
      if (mtimeNs > newest) newest = mtimeNs;
    } catch {
      // the record is gone meanwhile: the next event removes this file
    }
  }
  return newest;
}
