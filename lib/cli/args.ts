/**
 * The command line, split as Node's own `util.parseArgs` splits it (tokens.ts: long flags as
 * `--name value` or `--name=value`, short aliases such as `-h`, `--` to end flags) and checked here against the
 * commands' flag specs: repeatable list flags, non-negative integers, fixed choices, and negative
 * numbers as positionals (`probe -5`). Anything else is a UsageError, whose one-line message the CLI
 * prints before exiting 2.
 */
import { closest } from './suggest.js';
import { tokenize, type Token } from './tokens.js';

export type FlagType = 'boolean' | 'string' | 'list' | 'integer';

export interface FlagSpec {
  type: FlagType;
  /** One-letter alias, without the dash. */
  short?: string;
  /** Placeholder for help text, e.g. `DIR`. */
  value?: string;
  /** One line of help text. */
  help: string;
  /** For a string flag: the only values it takes (e.g. `auto`, `always`, `never`). */
  choices?: readonly string[];
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;
export type FlagValue = boolean | string | number | string[];

export interface ParsedArgs {
  flags: Record<string, FlagValue | undefined>;
  positionals: string[];
}

/** A mistake in how the command was called: exit 2 with this one-line message. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface ParseOptions {
  /** Why a flag this command does not take is not there, e.g. `{ 'config-dir': 'probe reads no registry' }`. */
  notTaken?: Readonly<Record<string, string>>;
}

// A negative number is a positional (e.g. `probe -5`), never a flag: no short alias is a digit.
const NEGATIVE_NUMBER = /^-[0-9]+$/;
const INTEGER = /^(0|[1-9][0-9]*)$/;

/** The user's own text in a message: cut short, and quoted and escaped unless plain, so it stays one line. */
function quoted(s: string): string {
  const cut = s.length > 80 ? s.slice(0, 79) + '…' : s;
  return JSON.stringify(cut);
}
const shown = (s: string) => (/^[^\p{Cc}\p{Cf}\p{Z}"\\]*$/u.test(s) && s.length <= 80 ? s : quoted(s));

function unknownOption(raw: string, name: string, specs: FlagSpecs, options: ParseOptions): UsageError {
  const why = Object.hasOwn(options.notTaken ?? {}, name) ? options.notTaken![name] : undefined;
  if (why !== undefined) return new UsageError(`--${name} does not apply: ${why}`);
  if (!raw.startsWith('--')) {
    return new UsageError(`unknown option ${shown(raw)}${raw.length !== 2 ? ' (long options take two dashes)' : ''}`);
  }
  const guess = closest(name, Object.keys(specs));
  return new UsageError(`unknown option ${shown(raw)}${guess ? ` (did you mean --${guess}?)` : ''}`);
}

function setFlag(flags: ParsedArgs['flags'], name: string, spec: FlagSpec, raw: string | undefined): void {
  switch (spec.type) {
    case 'boolean':
      if (raw !== undefined) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      return;
    case 'string':
      if (spec.choices && !spec.choices.includes(raw as string)) {
        throw new UsageError(`--${name} must be ${spec.choices.join(', ').replace(/, ([^,]*)$/, ' or $1')}, got ${quoted(raw as string)}`);
      }
      flags[name] = raw as string;
      return;
    case 'list': {
      const list = (flags[name] as string[] | undefined) ?? [];
      list.push(raw as string);
      flags[name] = list;
      return;
    }
    case 'integer': {
      if (!INTEGER.test(raw as string) || !Number.isSafeInteger(Number(raw))) {
        throw new UsageError(`--${name} needs a whole number, got ${quoted(raw as string)}`);
      }
      flags[name] = Number(raw);
      return;
    }
  }
}

/** The command line as util.parseArgs splits it for these flags (tokens.ts); never throws. */
export function tokensOf(argv: readonly string[], specs: FlagSpecs): Token[] {
  return tokenize(
    argv,
    Object.fromEntries(
      Object.entries(specs).map(([name, spec]) => [name, { type: spec.type === 'boolean' ? 'boolean' : 'string', ...(spec.short ? { short: spec.short } : {}) } as const]),
    ),
  );
}

export function parseArgs(argv: readonly string[], specs: FlagSpecs, options: ParseOptions = {}): ParsedArgs {
  // No word that could be a flag (a statusline's `claude-ps statusline`, a poller's `count`): all
  // positionals, as the tokenizer would say.
  if (argv.every((word) => !word.startsWith('-'))) return { flags: {}, positionals: [...argv] };
  // util.parseArgs' non-strict split (tokens.ts), which never throws; the checks are ours, because its
  // strict mode would call `-5` an unknown option and take `--output --all` as a value.
  const tokens = tokensOf(argv, specs);
  const flags: ParsedArgs['flags'] = {};
  const positionals: string[] = [];
  let lastShortGroup = -1;
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') continue;
    const raw = argv[token.index]!;
    if (!raw.startsWith('--')) {
      // `-12` is a number, split by parseArgs into the "flags" -1 and -2: one positional.
      if (NEGATIVE_NUMBER.test(raw)) {
        if (lastShortGroup !== token.index) positionals.push(raw);
        lastShortGroup = token.index;
        continue;
      }
      // A group (`-ao`) or a glued value (`-ofile`): not taken, so that no guess is made about it.
      if (raw.length !== 2) throw unknownOption(raw, token.name, specs, options);
    }
    if (!Object.hasOwn(specs, token.name)) throw unknownOption(token.rawName, token.name, specs, options);
    const spec = specs[token.name]!;
    const value = token.value;
    if (spec.type !== 'boolean' && !token.inlineValue) {
      // parseArgs takes the next word as the value whatever it is; a flag there means none was given.
      if (value === undefined || (value.startsWith('-') && value !== '-' && !NEGATIVE_NUMBER.test(value))) {
        throw new UsageError(`--${token.name} needs a value${spec.value ? ` (${spec.value})` : ''}`);
      }
    }
    if (spec.type !== 'boolean' && value === '') throw new UsageError(`--${token.name} needs a non-empty value`);
    setFlag(flags, token.name, spec, value);
  }
  return { flags, positionals };
}
