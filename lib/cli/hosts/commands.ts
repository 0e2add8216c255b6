/**
 * list, count, summary, has-interactive and doctor over several hosts (--host, --all-hosts). Each
 * command's own file hands over here when asked; the outputs keep each command's shape, with the
 * hosts' states beside it (docs/hosts.md).
 */
import { anyInteractive, LOCAL_HOST, type HostScan } from '../../hosts/read.js';
import { snapshotOf, writeSnapshot, type Snapshot } from '../../registry/snapshot.js';
import { sshArguments } from '../../hosts/transport.js';
import type { Context } from '../command.js';
import { countRecords } from '../counts.js';
import { GUARD_EXIT } from '../guard-exit.js';
import { printable } from '../format.js';
import { jsonText, out, outJson, table } from '../output.js';
import { defaultSummary, renderTemplate, type parseTemplate } from '../template.js';
import { readRequestedHosts, requestedHosts } from './options.js';
import {
  allRecords, answered, exitFor, hostJson, hostLines, hostRecordJson, hostRecordRow, HOST_LIST_HEADER, problemLine,
} from './views.js';

async function scans(ctx: Context): Promise<HostScan[]> {
  return readRequestedHosts(ctx, requestedHosts(ctx)!);
}

/** Each host that gave no complete answer, one line on stderr: stdout stays the command's own shape. */
function noteProblems(ctx: Context, list: readonly HostScan[]): void {
  for (const s of list) if (!answered(s)) ctx.note(`claude-ps: ${problemLine(s)}\n`);
}

export async function listOnHosts(ctx: Context): Promise<number> {
  const list = await scans(ctx);
  const records = allRecords(list);
  const shown = ctx.flags.all ? records : records.filter((r) => r.live);
  if (ctx.json) {
    out(jsonText({ hosts: list.map(hostJson), records: shown.map(hostRecordJson) }) + '\n');
    return exitFor(list);
  }
  const now = Date.now();
  const body = shown.length === 0 ? 'No live Claude Code sessions.\n' : table(HOST_LIST_HEADER, shown.map((r) => hostRecordRow(r, ctx.paint, now)), ctx.paint);
  out(body + hostLines(list, ctx.paint, now).join('\n') + '\n');
  return exitFor(list);
}

export async function countOnHosts(ctx: Context): Promise<number> {
  const interactive = ctx.flags.interactive === true;
  const list = await scans(ctx);
  const counted = (s: HostScan) => s.records.filter((r) => r.live && (!interactive || r.interactive)).length;
  const n = list.reduce((sum, s) => sum + counted(s), 0);
  if (ctx.json) {
    outJson({ count: n, interactive, hosts: list.map((s) => ({ ...hostJson(s), count: answered(s) ? counted(s) : null })) });
  } else {
    out(`${n}\n`);
  }
  noteProblems(ctx, list);
  return exitFor(list);
}

export async function summaryOnHosts(ctx: Context, template: ReturnType<typeof parseTemplate> | undefined): Promise<number> {
  const list = await scans(ctx);
  const counts = countRecords(allRecords(list), ctx.flags.interactive === true);
  const missing = list.filter((s) => !answered(s));
  // A statusline shows only this line: a host that did not answer is named in it, never left out.
  const tail = missing.map((s) => `${printable(s.host)} ${s.state}`).join(', ');
  const line = template ? renderTemplate(template, counts) : defaultSummary(counts);
  const text = tail ? `${line} · ${tail}` : line;
  out(ctx.json ? jsonText({ ...counts, text, hosts: list.map(hostJson) }) + '\n' : text + '\n');
  noteProblems(ctx, list);
  return exitFor(list);
}

/** The guard over hosts: yes if any says yes, no only when every host answered no, else cannot tell. */
export async function hasInteractiveOnHosts(ctx: Context): Promise<number> {
  const list = await scans(ctx);
  const yes = anyInteractive(list);
  const code = yes === true ? GUARD_EXIT.yes : yes === false ? GUARD_EXIT.no : GUARD_EXIT.cannotTell;
  process.exitCode = code;
  const pidsOf = (s: HostScan) => s.records.filter((r) => r.live && r.interactive).map((r) => r.pid);
  if (ctx.json) {
    const hosts = list.map((s) => ({ ...hostJson(s), interactive: s.interactive ?? null, pids: pidsOf(s) }));
    outJson({ interactive: yes ?? null, hosts });
  } else if (ctx.flags.verbose) {
    const word = yes === true ? 'yes' : yes === false ? 'no' : 'cannot tell';
    const lines = list.map((s) => {
      if (s.interactive === true) {
        const pids = pidsOf(s);
        return `  ${printable(s.host)}: yes${pids.length ? ` (live interactive session PID ${pids.join(', ')})` : ' (an unreadable file of a live PID)'}`;
      }
      if (s.interactive === false) return `  ${printable(s.host)}: no`;
      return `  ${problemLine(s)}: cannot tell`;
    });
    out([`${word}:`, ...lines].join('\n') + '\n');
  }
  if (code === GUARD_EXIT.cannotTell && !ctx.json) noteProblems(ctx, list);
  return code;
}

