/**
 * lib/cli/tokens.ts against the tokenizer it stands in for: Node's own util.parseArgs with
 * `{ strict: false, allowPositionals: true, tokens: true }`, token for token, on random command
 * lines built from flag-like words (long and short, glued values, groups with a value-taking flag
 * in the middle, `--`, `-`, negative numbers, `=` in odd places, non-ASCII letters).
 */
import fc from 'fast-check';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tokenize, type TokenOptionSpec } from '../../lib/cli/tokens.js';

const options: Record<string, TokenOptionSpec> = {
  all: { type: 'boolean', short: 'a' },
  'dry-run': { type: 'boolean', short: 'n' },
  'config-dir': { type: 'string' },
  output: { type: 'string', short: 'o' },
  interval: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

function nodeTokens(args: string[]) {
  return parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true }).tokens;
}

const piece = fc.constantFrom('a', 'n', 'o', 'h', 'x', '5', '-', '=', 'all', 'output', 'config-dir', 'dry-run', 'é', '\u{1F600}', '');
const word = fc.oneof(
  fc.array(piece, { maxLength: 4 }).map((parts) => parts.join('')),
  fc.array(piece, { maxLength: 4 }).map((parts) => `-${parts.join('')}`),
  fc.array(piece, { maxLength: 4 }).map((parts) => `--${parts.join('')}`),
  fc.constantFrom('--', '-', '---', '--=', '--=x', '--a=', '-o=x', '-ao', '-oa', '-nao', '-12', '-1a', 'DIR'),
  fc.string({ maxLength: 6 }),
);

describe('tokenize', () => {
  it('gives util.parseArgs tokens for any command line', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), (args) => {
        expect(tokenize(args, options)).toEqual(nodeTokens(args));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees on the forms args.ts cares about', () => {
    const cases = [
      ['count', '--config-dir', '/tmp/x', '--json'],
      ['--config-dir=/a=b', '-o', '--all'],
      ['-ao', 'file', '-nao', '-oFILE', '-abfFILE'],
      ['probe', '-5', '-12', '--', '--all', '-o'],
      ['--output'],
      ['-o'],
      ['---', '--=', '--=x', '-'],
    ];
    for (const args of cases) expect(tokenize(args, options)).toEqual(nodeTokens(args));
  });

  it('takes no option spec from the prototype', () => {
    const args = ['--constructor', 'x', '--toString', '-c'];
    expect(tokenize(args, options)).toEqual(nodeTokens(args));
  });
});
