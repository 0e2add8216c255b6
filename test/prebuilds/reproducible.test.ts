/**
 * The prebuilds are reproducible: the linux-arm64 glibc build (the one the qemu suite runs), made
 * again from a copy of native/ and binding.gyp at another path, in another work folder, has the same
 * bytes as the one in prebuilds/ (docs/prebuilds.md). Needs `npm run prebuild` and Zig in the cache
 * (both there after `npm run build` on linux-x64); Zig's cache keeps libc++, so this compiles only
 * the addon's own five files.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { requireAll } from './requirements.js';

const root = join(import.meta.dirname, '../..');

interface Target {
  dir: string;
  libc: string;
  zig: string;
  machine: number;
}
const prebuild = (await import(pathToFileURL(join(root, 'scripts', 'prebuild.mjs')).href)) as {
  LINUX_TARGETS: Target[];
  prebuildFile(t: Target): string;
  targetId(t: Target): string;
  linuxToolchain(sourceRoot?: string): object;
  buildLinuxTarget(options: object): Promise<string | undefined>;
};
const target = prebuild.LINUX_TARGETS.find((t) => prebuild.targetId(t) === 'linux-arm64.glibc')!;
const shipped = join(root, 'prebuilds', prebuild.prebuildFile(target));

const notHere = process.platform === 'linux' && process.arch === 'x64' ? undefined : 'Zig cross-builds on linux-x64';
const missing = existsSync(shipped) ? [] : [`${shipped} (npm run prebuild)`];
let toolchain: object | undefined;
if (!notHere && missing.length === 0) {
  const copy = mkdtempSync(join(tmpdir(), 'cps-repro-src-'));
  cpSync(join(root, 'native'), join(copy, 'native'), { recursive: true });
  cpSync(join(root, 'binding.gyp'), join(copy, 'binding.gyp'));
  try {
    toolchain = prebuild.linuxToolchain(copy);
  } catch (err) {
    missing.push((err as Error).message);
  }
  afterAll(() => rmSync(copy, { recursive: true, force: true }));
}

if (requireAll('the reproducibility check', missing, notHere)) {
  it(
    `${prebuild.prebuildFile(target)} built again from another path has the same bytes`,
    async () => {
      const work = mkdtempSync(join(tmpdir(), 'cps-repro-out-'));
      try {
        const workDir = join(work, 'obj');
        mkdirSync(workDir);
        const outFile = join(work, 'again.node');
        expect(await prebuild.buildLinuxTarget({ ...toolchain, target, workDir, outFile })).toBeUndefined();
        expect(readFileSync(outFile).equals(readFileSync(shipped))).toBe(true);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    900_000,
  );
}
