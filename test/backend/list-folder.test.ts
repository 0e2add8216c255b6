/**
 * The addon's one-call folder listing (lib/backend/list-folder.ts) behind the proven-complete listing:
 * the same names readdirSync gives, the same stamps statSync gives (the proof compares them), and the
 * same error codes for every folder that cannot be listed, never a hang on a FIFO in the folder's place.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeListFolder, type ListFolder } from '../../lib/backend/list-folder.js';
import { loadNativeAddon } from '../../lib/backend/load.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

describe.skipIf(process.platform === 'win32')('native listFolder', () => {
  const loaded = loadNativeAddon();
  let list: ListFolder;
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'cps-list-'));
    list = nativeListFolder(loaded.addon!)!;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is there with the addon', () => {
    expect(loaded.reason).toBeUndefined();
    expect(typeof list).toBe('function');
  });

  it('lists what readdirSync lists, past one getdents buffer, and stamps what statSync sees', () => {
    const dir = join(root, 'many');
    mkdirSync(dir);
    const names = ['1.json', '0123.json', '99.json.tmp', 'notes.md', '.hidden', 'caf\u00e9.json', 'cafe\u0301.json', '\u202e1.json', 'a b\tc'];
    for (let i = 0; i < 3000; i++) names.push(`${100000 + i}.json`);
    for (const name of names) writeFileSync(join(dir, name), '{}');
    mkdirSync(join(dir, 'sub'));
    names.push('sub');
    const got = list(dir);
    expect([...got.names].sort()).toEqual([...readdirSync(dir)].sort());
    expect(got.names.length).toBe(names.length);
    const st = statSync(dir, { bigint: true });
    for (const stamp of [got.before, got.after]) {
      expect(stamp).toEqual({ dev: st.dev, ino: st.ino, ctimeNs: st.ctimeNs, mtimeNs: st.mtimeNs, size: st.size });
    }
  });

  it('an empty folder is no names', () => {
    const dir = join(root, 'empty');
    mkdirSync(dir);
    expect(list(dir).names).toEqual([]);
  });

  it('fails with the codes readdirSync fails with, and a FIFO in the folder place does not block', () => {
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    const fifo = join(root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const dangling = join(root, 'dangling');
    symlinkSync(join(root, 'nothing'), dangling);
    const loop = join(root, 'loop');
    symlinkSync(loop, loop);
    const linked = join(root, 'linked');
    mkdirSync(join(root, 'target'));
    writeFileSync(join(root, 'target', '7.json'), '{}');
    symlinkSync(join(root, 'target'), linked);
    for (const path of [join(root, 'missing'), file, fifo, dangling, loop, join(file, 'below')]) {
      const expected = codeOf(() => readdirSync(path));
      expect(expected).toBeDefined();
      expect(codeOf(() => list(path))).toBe(expected);
    }
    // A link to a folder is followed, as readdirSync and statSync follow it.
    expect(list(linked).names).toEqual(['7.json']);
  });
});
