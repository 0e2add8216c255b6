/**
 * `claude-ps prune`: deletes the files of provably dead records (gone, recycled, zombie) and their
 * key files, finishes what an interrupted prune left, and with --legacy removes `pid-<n>.json` files
 * whose PID is gone (docs/prune.md). SIGINT, SIGTERM and SIGHUP are honoured between batches, never
 * inside one: a file in hand always reaches removed or put back.
 */
import { legacyFiles, pruneLegacyWithReport, type LegacyFile } from '../../registry/prune/legacy.js';
import { pruneWithReport, type PruneFailure, type PrunedRecord, type RecoveredCopy } from '../../registry/prune/prune.js';
import { readRecords } from '../../registry/read/scan.js';
import { configDirList, type Command, type Context } from '../command.js';
import { printable, shortenHome } from '../format.js';
import { out, outJson, table, type Cell } from '../output.js';

const SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type Signal = keyof typeof SIGNALS;

/** Records per library call: a signal waits at most for one batch (two probes, a few ms). */
const BATCH = 64;

interface Outcome {
  removed: PrunedRecord[];
  legacy: LegacyFile[];
  /** --legacy: the legacy files left in place because a process has their PID. */
  legacyKept?: number;
  recovered: RecoveredCopy[];
  failed: PruneFailure[];
  interrupted: Signal | undefined;
}

