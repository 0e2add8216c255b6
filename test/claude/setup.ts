/**
 * Global setup of `npm run test:claude`: finds (or installs) the real Claude Code and tmux. Where
 * either is missing it prints one line and the suite is skipped, unless CI=true (or
 * CLAUDE_PS_REQUIRE_CLAUDE=1): on this project's machines the suite must run, so there it fails.
 * The teardown ends any process and removes any lab folder of this run that a crashed worker left.
 */
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { ensureClaudeCode, type Availability } from './install.js';
import { RUN_MARKER, sweepRun } from './lab.js';

declare module 'vitest' {
  export interface ProvidedContext {
    claudeCode: Availability;
  }
}

export function mustRun(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === 'true' || env.CLAUDE_PS_REQUIRE_CLAUDE === '1';
}

export default function setup(project: TestProject) {
  const run = randomBytes(8).toString('hex');
  process.env[RUN_MARKER] = run; // the workers inherit it, and so does every process a lab starts
  const found = ensureClaudeCode();
  if (found.ok) {
    process.stdout.write(`test:claude: Claude Code ${found.version} (${found.binary})\n`);
  } else if (mustRun()) {
    throw new Error(`test:claude: cannot run (${found.reason}), and it must here (CI=true or CLAUDE_PS_REQUIRE_CLAUDE=1)`);
  } else {
    process.stdout.write(`test:claude: skipped: ${found.reason}\n`);
  }
  project.provide('claudeCode', found);

  return () => sweepRun(run);
}
