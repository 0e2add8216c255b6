/**
 * The text of lib/hosts/reader.sh: written into the bundle at build time (scripts/bundle.mjs), else
 * read beside this file (the TypeScript sources). The package ships reader.sh too, so what is sent
 * to a remote can be read, and run by hand: `ssh HOST sh -s < reader.sh`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

declare const __CLAUDE_PS_READER__: string | undefined;

let text: string | undefined;

export function readerText(): string {
  if (typeof __CLAUDE_PS_READER__ === 'string') return __CLAUDE_PS_READER__;
  return (text ??= readFileSync(join(import.meta.dirname, 'reader.sh'), 'utf8'));
}

/** A word for a POSIX shell: single-quoted, each `'` closed, escaped and reopened. */
export function shellWord(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * What the remote's `sh -s` reads: the config dirs to read (none: its default), then the reader.
 * Each dir once: the answer names each sessions folder once (lib/hosts/answer.ts refuses a repeat).
 */
export function readerInput(configDirs: readonly string[] | undefined): string {
  const args = [...new Set(configDirs ?? [])].map(shellWord).join(' ');
  return `set -- ${args}\n${readerText()}`;
}
