/**
 * `claude-ps doctor`: everything needed to understand an answer — which backend probes and why,
 * our PID space, which folders were read, and which files were skipped and why.
 */
import { readdirSync } from 'node:fs';
import { backend, servingAddonFile } from '../../backend/index.js';
import { exitNotification } from '../../backend/exits.js';
import { scanRegistry } from '../../registry/read/scan.js';
import { sessionsDir } from '../../registry/config.js';
import { isCandidateName } from '../../registry/config.js';
import { isPruneLeftover, legacyPid, strandedClaims } from '../../registry/prune/names.js';
import { legacyCensus, type LegacyCensus } from '../../registry/prune/legacy.js';
import { isWsl, ourPidDomain } from '../../registry/domain.js';
import { unlistable } from '../../registry/read/unreadable-folder.js';
import type { Verdict } from '../../registry/types.js';
import { configDirList, type Command } from '../command.js';
import { skipsJson } from '../skips.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import { out, outJson } from '../output.js';
import { readVersion } from '../version.js';
import { describeWatcher, watcherStatus } from '../statusline/watcher-status.js';

interface FolderReport {
  configDir: string;
  source: 'option' | 'CLAUDE_CONFIG_DIR' | 'default';
  sessionsDir: string;
  exists: boolean;
  /** Files in the folder: candidates (`<pid>.json`) and others, which are ignored. */
  candidates: number;
  ignored: number;
  /**
   * Of the ignored: `pid-<n>.json` names, judged as `prune --legacy` judges them: legacy documents
   * (`files`), of which `removable` (PID gone: prune --legacy removes them) and `kept` (a process has that
   * PID); `unrecognised`: such names that hold no legacy document, which nothing touches.
   */
  legacy: LegacyCensus;
  /** Of the ignored: copies an interrupted prune left aside of a missing `<pid>.json`, read as claims. */
  stranded: number;
  /** Of the ignored: every other copy or journal a prune left (the next prune settles them). */
  pruneLeftovers: number;
  error: string | null;
}

