import { defineConfig } from 'vitest/config';

// `npm run test:claude`: the suites that drive real Claude Code through ../shared/claude-lab (slow, offline).
export default defineConfig({
  test: {
    include: ['test/claude/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
