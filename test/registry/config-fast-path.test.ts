/**
 * resolveSessionsDirs' fast path (lib/registry/config.ts, isPlainAbsolute): a POSIX absolute config
 * dir in path.resolve's form gets `<dir>/sessions` without node:path. It must give exactly what
 * resolve(join(dir, 'sessions')) gives, and leave every other path (relative, `.`/`..` segments, double
 * or trailing slashes, NUL) to the general path, which normalizes or refuses it as before.
 */
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPlainAbsolute, resolveSessionsDirs } from '../../lib/registry/config.js';

const SEGMENTS = ['a', 'claude', '.claude', '..x', 'x..', '.', '..', '', 'sp ace', 'ü', 'sessions', '...'];

/** xorshift32, so a failure names its round. */
function generator(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

describe.skipIf(process.platform === 'win32')('the sessions folder of a plain absolute config dir', () => {
  it('isPlainAbsolute is true exactly where path.resolve leaves the path as it is', () => {
    const random = generator(0xc0ffee);
    let plain = 0;
    for (let round = 0; round < 3000; round++) {
      const parts = Array.from({ length: 1 + Math.floor(random() * 5) }, () => SEGMENTS[Math.floor(random() * SEGMENTS.length)]!);
      let path = (random() < 0.85 ? '/' : '') + parts.join('/');
      if (random() < 0.1) path += '/';
      const unchanged = path.startsWith('/') && posix.resolve(path) === path;
      expect(isPlainAbsolute(path), `round ${round}: ${JSON.stringify(path)}`).toBe(unchanged && path !== '/');
      if (isPlainAbsolute(path)) {
        plain++;
        expect(resolveSessionsDirs(path)).toEqual([posix.resolve(posix.join(path, 'sessions'))]);
      }
    }
    // Both kinds were drawn.
    expect(plain).toBeGreaterThan(300);
    expect(plain).toBeLessThan(2700);
  });

  it('other paths still go the general way: normalized, or refused', () => {
    expect(resolveSessionsDirs('/tmp//x/./y/../z/')).toEqual(['/tmp/x/z/sessions']);
    expect(resolveSessionsDirs('/')).toEqual(['/sessions']);
    expect(() => resolveSessionsDirs('/tmp/a\0b')).toThrow(TypeError);
    expect(resolveSessionsDirs('rel/dir')).toEqual([posix.resolve('rel/dir/sessions')]);
  });
});
