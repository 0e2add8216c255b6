/** Runs a suite once per backend: sets CC_SESSIONS_BACKEND and makes the facades select again. */
import { resetBackend } from '../../lib/backend/index.js';

export const BACKENDS = ['js', 'native'] as const;

export function useBackend(name: string): () => void {
  const before = process.env.CC_SESSIONS_BACKEND;
  process.env.CC_SESSIONS_BACKEND = name;
  resetBackend();
  return () => {
    if (before === undefined) delete process.env.CC_SESSIONS_BACKEND;
    else process.env.CC_SESSIONS_BACKEND = before;
    resetBackend();
  };
}
