import { configDefaults, defineConfig } from 'vitest/config';

// CI asks for a JSON report as well, so .ci/run can print one plain closing line.
const report = process.env.CLAUDE_PS_TEST_REPORT;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real-Claude-Code suite has its own run: npm run test:claude (vitest.claude.config.ts).
    exclude: [...configDefaults.exclude, 'test/claude/**'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Tests spawn and reap real processes; forks keep each file's children in its own process.
    pool: 'forks',
    reporters: report ? ['default', ['json', { outputFile: report }]] : ['default'],
  },
});
