/**
 * `cc-sessions doctor`: everything needed to understand an answer — which backend probes and why,
 * our PID space, which folders were read, and which files were skipped and why.
 */
import { readdirSync } from 'node:fs';
import { backend } from '../../backend/index.js';
import { exitNotification } from '../../backend/exits.js';
import { scanRegistry } from '../../registry/read/scan.js';
import { sessionsDir } from '../../registry/config.js';
import { isCandidateName } from '../../registry/config.js';
import { isWsl, ourPidDomain } from '../../registry/domain.js';
import type { Command } from '../command.js';
import { out } from '../output.js';
import { readVersion } from '../version.js';
import { configDirList } from './list.js';

interface FolderReport {
  configDir: string;
  source: 'option' | 'CLAUDE_CONFIG_DIR' | 'default';
  sessionsDir: string;
  exists: boolean;
  /** Files in the folder: candidates (`<pid>.json`) and others, which are ignored. */
  candidates: number;
  ignored: number;
  error: string | null;
}

function inspectFolder(configDir: string, source: FolderReport['source']): FolderReport {
  const dir = sessionsDir(configDir);
  const report: FolderReport = { configDir, source, sessionsDir: dir, exists: false, candidates: 0, ignored: 0, error: null };
  try {
    for (const name of readdirSync(dir)) {
      if (isCandidateName(name)) report.candidates++;
      else report.ignored++;
    }
    report.exists = true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') {
      report.exists = code !== 'ENOTDIR';
      report.error = code ?? String(e);
    }
  }
  return report;
}

export const doctor: Command = {
  name: 'doctor',
  summary: 'show the backend and why, platform, pidDomain, folders read, skipped files and why',
  usage: 'doctor [options]',
  details: `
--json prints {"version", "backend": {"name", "reason"}, "exits": {"mode", "mechanism", "reason"}, "platform", "arch", "node", "pidDomain", "wsl",
"folders": [{"configDir", "source", "sessionsDir", "exists", "candidates", "ignored", "error"}],
"verdicts": {VERDICT: N}, "skipped": [{"path", "pid", "reason"}]}.`,
  flags: {},
  run(ctx) {
    const source: FolderReport['source'] = ctx.configDirs
      ? 'option'
      : ctx.env.CLAUDE_CONFIG_DIR !== undefined
        ? 'CLAUDE_CONFIG_DIR'
        : 'default';
    const dirs = configDirList(ctx.configDirs, ctx.env);
    const folders = dirs.map((d) => inspectFolder(d, source));
    const { records, skipped } = scanRegistry(dirs, { env: ctx.env });
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
    };
    if (ctx.json) {
      out(JSON.stringify(report) + '\n');
      return 0;
    }
    const { paint } = ctx;
    const lines = [
      `cc-sessions ${report.version}`,
      `backend    ${b.name === 'native' ? paint.green('native') : paint.yellow(b.name)}${b.reason ? ` (${b.reason})` : ''}`,
      `exits      ${report.exits.mode === 'kernel' ? `kernel (${report.exits.mechanism})` : `interval probe (${report.exits.reason})`}`,
      `platform   ${report.platform} ${report.arch}, node ${report.node}${report.wsl ? ', WSL' : ''}`,
      `pidDomain  ${report.pidDomain}`,
    ];
    for (const f of folders) {
      const state = f.error
        ? paint.red(`unreadable (${f.error})`)
        : f.exists
          ? `${f.candidates} candidate file(s), ${f.ignored} other file(s) ignored`
          : paint.yellow('missing (an empty registry)');
      lines.push(`folder     ${f.sessionsDir} [${f.source}]: ${state}`);
    }
    const tally = Object.entries(verdicts).map(([v, n]) => `${n} ${v}`);
    lines.push(`records    ${records.length}${tally.length ? `: ${tally.join(', ')}` : ''}`);
    lines.push(`skipped    ${skipped.length}${skipped.length ? ' (never deleted; see reasons)' : ''}`);
    for (const s of skipped) lines.push(`  ${s.path}: ${s.reason}`);
    out(lines.join('\n') + '\n');
    return 0;
  },
};
