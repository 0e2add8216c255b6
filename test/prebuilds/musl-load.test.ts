/**
 * The linux-x64 musl prebuild, loaded by musl's own dynamic loader. No musl Node is at hand, so a small
 * host program built by Debian's musl-gcc (musl 1.2, the `musl-tools` package) stands in for one: it
 * exports a stub for every N-API and libuv function the addon imports (read from the addon by
 * scripts/elf.mjs) and dlopen()s it with RTLD_NOW, so every other symbol must bind to musl's libc at
 * once, as in Alpine's Node. The glibc build must fail the same load. Needs `npm run prebuild`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { requireAll } from './requirements.js';

const root = join(import.meta.dirname, '../..');
const MUSL = join(root, 'prebuilds', 'linux-x64', 'claude-ps.musl.node');
const GLIBC = join(root, 'prebuilds', 'linux-x64', 'claude-ps.glibc.node');

const elf = (await import(pathToFileURL(join(root, 'scripts', 'elf.mjs')).href)) as {
  readElf(bytes: Uint8Array): { symbols: Array<{ name: string; defined: boolean }> };
};

const notHere = process.platform === 'linux' && process.arch === 'x64' ? undefined : 'musl-gcc builds x64 hosts';
const missing = [
  spawnSync('musl-gcc', ['--version']).error ? 'musl-gcc (Debian: musl-tools)' : '',
  existsSync(MUSL) && existsSync(GLIBC) ? '' : 'prebuilds/linux-x64/claude-ps.{musl,glibc}.node (npm run prebuild)',
].filter(Boolean);

if (requireAll('the musl load check', missing, notHere)) {
  let dir = '';
  let host = '';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cps-musl-host-'));
    const imported = elf
      .readElf(readFileSync(MUSL))
      .symbols.filter((s) => !s.defined && /^(napi_|node_api_|uv_)/.test(s.name))
      .map((s) => s.name);
    expect(imported).toContain('napi_create_function');
    const source = [
      '#include <dlfcn.h>',
      '#include <stdio.h>',
      '#include <stdlib.h>',
      // Never called: the addon is only loaded, not registered.
      ...imported.map((name) => `void ${name}(void) { abort(); }`),
      'int main(int argc, char **argv) {',
      '  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);',
      '  if (!h) { printf("refused: %s\\n", dlerror()); return 1; }',
      '  printf("loaded, napi_register_module_v1 %s\\n", dlsym(h, "napi_register_module_v1") ? "found" : "missing");',
      '  return 0;',
      '}',
    ].join('\n');
    writeFileSync(join(dir, 'host.c'), source);
    host = join(dir, 'host');
    const cc = spawnSync('musl-gcc', ['-O1', '-rdynamic', join(dir, 'host.c'), '-o', host], { encoding: 'utf8' });
    expect(cc.stderr).toBe('');
    expect(cc.status).toBe(0);
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('musl’s loader binds every symbol of the musl build at dlopen; it exports napi_register_module_v1', () => {
    const run = spawnSync(host, [MUSL], { encoding: 'utf8' });
    expect(run.stdout).toBe('loaded, napi_register_module_v1 found\n');
    expect(run.status).toBe(0);
  });

  it('the glibc build is refused by the same loader', () => {
    const run = spawnSync(host, [GLIBC], { encoding: 'utf8' });
    expect(run.stdout).toMatch(/^refused: /);
    expect(run.status).toBe(1);
  });
}
