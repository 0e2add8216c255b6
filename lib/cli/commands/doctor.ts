/**
 * `claude-ps doctor`: everything needed to understand an answer — which backend probes and why,
 * our PID space, which folders were read, and which files were skipped and why.
 */
import { readdirSync } from 'node:fs';
import { backend } from '../../backend/index.js';
import { exitNotification } from '../../backend/exits.js';
import { scanRegistry } from '../../registry/read/scan.js';
import { sessionsDir } from '../../registry/config.js';
import { isCandidateName } from '../../registry/config.js';
import { isPruneLeftover, legacyPid, strandedClaims } from '../../registry/prune/names.js';
import { isWsl, ourPidDomain } from '../../registry/domain.js';
import { unlistable } from '../../registry/read/unreadable-folder.js';
import type { Command } from '../command.js';
import { out } from '../output.js';
import { readVersion } from '../version.js';
import { configDirList } from './list.js';
import { describeWatcher, watcherStatus } from '../statusline/watcher-status.js';

interface FolderReport {
  configDir: string;
  source: 'option' | 'CLAUDE_CONFIG_DIR' | 'default';
  sessionsDir: string;
  exists: boolean;
  /** Files in the folder: candidates (`<pid>.json`) and others, which are ignored. */
  candidates: number;
  ignored: number;
  /** Of the ignored: `pid-<n>.json` files of older Claude Code (`prune --legacy` removes the dead ones). */
  legacy: number;
  /** Of the ignored: copies an interrupted prune left aside of a missing `<pid>.json`, read as claims. */
  stranded: number;
  /** Of the ignored: every other copy or journal a prune left (the next prune settles them). */
  pruneLeftovers: number;
  error: string | null;
}

function inspectFolder(configDir: string, source: FolderReport['source']): FolderReport {
  const dir = sessionsDir(configDir);
  const report: FolderReport = {
    configDir, source, sessionsDir: dir, exists: false, candidates: 0, ignored: 0, legacy: 0, stranded: 0, pruneLeftovers: 0, error: null,
  };
  try {
    const names = readdirSync(dir);
    for (const name of names) {
      if (isCandidateName(name)) report.candidates++;
      else {
        report.ignored++;
        if (legacyPid(name) !== undefined) report.legacy++;
        else if (isPruneLeftover(name)) report.pruneLeftovers++;
      }
    }
    report.stranded = strandedClaims(names).length;
    report.pruneLeftovers -= report.stranded;
    report.exists = true;
  } catch (e) {
    // As the readers judge it (a link to nothing is unreadable, not missing).
    const unreadable = unlistable(dir, e);
    if (unreadable) {
      report.exists = unreadable.reason !== 'ENOTDIR';
      report.error = unreadable.reason;
    }
  }
  return report;
}

/** What among the ignored files a person should know about, and the command that deals with it. */
function folderNotes(f: FolderReport): string {
  const notes = [
    f.legacy && `${f.legacy} legacy pid-<n>.json (prune --legacy removes those whose PID is gone)`,
    f.stranded && `${f.stranded} stranded by an interrupted prune, read as claims (prune puts them back)`,
    f.pruneLeftovers && `${f.pruneLeftovers} other prune leftover(s) (prune settles them)`,
  ].filter(Boolean);
  return notes.length > 0 ? `; of those: ${notes.join('; ')}` : '';
}

export const doctor: Command = {
  name: 'doctor',
  summary: 'show the backend and why, platform, pidDomain, folders read, skipped files and why',
  usage: 'doctor [options]',
  details: `
--json prints {"version", "backend": {"name", "reason"}, "exits": {"mode", "mechanism", "reason"}, "platform", "arch", "node", "pidDomain", "wsl",
"folders": [{"configDir", "source", "sessionsDir", "exists", "candidates", "ignored", "legacy", "stranded",
"pruneLeftovers", "error"}] (legacy: pid-<n>.json files of older Claude Code; stranded: copies an interrupted
prune left aside of a missing <pid>.json, read as the claims they are; pruneLeftovers: other copies and
journals a prune left; the next claude-ps prune settles both),
"verdicts": {VERDICT: N}, "skipped": [{"path", "pid", "reason"}],
"statuslineWatcher": {"dir", "lock", "watcher": {"pid", "since", "sessionsDirs"} | null, "autostart"}}.`,
  flags: {},
  run(ctx) {
    const source: FolderReport['source'] = ctx.configDirs
      ? 'option'
      : ctx.env.CLAUDE_CONFIG_DIR // an empty value means unset, as in defaultConfigDir
        ? 'CLAUDE_CONFIG_DIR'
        : 'default';
    const dirs = configDirList(ctx.configDirs, ctx.env);
    const folders = dirs.map((d) => inspectFolder(d, source));
    // A folder that cannot be listed is reported above; the scan reads the others (it would throw).
    const { records, skipped } = scanRegistry(dirs.filter((_, i) => folders[i]!.error === null), { env: ctx.env });
    const verdicts: Record<string, number> = {};
    for (const r of records) verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
    const b = backend();
    const report = {
      version: readVersion(),
      backend: { name: b.name, reason: b.reason ?? null },
      exits: exitNotification(), // how `watch` learns of exits: { mode: 'kernel' | 'interval', mechanism?, reason? }
      platform: process.platform,
      arch: process.arch,
      node: process.version,
      pidDomain: ourPidDomain(),
      wsl: isWsl(),
      folders,
      verdicts,
      skipped: skipped.map((s) => ({ path: s.path, pid: s.pid, reason: s.reason })),
      statuslineWatcher: watcherStatus(ctx.env), // the default line-file folder's watcher (docs/statusline.md)
    };
    if (ctx.json) {
      out(JSON.stringify(report) + '\n');
      return 0;
    }
    const { paint } = ctx;
    const lines = [
      `claude-ps ${report.version}`,
      `backend    ${b.name === 'native' ? paint.green('native') : paint.yellow(b.name)}${b.reason ? ` (${b.reason})` : ''}`,
      `exits      ${report.exits.mode === 'kernel' ? `kernel (${report.exits.mechanism})` : `interval probe (${report.exits.reason})`}`,
      `platform   ${report.platform} ${report.arch}, node ${report.node}${report.wsl ? ', WSL' : ''}`,
      `pidDomain  ${report.pidDomain}`,
    ];
    for (const f of folders) {
      const state = f.error
        ? paint.red(`unreadable (${f.error})`)
        : f.exists
          ? `${f.candidates} candidate file(s), ${f.ignored} other file(s) ignored${folderNotes(f)}`
          : paint.yellow('missing (an empty registry)');
      lines.push(`folder     ${f.sessionsDir} [${f.source}]: ${state}`);
    }
    const tally = Object.entries(verdicts).map(([v, n]) => `${n} ${v}`);
    lines.push(`records    ${records.length}${tally.length ? `: ${tally.join(', ')}` : ''}`);
    lines.push(`skipped    ${skipped.length}${skipped.length ? ' (never deleted; see reasons)' : ''}`);
    for (const s of skipped) lines.push(`  ${s.path}: ${s.reason}`);
    lines.push(`watcher    ${describeWatcher(report.statuslineWatcher)}`);
    out(lines.join('\n') + '\n');
    return 0;
  },
};
