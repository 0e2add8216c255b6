/**
 * Loads a Node built-in on first use instead of at start-up. `node:child_process` alone costs about
 * 4 ms to load, which a statusline pays on every render although only the `ps` backend needs it.
 */
import { createRequire } from 'node:module';

type GetBuiltin = (id: string) => unknown;

const getBuiltin: GetBuiltin =
  (process as { getBuiltinModule?: GetBuiltin }).getBuiltinModule?.bind(process) ??
  // Node before 20.16: any absolute path serves as the base for a built-in.
  createRequire(process.execPath);

export function lazyBuiltin<T>(id: `node:${string}`): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= getBuiltin(id) as T);
}
