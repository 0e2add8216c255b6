/**
 * `claude-ps demo`: the whole pipeline on a throw-away registry of its own, so a newcomer sees the
 * filter work on a machine without Claude Code. Its processes are ended by PID and its folder removed
 * at the end, on an error, and on SIGINT (exit 130), SIGTERM (143) or SIGHUP (129).
 */
import { readRecords, scanRegistry } from '../../registry/read/scan.js';
import { prune as pruneRecords } from '../../registry/prune/prune.js';
import { UsageError } from '../args.js';
import type { Command, Context } from '../command.js';
import { createDemoRegistry, type DemoRegistry } from '../demo-registry.js';
import { err, out, outJson, table } from '../output.js';
import { hasInteractive } from './has-interactive.js';
import { list } from './list.js';
import { prune } from './prune.js';
import { summary } from './summary.js';

const SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

function guardCleanup(reg: DemoRegistry): () => void {
  const handlers = Object.entries(SIGNALS).map(([signal, code]) => {
    const handler = () => {
      reg.cleanup();
      err(`\nclaude-ps demo: interrupted; its processes were ended and ${reg.configDir} removed\n`);
      process.exit(code);
    };
    process.once(signal, handler);
    return [signal, handler] as const;
  });
  const onExit = () => reg.cleanup();
  process.once('exit', onExit);
  return () => {
    for (const [signal, handler] of handlers) process.removeListener(signal, handler);
    process.removeListener('exit', onExit);
  };
}

async function tour(ctx: Context, reg: DemoRegistry): Promise<void> {
  const dirs = [reg.configDir];
  const { paint } = ctx;
  const step = async (line: string, cmd: Command, flags: Context['flags'] = {}) => {
    out(`\n${paint.bold(`$ claude-ps ${line} --config-dir ${reg.configDir}`)}\n`);
    // In the tour, asides belong in the story: stdout.
    await cmd.run({ ...ctx, flags, configDirs: dirs, json: false, note: out });
  };
  out('Claims by processes the demo started:\n');
  const verdicts = new Map(readRecords(dirs).map((r) => [r.pid, r.verdict]));
  const rows = reg.claims.map((c) => {
    const got = verdicts.get(c.pid) ?? 'missing';
    const ok = got === c.expected;
    return [String(c.pid), { text: got + (ok ? '' : ` (expected ${c.expected})`), paint: ok ? undefined : paint.red }, c.role];
  });
  out(table(['PID', 'VERDICT', 'WHAT IT IS'], rows, paint));
  out('and files that are not records:\n');
  out(table(['FILE', 'WHAT HAPPENS TO IT'], reg.junk.map((j) => [j.file, j.why]), paint));

  await step('list --all', list, { all: true });
  await step('list', list);
  await step('summary', summary);
  await step('has-interactive --verbose', hasInteractive, { verbose: true });
  await step('prune', prune);
  await step('list --all', list, { all: true });

  out(
    `\n${paint.bold('What was filtered, and why')}\n` +
      '- A claim is live only if its PID exists now AND the process there has the start token recorded in\n' +
      '  the file (Linux: /proc/<pid>/stat starttime); a reused PID has another token: "recycled".\n' +
      '- "gone": kill(pid, 0) says no such process. "zombie": it exited and awaits reaping.\n' +
      '- Only gone, recycled and zombie claims are provably dead, so only their files were pruned;\n' +
      '  prune probed them again first, and never touched a file that is not a record.\n' +
      '- Junk stays: a symlink is never followed, a half-written file is skipped (and, as its PID is\n' +
      '  alive, has-interactive says yes: it may be a human whose file was caught mid-write).\n',
  );
}

function demoJson(reg: DemoRegistry) {
  const dirs = [reg.configDir];
  const { records, skipped } = scanRegistry(dirs);
  const verdicts = new Map(records.map((r) => [r.pid, r.verdict]));
  const claims = reg.claims.map((c) => ({ ...c, verdict: verdicts.get(c.pid) ?? null }));
  const removed = pruneRecords(records).map((r) => r.pid);
  const after = readRecords(dirs).map((r) => ({ pid: r.pid, verdict: r.verdict }));
  return {
    folder: reg.configDir,
    claims,
    junk: reg.junk,
    skipped: skipped.map((s) => ({ file: s.path.slice(reg.sessionsDir.length + 1), pid: s.pid, reason: s.reason })),
    pruned: removed,
    after,
    processes: reg.started(),
  };
}

export const demo: Command = {
  name: 'demo',
  summary: 'see the filter at work on a throw-away registry of its own (cleaned up after)',
  usage: 'demo [--wait] [options]',
  details: `
Starts its own processes (sleeps, a zombie), claims them in a temporary folder beside a reaped PID, a
reused PID and junk files, runs list, summary, has-interactive and prune on it, explains the verdicts,
then ends its processes and removes the folder (also on Ctrl-C: exit 130).
--json prints {"folder", "claims": [{"pid", "role", "expected", "verdict"}], "junk": [{"file", "why"}],
"skipped": [{"file", "pid", "reason"}], "pruned": [PID...], "after": [{"pid", "verdict"}],
"processes": [PID...]} (the folder and processes are gone when it is printed).`,
  flags: {
    wait: { type: 'boolean', short: 'w', help: 'keep the registry and its processes until Ctrl-C, to try commands on it' },
  },
  async run(ctx) {
    if (ctx.configDirs) throw new UsageError('demo: --config-dir does not apply (the demo makes its own registry)');
    const reg = createDemoRegistry();
    const unguard = guardCleanup(reg);
    try {
      if (!ctx.json) out(`Building a throw-away registry in ${reg.sessionsDir} ...\n`);
      await reg.populate();
      if (ctx.json) {
        const data = demoJson(reg);
        reg.cleanup();
        outJson(data);
        return 0;
      }
      await tour(ctx, reg);
      if (ctx.flags.wait) {
        out(
          `\nThe demo registry stays at ${reg.configDir} until you press Ctrl-C; try\n` +
            `  claude-ps list --all --config-dir ${reg.configDir}\n`,
        );
        await new Promise(() => setInterval(() => {}, 1 << 30));
      }
      out(`\nCleaned up: ended PIDs ${reg.started().join(', ')} and removed ${reg.configDir}.\n`);
      return 0;
    } finally {
      reg.cleanup();
      unguard();
    }
  },
};
