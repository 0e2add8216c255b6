/** A folder's files as `name size mtime` lines: equal lists mean nothing in it was written. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function fileTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => {
      const s = statSync(join(dir, name));
      return `${name} ${s.size} ${s.mtimeMs}`;
    })
    .sort();
}