/** Catches the three signals for the duration of `work`; `stopped()` says which arrived, if any. */
async function withSignalsDeferred<T>(work: (stopped: () => Signal | undefined) => Promise<T>): Promise<T> {
  let caught: Signal | undefined;
  const handlers = (Object.keys(SIGNALS) as Signal[]).map((signal) => {
    const handler = () => {
      caught ??= signal;
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  try {
    return await work(() => caught);
  } finally {
    for (const [signal, handler] of handlers) process.removeListener(signal, handler);
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function runPrune(ctx: Context, dryRun: boolean, legacy: boolean): Promise<Outcome> {
  const dirs = configDirList(ctx.configDirs, ctx.env);
  const records = readRecords(dirs, { env: ctx.env });
  const outcome: Outcome = { removed: [], legacy: [], recovered: [], failed: [], interrupted: undefined };
  await withSignalsDeferred(async (stopped) => {
    for (let start = 0; start === 0 || start < records.length; start += BATCH) {
      // The first batch also settles what interrupted prunes left in every folder read.
      const part = pruneWithReport(records.slice(start, start + BATCH), { dryRun, configDirs: start === 0 ? dirs : undefined, env: ctx.env });
      outcome.removed.push(...part.removed);
      outcome.recovered.push(...part.recovered);
      outcome.failed.push(...part.failed);
      await turn(); // a pending signal's handler runs here, between batches
      if ((outcome.interrupted = stopped())) return;
    }
    if (legacy) {
      const part = pruneLegacyWithReport(dirs, { dryRun, env: ctx.env });
      outcome.legacy.push(...part.removed);
      // Said, not hidden: the legacy files it keeps because their PID exists (doctor counts them by the
      // same rule); one it could not remove is a failure, reported as such.
      const settled = new Set([...part.removed.map((f) => f.path), ...part.failed.map((f) => f.path)]);
      outcome.legacyKept = legacyFiles(dirs, { env: ctx.env }).filter((f) => !settled.has(f.path)).length;
      // It settles leftovers too: what the record pass already reported is not reported twice.
      const known = new Set([...outcome.recovered, ...outcome.failed].map((x) => x.path));
      outcome.recovered.push(...part.recovered.filter((c) => !known.has(c.path)));
      outcome.failed.push(...part.failed.filter((f) => !known.has(f.path)));
      await turn();
      outcome.interrupted = stopped();
    }
  });
  return outcome;
}

function report(ctx: Context, o: Outcome, dryRun: boolean): void {
  const removedRows: Cell[][] = [];
  for (const r of o.removed) {
    removedRows.push([String(r.pid), { text: r.verdict, paint: ctx.paint.red }, shortenHome(r.path)]);
    for (const key of r.keys) removedRows.push([String(r.pid), { text: 'key', paint: ctx.paint.dim }, shortenHome(key)]);
  }
  for (const l of o.legacy) removedRows.push([String(l.pid), { text: 'legacy', paint: ctx.paint.dim }, shortenHome(l.path)]);
  const keys = o.removed.reduce((n, r) => n + r.keys.length, 0);
  if (removedRows.length > 0) {
    const noun = o.removed.length === 1 ? 'dead record' : 'dead records';
    const extra = [keys && `${keys} key file${keys === 1 ? '' : 's'}`, o.legacy.length && `${o.legacy.length} legacy file${o.legacy.length === 1 ? '' : 's'}`];
    const also = extra.filter(Boolean).join(', ');
    out(`${dryRun ? 'Would remove' : 'Removed'} ${o.removed.length} ${noun}${also ? ` (and ${also})` : ''}:\n`);
    out(table(['PID', 'VERDICT', 'FILE'], removedRows, ctx.paint));
  }
  const settled = o.recovered.filter((c) => c.action !== 'failed'); // failures are on stderr
  if (settled.length > 0) {
    out(`${dryRun ? 'Would settle' : 'Settled'} ${settled.length} cop${settled.length === 1 ? 'y' : 'ies'} an interrupted prune left aside:\n`);
    const rows = settled.map((c) => [String(c.pid), c.action, shortenHome(c.action === 'put back' ? c.originalPath : c.path)]);
    out(table(['PID', 'ACTION', 'FILE'], rows, ctx.paint));
  }
  if (removedRows.length === 0 && settled.length === 0 && o.failed.length === 0) {
    out(`Nothing to prune: no provably dead records${o.interrupted ? ' (interrupted)' : ''}.\n`);
  }
  if (o.legacyKept) {
    const files = o.legacyKept === 1 ? 'legacy pid-<n>.json kept: a process has its PID' : `legacy pid-<n>.json kept: a process has their PID`;
    ctx.note(`(${o.legacyKept} ${files}, and without a start token it may be the old writer)\n`);
  }
}

export const prune: Command = {
  name: 'prune',
  summary: 'delete the files of provably dead records and their key files (--dry-run: only say which)',
  usage: 'prune [--dry-run] [--legacy] [options]',
  details: `
Only gone, recycled and zombie records go, with their <pid>.<64 hex>.key files while a key names the
same dead process; liveness is probed again at prune time, and a file that a live session rewrote
meanwhile is kept. Files that are not records are never touched. Copies an interrupted prune left
aside are put back (live) or removed (dead). --legacy also removes pid-<n>.json files of older Claude
Code whose PID no longer exists. SIGINT/SIGTERM/SIGHUP stop it between batches (exit 130/143/129).
Exit 1 when a dead file could not be removed (each is named on stderr, with the reason).
--json prints {"dryRun": BOOLEAN, "removed": [{"pid", "sessionId", "verdict", "path", "keys": [PATH...]}...],
"legacy": [{"pid", "sessionId", "path"}...], "recovered": [{"pid", "kind", "action", "path", "originalPath"}...],
"failed": [{"pid", "path", "reason"}...], "interrupted": SIGNAL or null}.`,
  flags: {
    'dry-run': { type: 'boolean', short: 'n', help: 'report what would be removed, remove nothing' },
    legacy: { type: 'boolean', help: 'also remove pid-<n>.json files (older Claude Code) whose PID is gone' },
    host: { type: 'list', value: 'NAME', help: "run NAME's own claude-ps prune over ssh (refused where it has none)" },
  },
  async run(ctx) {
    if (ctx.flags.host !== undefined) return (await import('../hosts/prune.js')).pruneOnHosts(ctx);
    const dryRun = ctx.flags['dry-run'] === true;
    const o = await runPrune(ctx, dryRun, ctx.flags.legacy === true);
    const code = o.interrupted ? SIGNALS[o.interrupted] : o.failed.length > 0 ? 1 : 0;
    // Set before printing: a reader that goes away ends the process from inside out() with this code.
    process.exitCode = code;
    if (ctx.json) {
      const removed = o.removed.map((r) => ({ pid: r.pid, sessionId: r.sessionId, verdict: r.verdict, path: r.path, keys: r.keys }));
      const legacy = o.legacy.map((l) => ({ pid: l.pid, sessionId: l.sessionId, path: l.path }));
      const recovered = o.recovered.map((c) => ({ pid: c.pid, kind: c.kind, action: c.action, path: c.path, originalPath: c.originalPath }));
      const failed = o.failed.map((f) => ({ pid: f.pid, path: f.path, reason: f.reason }));
      outJson({ dryRun, removed, legacy, recovered, failed, interrupted: o.interrupted ?? null });
    } else {
      report(ctx, o, dryRun);
    }
    for (const f of o.failed) ctx.note(`claude-ps: prune: could not remove ${printable(f.path)}: ${f.reason}\n`);
    if (o.interrupted) ctx.note(`claude-ps: prune: stopped by ${o.interrupted}; what is left goes at the next prune\n`);
    return code;
  },
};
