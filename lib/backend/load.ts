/**
 * The leaf loader: finds and loads the compiled addon, or says why it could not. Nothing but the
 * backend facade imports this file.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { hereFile } from '../runtime.js';
import type { NativeReader } from './files.js';

export interface NativeAddon extends NativeReader {
  probe(pids: Int32Array, states: Uint8Array, tokens: Float64Array): void;
  readonly clockTicks: number;
}

export type AddonLoad = { addon: NativeAddon; reason?: undefined } | { addon?: undefined; reason: string };

/** The package root: the nearest folder above this file that holds binding.gyp. */
function packageRoot(): string | undefined {
  let dir = dirname(hereFile);
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'binding.gyp'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

function checked(addon: Partial<NativeAddon>): AddonLoad {
  // An addon from an older build lacks part of the API: it is not used at all, so the probe and
  // the reader always come from the same backend.
  if (typeof addon.probe !== 'function' || typeof addon.readFiles !== 'function') {
    return { reason: 'the addon is out of date (rebuild it: npm run build:native)' };
  }
  return { addon: addon as NativeAddon };
}

function firstLine(err: unknown): string {
  return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
}

export function loadNativeAddon(): AddonLoad {
  const root = packageRoot();
  if (root === undefined) return { reason: 'package root (binding.gyp) not found' };
  const require = createRequire(join(root, 'package.json'));
  // The two usual places first, by path: node-gyp-build's search costs ~5 ms of start-up, which a
  // statusline pays per render. It still decides everything else (tags such as musl, Debug builds).
  for (const file of [
    join(root, 'build', 'Release', 'claude_ps.node'),
    join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'claude-ps.node'),
    // macOS ships one universal binary (prebuildify --arch x64+arm64).
    ...(process.platform === 'darwin' ? [join(root, 'prebuilds', 'darwin-x64+arm64', 'claude-ps.node')] : []),
  ]) {
    if (!existsSync(file)) continue;
    try {
      return checked(require(file) as Partial<NativeAddon>);
    } catch {
      // A file that does not load here (another libc, a broken build): node-gyp-build decides.
    }
  }
  try {
    const nodeGypBuild = require('node-gyp-build') as (dir: string) => unknown;
    return checked(nodeGypBuild(root) as Partial<NativeAddon>);
  } catch (err) {
    return { reason: `no native addon for ${process.platform}-${process.arch}: ${firstLine(err)}` };
  }
}
