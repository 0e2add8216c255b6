/**
 * The parser on top of util.parseArgs (lib/cli/args.ts): the same answers as the hand-made parser it
 * replaced, for any mix of words, and what it adds (fixed choices, the reason a flag is not taken,
 * "did you mean"), with hostile words kept to a one-line message.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError, type FlagSpecs } from '../../lib/cli/args.js';
import { closest } from '../../lib/cli/suggest.js';
import { legacyParseArgs } from './legacy-args.js';

const specs: FlagSpecs = {
  all: { type: 'boolean', short: 'a', help: '' },
  'dry-run': { type: 'boolean', short: 'n', help: '' },
  'config-dir': { type: 'list', value: 'DIR', help: '' },
  output: { type: 'string', short: 'o', value: 'FILE', help: '' },
  interval: { type: 'integer', help: '' },
};

type Outcome = { ok: ReturnType<typeof parseArgs> } | { error: string };

function outcome(parse: () => ReturnType<typeof parseArgs>): Outcome {
  try {
    return { ok: parse() };
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return { error: (e as Error).message };
  }
}

const message = (argv: string[], options = {}) => {
  const o = outcome(() => parseArgs(argv, specs, options));
  if (!('error' in o)) throw new Error(`expected a UsageError for ${JSON.stringify(argv)}`);
  return o.error;
};

describe('parseArgs over util.parseArgs', () => {
  it('answers any mix of words as the hand-made parser did (a suggestion aside)', () => {
    const word = fc.constantFrom(
      '-a', '--all', '--all=x', '-n', '--dry-run', '-o', '--output', '--output=f', '--output=', '-of', 'f', '',
      '-5', '-12', '-12x', '-a5', '--', '-', '---x', '--config-dir', '--config-dir=/y', '/x', '--interval',
      '--interval=7', '12', '1.5', '-ao', '-z', '--nope', '--alll', '--constructor', '--toString', '-é',
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 7 }), (argv) => {
        const now = outcome(() => parseArgs(argv, specs));
        const before = outcome(() => legacyParseArgs(argv, specs));
        if ('error' in now && 'error' in before) {
          expect(now.error.replace(/ \(did you mean --[\w-]+\?\)$/, '')).toBe(before.error);
        } else {
          expect(now).toEqual(before);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps a negative number whole, as a positional or as a value', () => {
    expect(parseArgs(['-12', '-3', '7'], specs).positionals).toEqual(['-12', '-3', '7']);
    expect(parseArgs(['--config-dir', '-12', '-o', '-'], specs).flags).toEqual({ 'config-dir': ['-12'], output: '-' });
  });

  it('takes only the listed values of a flag with choices', () => {
    const color: FlagSpecs = { color: { type: 'string', choices: ['auto', 'always', 'never'], value: 'WHEN', help: '' } };
    expect(parseArgs(['--color=never'], color).flags).toEqual({ color: 'never' });
    expect(parseArgs(['--color', 'always'], color).flags).toEqual({ color: 'always' });
    const bad = outcome(() => parseArgs(['--color', 'Always'], color));
    expect(bad).toEqual({ error: '--color must be auto, always or never, got "Always"' });
    expect(outcome(() => parseArgs(['--color'], color))).toEqual({ error: '--color needs a value (WHEN)' });
  });

  it('says why a flag is not taken, rather than calling it unknown', () => {
    const options = { notTaken: { 'config-dir': 'probe reads no registry' } };
    const without = Object.fromEntries(Object.entries(specs).filter(([k]) => k !== 'config-dir'));
    expect(outcome(() => parseArgs(['--config-dir', '/x'], without, options))).toEqual({
      error: '--config-dir does not apply: probe reads no registry',
    });
    expect(outcome(() => parseArgs(['--config-dir=/x'], without, options))).toEqual({
      error: '--config-dir does not apply: probe reads no registry',
    });
  });

  it('suggests the one flag a typo most likely meant', () => {
    expect(message(['--alll'])).toBe('unknown option --alll (did you mean --all?)');
    expect(message(['--dryrun'])).toBe('unknown option --dryrun (did you mean --dry-run?)');
    expect(message(['--outptu'])).toBe('unknown option --outptu (did you mean --output?)');
    expect(message(['--conf', '/x'])).toBe('unknown option --conf (did you mean --config-dir?)');
    expect(message(['--intreval=5'])).toBe('unknown option --intreval (did you mean --interval?)');
    expect(message(['--verbose'])).toBe('unknown option --verbose');
  });

  it('keeps a hostile word to one short line', () => {
    for (const argv of [['--' + 'x'.repeat(100_000)], ['--a\nb'], ['-\u202e'], ['--x\u2028y=1'], ['--interval', '1\n2'], ['-ab\ncd']]) {
      const text = message(argv);
      expect(text, JSON.stringify(argv)).not.toMatch(/[\n\r]/);
      expect(text.length).toBeLessThan(200);
    }
  });
});

describe('closest', () => {
  const names = ['list', 'count', 'summary', 'has-interactive', 'prune', 'snapshot', 'watch', 'probe', 'doctor', 'demo'];

  it('finds a transposition, a missing or an extra letter, or a unique prefix', () => {
    expect(closest('lsit', names)).toBe('list');
    expect(closest('cuont', names)).toBe('count');
    expect(closest('sumary', names)).toBe('summary');
    expect(closest('snapshots', names)).toBe('snapshot');
    expect(closest('has', names)).toBe('has-interactive');
    expect(closest('LIST', names)).toBe('list');
  });

  it('offers nothing when nothing is close, or when two names are as close', () => {
    expect(closest('frobnicate', names)).toBeUndefined();
    expect(closest('x', names)).toBeUndefined();
    // Two letters are too few for a prefix; "deme" is one edit from demo and from dema alike.
    expect(closest('pr', names)).toBeUndefined();
    expect(closest('deme', ['demo', 'dema'])).toBeUndefined();
    expect(closest('pro', names)).toBe('probe');
    expect(closest('sta', ['status', 'start'])).toBeUndefined();
    expect(closest('a'.repeat(10_000), names)).toBeUndefined();
  });
});
