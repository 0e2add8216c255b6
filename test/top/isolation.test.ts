/**
 * The live view's code loads only for `top` (docs/top.md): the library's import, the CLI's start-up,
 * the statusline and the notifier (which can serve a statusline) never reach lib/cli/top/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const lib = join(ROOT, 'lib');

/** Relative imports of a file (paths under lib/), static ones only unless `dynamic`; `import type` loads nothing. */
function importsOf(file: string, dynamic: boolean): string[] {
  const text = readFileSync(join(lib, file), 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s*'(\.{1,2}\/[^']+)'/gm)) if (!m[1]) found.push(m[2]!);
  if (dynamic) for (const m of text.matchAll(/import\s*\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)) found.push(m[1]!);
  return found.map((s) => relative(lib, resolve(dirname(join(lib, file)), s)).replace(/\.js$/, '.ts'));
}

function reachable(start: string, dynamic: boolean): Set<string> {
  const seen = new Set<string>();
  const todo = [start];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    todo.push(...importsOf(file, dynamic));
  }
  return seen;
}

const inTop = (files: Set<string>) => [...files].filter((f) => f.startsWith('cli/top/'));

describe('what loads lib/cli/top', () => {
  it('the walk sees the view from the top command, so it would see it elsewhere too', () => {
    expect(inTop(reachable('cli/commands/top.ts', true))).toEqual(expect.arrayContaining(['cli/top/app.ts', 'cli/top/render.ts']));
    expect(inTop(reachable('cli/commands/top.ts', false))).toEqual([]);
  });

  it('the library import reaches nothing of the CLI', () => {
    expect([...reachable('index.ts', true)].filter((f) => f.startsWith('cli/'))).toEqual([]);
  });

  it('the CLI start-up, the statusline and notify never reach it', () => {
    expect(inTop(reachable('cli/bin/all.ts', false))).toEqual([]);
    expect(inTop(reachable('cli/bin/count.ts', true))).toEqual([]);
    expect(inTop(reachable('cli/commands/statusline.ts', true))).toEqual([]);
    expect(inTop(reachable('cli/commands/notify.ts', true))).toEqual([]);
  });

  it.skipIf(!existsSync(join(ROOT, 'dist/index.js')))('the built library holds none of its code', () => {
    for (const file of ['dist/index.js', 'dist/index.cjs', 'dist/extras.cjs']) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect(text).not.toContain('CLAUDE_PS_TOP_FAULT');
      expect(text).not.toContain('?1049h');
    }
  });
});
