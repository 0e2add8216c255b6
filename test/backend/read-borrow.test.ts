/**
 * The JS batch reader's `borrow` mode (lib/backend/files.ts): the live-only scan decodes a batch at
 * once and borrows the reader's scratch buffer instead of a copy. A borrowed batch must read exactly
 * what a copied one reads, and a copied batch must keep its bytes when later reads reuse the scratch.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsReadFiles, META_LENGTH, META_OFFSET, META_STRIDE, type FileBatch } from '../../lib/backend/files.js';
import { READ_MISSING, READ_OK, READ_SYMLINK } from '../../lib/backend/types.js';

const CAP = 256 * 1024;

function texts(batch: FileBatch, count: number): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  for (let i = 0; i < count; i++) {
    const at = batch.meta[i * META_STRIDE + META_OFFSET]!;
    out.push(batch.status[i] === READ_OK ? batch.bytes.toString('utf8', at, at + batch.meta[i * META_STRIDE + META_LENGTH]!) : undefined);
  }
  return out;
}

describe('jsReadFiles borrow', () => {
  let dir: string;
  const names = ['101.json', '102.json', 'gone.json', 'link.json', '103.json'];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cps-borrow-'));
    writeFileSync(join(dir, '101.json'), '{"pid":101,"sessionId":"a"}');
    writeFileSync(join(dir, '102.json'), 'x'.repeat(70_000)); // past the initial 64 KiB scratch: it grows
    writeFileSync(join(dir, '103.json'), '{"pid":103,"sessionId":"ü"}');
    symlinkSync(join(dir, '101.json'), join(dir, 'link.json'));
    for (let i = 0; i < 40; i++) writeFileSync(join(dir, `other-${i}.json`), `${i}`.repeat(2000));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the same statuses, stamps and bytes as a copied batch', () => {
    const copied = jsReadFiles(dir, names, CAP);
    const borrowed = jsReadFiles(dir, names, CAP, true);
    expect([...borrowed.status]).toEqual([READ_OK, READ_OK, READ_MISSING, READ_SYMLINK, READ_OK]);
    expect([...borrowed.status]).toEqual([...copied.status]);
    expect([...borrowed.meta]).toEqual([...copied.meta]);
    expect(texts(borrowed, names.length)).toEqual(texts(copied, names.length));
    expect(texts(borrowed, 1)[0]).toBe('{"pid":101,"sessionId":"a"}');
  });

  it('a copied batch keeps its bytes when later reads, borrowed or not, reuse the scratch buffer', () => {
    const copied = jsReadFiles(dir, names, CAP);
    const before = texts(copied, names.length);
    const others = Array.from({ length: 40 }, (_, i) => `other-${i}.json`);
    jsReadFiles(dir, others, CAP, true);
    jsReadFiles(dir, others, CAP);
    expect(texts(copied, names.length)).toEqual(before);
  });
});
