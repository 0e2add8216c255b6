/**
 * What this module system offers at run time, whether the code runs as the ESM bundle, the CommonJS
 * bundles or the TypeScript sources (tests): the file it runs from, and Node built-ins loaded on first
 * use instead of at start-up.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

declare const __filename: string | undefined;

// In the CommonJS bundles `import.meta` is empty and the module's own __filename serves. (A global
// __filename, as in `node -e`, must not win over import.meta in ESM, so import.meta is asked first.)
const metaUrl = (import.meta as { url?: string }).url;

/**
 * The file this code runs from: a bundle in dist/, or this source file; undefined inside an app's ES
 * module bundle that brought the CommonJS core in (no __filename there), where no addon of ours is
 * beside it anyway.
 */
export const hereFile: string | undefined = metaUrl ? fileURLToPath(metaUrl) : typeof __filename === 'string' ? __filename : undefined;

type GetBuiltin = (id: string) => unknown;

// process.getBuiltinModule (Node ≥ 20.16) loads a built-in from ESM and CommonJS alike; before it,
// a require() made here does.
const getBuiltin: GetBuiltin =
  (process as { getBuiltinModule?: GetBuiltin }).getBuiltinModule?.bind(process) ?? createRequire(hereFile ?? process.cwd());

/**
 * A Node built-in, loaded on first call. `node:child_process` alone costs ~4 ms to load and
 * `node:fs/promises` ~2.5 ms (it pulls in readline and streams): a statusline starts us on every
 * render and needs neither.
 */
export function lazyBuiltin<T>(id: `node:${string}`): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= getBuiltin(id) as T);
}
