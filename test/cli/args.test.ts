import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError, type FlagSpecs } from '../../lib/cli/args.js';

const specs: FlagSpecs = {
  all: { type: 'boolean', short: 'a', help: '' },
  'config-dir': { type: 'list', value: 'DIR', help: '' },
  output: { type: 'string', short: 'o', value: 'FILE', help: '' },
  interval: { type: 'integer', help: '' },
};

const usage = (argv: string[]) => {
  try {
    parseArgs(argv, specs);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error('expected a UsageError');
};

describe('parseArgs', () => {
  it('reads booleans, short aliases, values in both spellings and repeated lists', () => {
    const { flags, positionals } = parseArgs(
      ['-a', '--config-dir', '/x', '--config-dir=/y', '-o', 'out.json', '--interval=250', 'rest'],
      specs,
    );
    expect(flags).toEqual({ all: true, 'config-dir': ['/x', '/y'], output: 'out.json', interval: 250 });
    expect(positionals).toEqual(['rest']);
  });

  it('keeps negative numbers and everything after -- as positionals', () => {
    expect(parseArgs(['-5', '12', '--', '--all', '-a'], specs)).toEqual({
      flags: {},
      positionals: ['-5', '12', '--all', '-a'],
    });
  });

  it('accepts a negative number as a value', () => {
    expect(parseArgs(['--output', '-1'], specs).flags.output).toBe('-1');
  });

  it('turns every mistake into a one-line UsageError', () => {
    expect(usage(['--nope'])).toBe('unknown option --nope');
    expect(usage(['-z'])).toBe('unknown option -z');
    expect(usage(['-ao'])).toMatch(/long options take two dashes/);
    expect(usage(['--all=yes'])).toBe('--all takes no value');
    expect(usage(['--output'])).toBe('--output needs a value (FILE)');
    expect(usage(['--output', '--all'])).toBe('--output needs a value (FILE)');
    expect(usage(['--output='])).toBe('--output needs a non-empty value');
    expect(usage(['--interval', '1.5'])).toMatch(/--interval needs a whole number/);
    expect(usage(['--interval', '99999999999999999999'])).toMatch(/whole number/);
    for (const argv of [['--nope'], ['--output'], ['--interval', 'x']]) expect(usage(argv)).not.toContain('\n');
  });

  it('does not treat inherited object keys as flags', () => {
    expect(usage(['--constructor'])).toBe('unknown option --constructor');
    expect(usage(['--toString'])).toBe('unknown option --toString');
  });
});
