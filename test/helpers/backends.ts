/** Runs a suite once per backend: sets CLAUDE_PS_BACKEND and makes the facades select again. */
import { afterAll, beforeAll } from 'vitest';
import { resetBackend } from '../../lib/backend/index.js';

/**
 * js and native stand for Linux (records carry clock-tick tokens); ps stands for macOS without the addon
 * (records carry `ps -o lstart=` text). Write fixtures with recordedTokenFor (tokens.ts) so that each
 * backend sees the token form its platform's Claude Code records.
 */
export const BACKENDS = ['js', 'native', 'ps'] as const;
export type BackendName = (typeof BACKENDS)[number];

export function useBackend(name: string): () => void {
  const before = process.env.CLAUDE_PS_BACKEND;
  process.env.CLAUDE_PS_BACKEND = name;
  resetBackend();
  return () => {
    if (before === undefined) delete process.env.CLAUDE_PS_BACKEND;
    else process.env.CLAUDE_PS_BACKEND = before;
    resetBackend();
  };
}

/**
 * Inside a describe: the suite runs with backend `name` (selected before its other beforeAll hooks,
 * restored after its other afterAll hooks, as vitest runs after-hooks in reverse order).
 */
export function selectBackendForSuite(name: string): void {
  let restore: (() => void) | undefined;
  beforeAll(() => {
    restore = useBackend(name);
  });
  afterAll(() => restore?.());
}
