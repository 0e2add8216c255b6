/**
 * Where the real Claude Code comes from: `CCLAB_CLAUDE` (a binary), else the npm package
 * `@anthropic-ai/claude-code@$CCLAB_CLAUDE_VERSION` (default below) installed into the claude-lab's cache,
 * `~/.cache/claude-lab/<version>`, the same place `node lab.mjs install` uses. The ELF binary lives in the
 * package's platform package; the wrapper package's own install script is not run (no network).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The release this suite was last checked against (docs/testing-with-claude-code.md). */
export const CHECKED_VERSION = '2.1.332';

export type Availability = { ok: true; binary: string; version: string } | { ok: false; reason: string };

function platformPackage(): string {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  const musl = process.platform === 'linux' && !report?.header?.glibcVersionRuntime;
  return `@anthropic-ai/claude-code-${process.platform}-${process.arch}${musl ? '-musl' : ''}`;
}

function has(command: string, args: string[]): boolean {
  const r = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return r.status === 0;
}

/** The version a binary reports (`2.1.332 (Claude Code)` → `2.1.332`), or undefined. */
function reportedVersion(binary: string): string | undefined {
  const r = spawnSync(binary, ['--version'], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
  });
  return /\d+\.\d+\.\d+\S*/.exec(r.stdout ?? '')?.[0];
}

/**
 * Finds (or installs once) Claude Code and checks what the driver needs beside it. Never throws: an
 * answer it cannot give is a reason, which the caller turns into a skip or, in CI, a failure.
 */
export function ensureClaudeCode(env: NodeJS.ProcessEnv = process.env): Availability {
  if (process.platform !== 'linux') return { ok: false, reason: `the driver reads /proc, which ${process.platform} has not` };
  if (!has('tmux', ['-V'])) return { ok: false, reason: 'tmux is not installed' };
  let binary = env.CCLAB_CLAUDE;
  const version = env.CCLAB_CLAUDE_VERSION || CHECKED_VERSION;
  if (binary) {
    if (!existsSync(binary)) return { ok: false, reason: `CCLAB_CLAUDE=${binary} does not exist` };
  } else {
    const cache = join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'claude-lab', version);
    binary = join(cache, 'node_modules', platformPackage(), 'claude');
    if (!existsSync(binary)) {
      const fresh = !existsSync(cache);
      mkdirSync(cache, { recursive: true });
      const r = spawnSync(
        'npm',
        ['install', '--prefix', cache, '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', `@anthropic-ai/claude-code@${version}`],
        { encoding: 'utf8', timeout: 600_000 },
      );
      if (r.status !== 0 || !existsSync(binary)) {
        if (fresh) rmSync(cache, { recursive: true, force: true }); // no half-installed version left in the cache
        const why = (r.stderr ?? '').split('\n').find((l) => /ERR!|error/i.test(l))?.trim() ?? (r.error?.message || `npm exit ${r.status}`);
        return { ok: false, reason: `could not install @anthropic-ai/claude-code@${version} (${why})` };
      }
    }
  }
  const reported = reportedVersion(binary);
  if (!reported) return { ok: false, reason: `${binary} --version printed no version` };
  return { ok: true, binary, version: reported };
}
