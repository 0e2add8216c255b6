/** Which backend serves, why, and how CLAUDE_PS_BACKEND forces one. */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backend, resetBackend } from '../../lib/backend/index.js';

afterEach(() => {
  delete process.env.CLAUDE_PS_BACKEND;
  resetBackend();
});

describe('backend()', () => {
  it('serves with the native addon by default where it loads, with no reason given', () => {
    expect(backend()).toEqual({ name: 'native' });
  });

  it.each([
    ['js', 'js'],
    ['ps', 'ps'],
    ['native', 'native'],
  ])('CLAUDE_PS_BACKEND=%s selects %s', (forced, name) => {
    process.env.CLAUDE_PS_BACKEND = forced;
    resetBackend();
    const info = backend();
    expect(info.name).toBe(name);
    if (name !== 'native') expect(info.reason).toContain(`CLAUDE_PS_BACKEND=${forced}`);
  });

  it('rejects an unknown CLAUDE_PS_BACKEND with a clear message', () => {
    process.env.CLAUDE_PS_BACKEND = 'fast';
    resetBackend();
    expect(() => backend()).toThrow(/CLAUDE_PS_BACKEND must be one of native, js, ps/);
  });

  it('returns a copy that callers cannot use to change the selection', () => {
    const info = backend();
    (info as { name: string }).name = 'js';
    expect(backend().name).toBe('native');
  });
});

describe('without a loadable addon', () => {
  // The bundled library (the ES module entry, the core it runs, the extras) copied where no
  // binding.gyp, build or prebuild can be found.
  function runCopy(env: Record<string, string>): ReturnType<typeof spawnSync> {
    const dir = mkdtempSync(join(tmpdir(), 'cps-noaddon-'));
    try {
      mkdirSync(join(dir, 'dist'));
      for (const file of ['index.js', 'index.cjs', 'extras.cjs']) copyFileSync(join(import.meta.dirname, '../../dist', file), join(dir, 'dist', file));
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
      const script =
        "const m = await import('./dist/index.js'); console.log(JSON.stringify({ backend: m.backend(), self: m.probe([process.pid])[0].state }));";
      return spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('falls back to the JS backend and says why', () => {
    const out = runCopy({ CLAUDE_PS_BACKEND: '' });
    expect(out.status).toBe(0);
    const answer = JSON.parse(String(out.stdout));
    expect(answer.backend.name).toBe('js');
    expect(answer.backend.reason).toMatch(/binding\.gyp|addon/);
    expect(answer.self).toBe('alive');
  });

  it('fails loudly when CLAUDE_PS_BACKEND=native', () => {
    const out = runCopy({ CLAUDE_PS_BACKEND: 'native' });
    expect(out.status).not.toBe(0);
    expect(String(out.stderr)).toMatch(/CLAUDE_PS_BACKEND=native, but the addon cannot load/);
  });
});
