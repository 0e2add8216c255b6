/**
 * The Linux prebuilds `npm run prebuild` makes (scripts/prebuild.mjs), read as the dynamic loader
 * reads them: each is an N-API addon for its machine; every glibc build asks for no symbol version
 * newer than GLIBC_2.28 (Node 20's floor) and for no C++ library; the musl builds need no glibc at
 * all. This host's glibc build loads in this Node and probes; its musl build does not load here.
 * Needs `npm run build` first (it runs the prebuild step).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requireAll } from './requirements.js';

const root = join(import.meta.dirname, '../..');

interface Target {
  dir: string;
  libc: 'glibc' | 'musl';
  zig: string;
  machine: number;
}
interface Elf {
  machine: number;
  needed: string[];
  requirements: Array<{ file: string; version: string }>;
  exports: string[];
}
const prebuild = (await import(pathToFileURL(join(root, 'scripts', 'prebuild.mjs')).href)) as {
  LINUX_TARGETS: Target[];
  GLIBC_FLOOR: string;
  prebuildFile(t: Target): string;
};
const elf = (await import(pathToFileURL(join(root, 'scripts', 'elf.mjs')).href)) as {
  readElf(bytes: Uint8Array): Elf;
  highestGlibc(e: Elf): { version: string; symbol?: string } | undefined;
  linuxAddonProblems(bytes: Uint8Array, options: { machine: number; libc: string; floor?: string }): string[];
};

// Where Zig cannot cross-build (another host, offline), the prebuild step made only this host's build:
// on a workstation the others skip; on CI (and in the release workflow, which downloads them) all four
// must be there, on every OS, since reading them needs nothing of the host.
const present = prebuild.LINUX_TARGETS.filter((t) => existsSync(join(root, 'prebuilds', prebuild.prebuildFile(t))));
const absent = prebuild.LINUX_TARGETS.filter((t) => !present.includes(t)).map((t) => `prebuilds/${prebuild.prebuildFile(t)}`);

requireAll('the Linux prebuild checks', absent.map((f) => `${f} is missing (npm run prebuild)`));
{
  describe.each(present.map((t) => [prebuild.prebuildFile(t), t] as const))('%s', (file, target) => {
    const bytes = readFileSync(join(root, 'prebuilds', file));

    it(`is an addon for machine ${target.machine} that loads on ${target.libc === 'glibc' ? `glibc ${prebuild.GLIBC_FLOOR}` : 'musl'}`, () => {
      expect(elf.linuxAddonProblems(bytes, { machine: target.machine, libc: target.libc, floor: prebuild.GLIBC_FLOOR })).toEqual([]);
    });

    it('exports only what Node looks up, and needs no C++ library', () => {
      const e = elf.readElf(bytes);
      expect(e.exports.sort()).toEqual(['napi_register_module_v1', 'node_api_module_get_api_version_v1']);
      expect(e.needed.filter((lib) => /c\+\+/.test(lib))).toEqual([]);
    });

    if (target.libc === 'glibc') {
      it('asks for glibc symbol versions no newer than the floor, and names only glibc libraries', () => {
        const e = elf.readElf(bytes);
        const top = elf.highestGlibc(e);
        expect(top).toBeDefined();
        const [major, minor] = top!.version.replace('GLIBC_', '').split('.').map(Number);
        expect(major! * 1000 + minor!).toBeLessThanOrEqual(2028);
        expect(e.requirements.every((r) => /^GLIBC_/.test(r.version))).toBe(true);
        expect(e.needed.every((lib) => /^lib(c|m|dl|pthread|rt)\.so\.\d+$/.test(lib))).toBe(true);
      });
    } else {
      it('needs nothing from glibc', () => {
        const e = elf.readElf(bytes);
        expect(e.requirements).toEqual([]);
        expect(e.needed.filter((lib) => /\.so\.\d/.test(lib) && !/^libc\.musl-/.test(lib))).toEqual([]);
      });
    }
  });

  describe.skipIf(process.platform !== 'linux' || !present.some((t) => t.dir === `linux-${process.arch}`))(`on this machine (linux-${process.arch}, glibc)`, () => {
    const load = (file: string, env: NodeJS.ProcessEnv = {}) =>
      spawnSync(
        process.execPath,
        ['-e', `const a = require(${JSON.stringify(join(root, 'prebuilds', file))}); const s = new Uint8Array(1), t = new Float64Array(1); a.probe(Int32Array.of(process.pid), s, t); console.log(s[0], t[0] > 0)`],
        { encoding: 'utf8', env: { ...process.env, ...env } },
      );

    it('the glibc build loads and probes this Node as alive with a start token', () => {
      const run = load(join(`linux-${process.arch}`, 'claude-ps.glibc.node'));
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('2 true'); // STATE_ALIVE (lib/backend/types.ts)
    });

    it('the glibc build finds every symbol it imports in this Node at load (LD_BIND_NOW), not only those a probe calls', () => {
      // The prebuilds bind lazily (scripts/prebuild.mjs): a symbol missing from Node would otherwise
      // pass dlopen and the loader's checks, then end the process at its first call, where the JS
      // backend can no longer take over.
      const run = load(join(`linux-${process.arch}`, 'claude-ps.glibc.node'), { LD_BIND_NOW: '1' });
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('2 true');
    });

    it('the musl build does not load on glibc (so trying it after the glibc build can never pick it here)', () => {
      const run = load(join(`linux-${process.arch}`, 'claude-ps.musl.node'));
      expect(run.status).not.toBe(0);
      expect(run.stderr).toMatch(/Error: .*(libc\.musl|invalid ELF header|cannot open shared object|no version information|undefined symbol)/);
    });
  });
}
