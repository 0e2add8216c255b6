/**
 * An explicit CLAUDE_PS_BACKEND is checked before any command reads anything: a request that cannot be
 * met fails whatever the registry holds. Otherwise an empty registry (no file to probe, so no backend
 * chosen) would answer `0` under `CLAUDE_PS_BACKEND=bogus`, and the same command would fail only once
 * Claude Code has run.
 */
import { backend } from '../backend/index.js';
import { UsageError } from './args.js';

const NAMES = ['native', 'js', 'ps'];

/** A UsageError for a name that is none of ours; the backend's own error when `native` cannot load. */
export function checkBackendRequest(env: NodeJS.ProcessEnv): void {
  const requested = env.CLAUDE_PS_BACKEND?.trim() ?? '';
  if (requested === '') return;
  if (!NAMES.includes(requested)) {
    const shown = JSON.stringify(requested.length > 40 ? requested.slice(0, 39) + '…' : requested);
    throw new UsageError(`CLAUDE_PS_BACKEND must be one of native, js, ps (got ${shown})`);
  }
  backend(); // throws when `native` is asked for and the addon cannot load
}
