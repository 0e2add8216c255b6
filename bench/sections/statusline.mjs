/**
 * Statusline: what one Claude Code render costs, each way, side by side (docs/statusline.md). Every
 * row runs as Claude Code runs a statusLine command where that matters (`/bin/sh -c`, CLAUDE_PID, the
 * stdin document on a socket); rows are interleaved round by round. Targets are on the run's clock
 * (CPU time by default: on a shared machine wall time is mostly the wait for a core; `--wall` ranks by it).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtRatio, fmtTime, table, targetLine } from '../lib/format.mjs';
import { clockName, interleaved, medianRatio, processTime } from '../lib/measure.mjs';
import { endAutostartedWatcher, watcherRows } from './statusline-watcher.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist', 'cli.cjs');
const claudeVersion = process.env.CCLAB_CLAUDE_VERSION || '2.1.332';
const claude =
  process.env.CCLAB_CLAUDE ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'claude-lab', claudeVersion, 'node_modules/@anthropic-ai/claude-code-linux-x64/claude');

// What Claude Code 2.1.332 pipes to a statusLine command (docs/statusline.md), ~700 bytes.
export const STDIN_DOCUMENT = JSON.stringify({
  session_id: 'eb9af3ea-fbbb-42c9-a62b-39475c803853',
  transcript_path: '/home/dev/.claude/projects/-home-dev-src/eb9af3ea-fbbb-42c9-a62b-39475c803853.jsonl',
  cwd: '/home/dev/src',
  model: { id: 'claude-opus-5-5', display_name: 'Opus 5.5' },
  workspace: { current_dir: '/home/dev/src', project_dir: '/home/dev/src', added_dirs: [] },
  version: '2.1.332',
  output_style: { name: 'default' },
  cost: { total_cost_usd: 0, total_duration_ms: 1016, total_api_duration_ms: 0, total_lines_added: 0, total_lines_removed: 0 },
  context_window: { total_input_tokens: 0, total_output_tokens: 0, context_window_size: 1000000, current_usage: null },
  exceeds_200k_tokens: false,
});

export function statuslineSection({ libs, fixtures, bins, workDir, quick }) {
  const missing = [];
  const n = 10;
  const { configDir, sessionsDir } = fixtures.registries.get(n);
  const self = libs.native.liveRecords(configDir)[0];
  const env = { ...process.env, CLAUDE_CONFIG_DIR: configDir, CLAUDE_PID: String(self.pid) };
  delete env.CLAUDE_PS_BACKEND;
  delete env.NODE_OPTIONS;
  // Node parses this CA file at every start (~80 ms of CPU where it is set, as in some sandboxes):
  // it would dilute every ratio to bare node, and a user's statusline seldom has it.
  delete env.NODE_EXTRA_CA_CERTS;
  // The CLI's per-user code cache (Node 20) in the bench's own folder, filled by the warm-up runs.
  env.XDG_CACHE_HOME = workDir;
  // A runtime folder of the bench's own: a render that finds no watcher starts one (docs/statusline.md),
  // which must neither land in the user's runtime folder, beside their own statusline's line files, nor
  // outlive the bench (it did, until its 300 s idle exit, in /tmp/claude-ps-<uid> where
  // XDG_RUNTIME_DIR is unset).
  const runtime = mkdtempSync(join(workDir, 'runtime-'));
  env.XDG_RUNTIME_DIR = runtime;
  const tokenOf = (pid) => libs.native.processStartToken(pid);
  // A line file as the watcher leaves it: the line, newer than the session's own record.
  const lines = mkdtempSync(join(workDir, 'statusline-'));
  const lineFile = join(lines, String(self.pid));
  writeFileSync(lineFile, '⏳ api-3f (permission prompt) · 2 busy\n', { mode: 0o600 });
  utimesSync(lineFile, new Date(), new Date(Date.now() + 1000));
  const snippet = `f=${lines}/$CLAUDE_PID; [ "$f" -nt "\${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions/$CLAUDE_PID.json" ] && cat "$f" || ${process.execPath} ${cli} statusline`;
  const rows = [
    { name: 'bare `node -e 0`', command: process.execPath, args: ['-e', '0'], key: 'bare' },
    { name: '`claude-ps statusline` (found by CLAUDE_PID)', command: process.execPath, args: [cli, 'statusline'], key: 'statusline' },
    {
      name: '`claude-ps statusline` (no CLAUDE_PID: reads the stdin socket)',
      command: process.execPath,
      args: [cli, 'statusline'],
      env: { ...env, CLAUDE_PID: '', CLAUDE_CODE_SESSION_ID: '' },
    },
    { name: '`sh -c \'cat DIR/$CLAUDE_PID\'` (the line file)', command: '/bin/sh', args: ['-c', `cat ${lines}/$CLAUDE_PID 2>/dev/null`], key: 'cat' },
    { name: 'the README snippet (`-nt` test, then `cat`)', command: '/bin/sh', args: ['-c', snippet], key: 'snippet' },
  ];
  let agentsDir;
  if (existsSync(claude)) {
    // Its own config dir holding a copy of the same records: `claude agents` writes .claude.json beside them.
    agentsDir = mkdtempSync(join(tmpdir(), 'cps-bench-agents-'));
    mkdirSync(join(agentsDir, 'home'));
    mkdirSync(join(agentsDir, 'sessions'));
    for (const name of readdirSync(sessionsDir)) if (name.endsWith('.json')) copyFileSync(join(sessionsDir, name), join(agentsDir, 'sessions', name));
    rows.push({
      name: '`claude agents --json`',
      command: claude,
      args: ['agents', '--json'],
      env: { PATH: process.env.PATH, HOME: join(agentsDir, 'home'), CLAUDE_CONFIG_DIR: agentsDir, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      key: 'agents',
    });
  } else missing.push(`no Claude Code at ${claude} (node /work/shared/claude-lab/lab.mjs install): no \`claude agents\` row`);
  // npx from the package folder: the local bin, so the row is npx's own start-up on top of ours.
  rows.push({ name: '`npx claude-ps statusline`', command: 'npx', args: ['--no', 'claude-ps', 'statusline'], cwd: root, key: 'npx' });
  const impls = rows.map((row) => ({
    name: row.name,
    run(iterations) {
      const total = { wall: 0, cpu: 0 };
      for (let i = 0; i < iterations; i++) {
        const t = processTime(bins.run, row.command, row.args, { env: row.env ?? env, input: STDIN_DOCUMENT, cwd: row.cwd ?? workDir });
        total.wall += t.wall / iterations;
        total.cpu += t.cpu / iterations;
      }
      return total;
    },
  }));
  let medians;
  try {
    medians = interleaved(impls, { rounds: quick ? 5 : 31, targetMs: 1, maxIterations: 1 });
  } finally {
    endAutostartedWatcher(join(runtime, 'claude-ps'), tokenOf);
    rmSync(runtime, { recursive: true, force: true });
    rmSync(lines, { recursive: true, force: true });
    if (agentsDir) rmSync(agentsDir, { recursive: true, force: true });
  }
  const at = (key) => impls[rows.findIndex((row) => row.key === key)]?.name;
  const bareWall = medians.wall.get(at('bare'));
  // Ratios to bare node: the median of each round's ratio (bench/sections/process.mjs says why).
  const perRound = (name) => medianRatio(medians, name, at('bare'));
  const table_ = table(
    ['one render', `median ${clockName()}`, 'vs bare node, per round', 'median wall time', 'wall vs bare node'],
    impls.map((impl) => [impl.name, fmtTime(medians.get(impl.name)), `${perRound(impl.name).toFixed(2)}x`, fmtTime(medians.wall.get(impl.name)), fmtRatio(medians.wall.get(impl.name), bareWall)]),
  );
  const statuslineRatio = perRound(at('statusline'));
  const cat = medians.get(at('cat'));
  const snippetTime = medians.get(at('snippet'));
  const targets = [
    targetLine(`\`claude-ps statusline\` vs bare \`node -e 0\`, ${n} records`, `${statuslineRatio.toFixed(2)}x`, '≤ 1.10x', statuslineRatio <= 1.1),
    targetLine(`line-file render (\`sh -c cat\`), ${clockName()}`, fmtTime(cat), '≤ 5 ms', cat <= 5e6),
    targetLine(`line-file render with the README snippet's \`-nt\` test, ${clockName()}`, fmtTime(snippetTime), '≤ 5 ms', snippetTime <= 5e6),
  ];
  // The snippet exactly as `statusline --install` writes it.
  const printed = spawnSync(process.execPath, [cli, 'statusline', '--snippet'], { encoding: 'utf8' });
  if (printed.status !== 0) throw new Error(`statusline --snippet: ${printed.stderr}`);
  const withWatcher = watcherRows({
    bins,
    workDir,
    quick,
    env,
    selfPid: self.pid,
    tokenOf,
    stdin: STDIN_DOCUMENT,
    snippetCommand: JSON.parse(printed.stdout).command,
  });
  targets.push(...withWatcher.targets);
  const markdown = [
    '## Statusline (one Claude Code render, each way)',
    '',
    `A registry of ${n} records (${libs.native.liveRecords(configDir).length} live); each row is a fresh process through ` +
      '`bench/c/run.c` with the stdin document Claude Code sends on stdin and `CLAUDE_PID` set to a live record; medians of interleaved rounds.',
    '',
    table_,
    ...(missing.length ? ['', missing.join('; ')] : []),
    '',
    withWatcher.markdown,
  ].join('\n');
  return { markdown, targets };
}
