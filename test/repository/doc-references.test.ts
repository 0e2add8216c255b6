/**
 * Every reference to a design note resolves inside the repository: `docs/<file>.md` in code, tests,
 * scripts and the README, relative links (and their #anchors) between the notes, and the comments that
 * ship to users in dist/types. Notes outside the repository are never cited. Fails listing what is
 * missing. Needs `npm run build` first (npm test does it) for dist/types.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const docs = join(root, 'docs');


function walk(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => f.split('\\').join('/'))
    .filter((f) => !f.split('/').includes('node_modules') && keep(f))
    .map((f) => join(dir, f));
}

const sourceFiles = [
  ...walk(join(root, 'lib'), (f) => f.endsWith('.ts')),
  ...walk(join(root, 'test'), (f) => /\.(ts|mjs|cjs|cc|h)$/.test(f)),
  ...walk(join(root, 'bench'), (f) => /\.(mjs|c)$/.test(f) && !f.startsWith('build/')),
  ...walk(join(root, 'scripts'), (f) => /\.(mjs|cjs)$/.test(f)),
  ...walk(join(root, 'native'), (f) => /\.(cc|h)$/.test(f)),
  join(root, 'README.md'),
];
const shippedTypes = walk(join(root, 'dist/types'), (f) => /\.d\.c?ts$/.test(f));
const notes = walk(docs, (f) => f.endsWith('.md'));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(note: string): Set<string> {
  return new Set([...readFileSync(note, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!.trim())));
}

/** [file, target note, anchor?] for every reference in the given files. */
function references(): { from: string; note: string; anchor?: string }[] {
  const found: { from: string; note: string; anchor?: string }[] = [];
  for (const file of [...sourceFiles, ...shippedTypes]) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bdocs\/([\w./-]+?\.md)(?:#([\w-]+))?/g)) {
      found.push({ from: file, note: m[1]!, ...(m[2] ? { anchor: m[2] } : {}) });
    }
  }
  for (const file of notes) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\]\((?!https?:)([\w./-]+?\.md)(?:#([\w-]+))?\)/g)) {
      found.push({ from: file, note: m[1]!, ...(m[2] ? { anchor: m[2] } : {}) });
    }
  }
  return found;
}

const all = references();

describe('references to the design notes', () => {
  it('are found where they should be (the scan itself works, and dist/types is built)', () => {
    expect(shippedTypes.length).toBeGreaterThan(0);
    expect(all.some((r) => r.from.endsWith('lib/registry/verdict.ts') && r.note === 'liveness.md')).toBe(true);
    expect(all.some((r) => r.from.includes('dist/types') && r.note === 'liveness.md')).toBe(true);
  });

  it('name a note that exists', () => {
    const unresolved = all.filter((r) => !existsSync(join(docs, r.note)));
    expect(unresolved.map((r) => `${r.from.slice(root.length + 1)} → docs/${r.note}`)).toEqual([]);
  });

  it('link to headings that exist', () => {
    const broken = all.filter((r) => r.anchor !== undefined && existsSync(join(docs, r.note)) && !anchorsOf(join(docs, r.note)).has(r.anchor));
    expect(broken.map((r) => `${r.from.slice(root.length + 1)} → docs/${r.note}#${r.anchor}`)).toEqual([]);
  });

  it('every note is listed in docs/README.md, and the index lists only notes of this folder', () => {
    const index = readFileSync(join(docs, 'README.md'), 'utf8');
    const listed = [...index.matchAll(/\]\(([\w.-]+\.md)\)/g)].map((m) => m[1]!);
    const present = notes.map((n) => n.slice(docs.length + 1)).filter((n) => n !== 'README.md');
    expect(present.filter((n) => !listed.includes(n))).toEqual([]);
    expect(listed.filter((n) => !present.includes(n))).toEqual([]);
  });

  it('never cite notes outside the repository', () => {
    const outside = ['CONTRACT', 'REGISTRY', 'OBSERVATIONS'].map((n) => `${n}.md`);
    const cited = [...sourceFiles, ...shippedTypes, ...notes]
      .filter((f) => f !== import.meta.filename)
      .flatMap((f) => outside.filter((n) => readFileSync(f, 'utf8').includes(n)).map((n) => `${f.slice(root.length + 1)} cites ${n}`));
    expect(cited).toEqual([]);
  });
});