/** The ssh command line doctor shows, or null when there is none (CLAUDE_PS_SSH does not split: the host's detail says so). */
function sshLine(host: string, env: NodeJS.ProcessEnv): string[] | null {
  try {
    return sshArguments(host, env);
  } catch {
    return null;
  }
}

export async function doctorOnHosts(ctx: Context): Promise<number> {
  const list = await scans(ctx);
  const reports = list.map((s) => {
    const verdicts: Record<string, number> = {};
    for (const r of s.records) verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
    return {
      ...hostJson(s),
      ssh: s.host === 'local' ? null : sshLine(s.host, ctx.env),
      remote: s.remote ?? null,
      verdicts,
      skipped: s.skipped.map((k) => ({ path: k.path, pid: k.pid, reason: k.reason })),
    };
  });
  if (ctx.json) {
    outJson({ hosts: reports });
    return exitFor(list);
  }
  const lines: string[] = [];
  const now = Date.now();
  list.forEach((s, i) => {
    const r = reports[i]!;
    lines.push(hostLines([s], ctx.paint, now)[0]!);
    if (r.ssh) lines.push(`  ssh        ${printable(r.ssh.join(' '))}`);
    if (r.remote) {
      lines.push(`  platform   ${r.remote.platform}, probe ${r.remote.probe}, /proc ${r.remote.proc}${r.remote.wsl ? ', WSL' : ''}`);
      lines.push(`  pidDomain  ${printable(r.remote.pidDomain ?? '(none)')}`);
      for (const f of r.remote.folders) {
        lines.push(`  folder     ${printable(f.dir)}: ${f.listing}${f.listingError ? ` (${printable(f.listingError)})` : ''}`);
      }
    }
    const tally = Object.entries(r.verdicts).map(([v, n]) => `${n} ${v}`);
    if (answered(s) || s.state === 'unreadable') {
      lines.push(`  records    ${s.records.length}${tally.length ? `: ${tally.join(', ')}` : ''}`);
      lines.push(`  skipped    ${r.skipped.length}`);
      for (const k of r.skipped) lines.push(`    ${printable(k.path)}: ${k.reason}`);
    }
  });
  out(lines.join('\n') + '\n');
  return exitFor(list);
}

/**
 * The snapshot document with a `hosts` key: by host, its state, when it was measured and its
 * sessions in the snapshot's own shape. The top-level `sessions` stay this machine's (empty unless
 * `local` is read), so a reader of version 1 reads what it always did.
 */
export async function snapshotOnHosts(ctx: Context): Promise<number> {
  const list = await scans(ctx);
  const local = list.find((s) => s.host === LOCAL_HOST);
  const base = snapshotOf(local?.records ?? []);
  const hosts: Record<string, unknown> = Object.create(null);
  for (const s of list) {
    const shot = snapshotOf(s.records, s.measuredAt);
    hosts[s.host] = {
      state: s.state,
      detail: s.detail ?? null,
      measuredAt: s.measuredAt ?? null,
      pidDomain: s.host === LOCAL_HOST ? base.host.pidDomain : (s.remote?.pidDomain ?? null),
      sessions: shot.sessions,
    };
  }
  const data = { ...base, hosts } as Snapshot & { hosts: typeof hosts };
  const file = ctx.flags.output as string | undefined;
  if (file === undefined) out(jsonText(data) + '\n');
  else {
    writeSnapshot(file, data);
    const n = list.reduce((sum, s) => sum + s.records.length, 0);
    out(ctx.json ? jsonText({ output: file, sessions: n, hosts: list.map(hostJson) }) + '\n' : `Wrote ${n} session(s) of ${list.length} host(s) to ${file}\n`);
  }
  noteProblems(ctx, list);
  return exitFor(list);
}
