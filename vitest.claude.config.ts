import { defineConfig } from 'vitest/config';

// `npm run test:claude`: the package against the real Claude Code (test/claude/, docs/testing-with-claude-code.md).
const report = process.env.CLAUDE_PS_TEST_REPORT;

export default defineConfig({
  test: {
    include: ['test/claude/**/*.test.ts'],
    globalSetup: ['test/claude/setup.ts'],
    // Real sessions on a shared machine: generous limits; never tightened.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // One lab at a time: each file starts several real Claude Code processes.
    fileParallelism: false,
    reporters: report ? ['default', ['json', { outputFile: report }]] : ['default'],
  },
});