function inspectFolder(configDir: string, source: FolderReport['source']): FolderReport {
  const dir = sessionsDir(configDir);
  const report: FolderReport = {
    configDir, source, sessionsDir: dir, exists: false, candidates: 0, ignored: 0,
    legacy: { files: 0, removable: 0, kept: 0, unrecognised: 0 }, stranded: 0, pruneLeftovers: 0, error: null,
  };
  try {
    const names = readdirSync(dir);
    for (const name of names) {
      if (isCandidateName(name)) report.candidates++;
      else {
        report.ignored++;
        if (legacyPid(name) === undefined && isPruneLeftover(name)) report.pruneLeftovers++;
      }
    }
    report.legacy = legacyCensus(dir, names);
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

/** What prune --legacy does with the legacy files, and why it keeps the others. */
function legacyFate(c: LegacyCensus): string {
  const parts = [];
  if (c.removable) parts.push(`prune --legacy removes ${c.removable}: PID gone`);
  if (c.kept) parts.push(`${c.kept} kept: a process has that PID, which may be the old writer`);
  return parts.join('; ');
}

/** What among the ignored files a person should know about, and the command that deals with it. */
function folderNotes(f: FolderReport): string {
  const notes = [
    f.legacy.files && `${f.legacy.files} legacy pid-<n>.json (${legacyFate(f.legacy)})`,
    f.legacy.unrecognised && `${f.legacy.unrecognised} pid-<n>.json that are no legacy record (never touched)`,
    f.stranded && `${f.stranded} stranded by an interrupted prune, read as claims (prune puts them back)`,
    f.pruneLeftovers && `${f.pruneLeftovers} other prune leftover(s) (prune settles them)`,
  ].filter(Boolean);
  return notes.length > 0 ? `; of those: ${notes.join('; ')}` : '';
}

/** How `watch` learns of exits, in one shape whichever way: every key present, null when it does not apply. */
function exitsJson(): { mode: 'kernel' | 'interval'; mechanism: string | null; reason: string | null } {
  const e = exitNotification();
  return { mode: e.mode, mechanism: e.mechanism ?? null, reason: e.reason ?? null };
}

export const doctor: Command = {
  name: 'doctor',
  summary: 'show the backend and why, platform, pidDomain, folders read, skipped files and why',
  usage: 'doctor [options]',
  details: `
--json prints {"version", "backend": {"name", "reason", "addon"}, "exits": {"mode", "mechanism", "reason"}, "platform", "arch", "node", "pidDomain", "wsl",
"folders": [{"configDir", "source", "sessionsDir", "exists", "candidates", "ignored", "legacy": {"files",
"removable", "kept", "unrecognised"}, "stranded", "pruneLeftovers", "error"}] (legacy: pid-<n>.json files of
older Claude Code, judged as prune --legacy judges them; stranded: copies an interrupted
prune left aside of a missing <pid>.json, read as the claims they are; pruneLeftovers: other copies and
journals a prune left; the next claude-ps prune settles both),
"verdicts": {VERDICT: N}, "skipped": [{"path", "pid", "reason", "error"}],
"statuslineWatcher": {"dir", "lock", "watcher": {"pid", "since", "sessionsDirs"} | null, "autostart"}}. Every key
is always present.`,
  flags: { ...HOST_FLAGS },
  run(ctx) {
    if (wantsHosts(ctx.flags)) return import('../hosts/commands.js').then((m) => m.doctorOnHosts(ctx));
    const source: FolderReport['source'] = ctx.configDirs
      ? 'option'
      : ctx.env.CLAUDE_CONFIG_DIR // an empty value means unset, as in defaultConfigDir
        ? 'CLAUDE_CONFIG_DIR'
        : 'default';
    const dirs = configDirList(ctx.configDirs, ctx.env);
    const folders = dirs.map((d) => inspectFolder(d, source));
    // A folder that cannot be listed is reported above; the scan reads the others (it would throw).
    const { records, skipped } = scanRegistry(dirs.filter((_, i) => folders[i]!.error === null), { env: ctx.env });
    // Every verdict is a key, 0 when no record has it: one shape whatever the folder holds.
    const verdicts: Record<Verdict, number> = { alive: 0, unverified: 0, foreign: 0, gone: 0, recycled: 0, zombie: 0 };
    for (const r of records) verdicts[r.verdict]++;
    const b = backend();
    const report = {
      version: readVersion(),
      backend: { name: b.name, reason: b.reason ?? null, addon: servingAddonFile() ?? null },
      exits: exitsJson(),
      platform: process.platform,
      arch: process.arch,
      node: process.version,
      pidDomain: ourPidDomain(),
      wsl: isWsl(),
      folders,
      verdicts,
      skipped: skipsJson(skipped),
      statuslineWatcher: watcherStatus(ctx.env), // the default line-file folder's watcher (docs/statusline.md)
    };
    if (ctx.json) {
      outJson(report);
      return 0;
    }
    const { paint } = ctx;
    const lines = [
      `claude-ps ${report.version}`,
      `backend    ${b.name === 'native' ? paint.green('native') : paint.yellow(b.name)}${b.reason ? ` (${b.reason})` : ''}` +
        (report.backend.addon ? ` (${report.backend.addon})` : ''),
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
    const tally = Object.entries(verdicts).filter(([, n]) => n > 0).map(([v, n]) => `${n} ${v}`);
    lines.push(`records    ${records.length}${tally.length ? `: ${tally.join(', ')}` : ''}`);
    lines.push(`skipped    ${skipped.length}${skipped.length ? ' (never deleted; see reasons)' : ''}`);
    for (const s of skipped) lines.push(`  ${s.path}: ${s.reason}`);
    lines.push(`watcher    ${describeWatcher(report.statuslineWatcher)}`);
    out(lines.join('\n') + '\n');
    return 0;
  },
};
