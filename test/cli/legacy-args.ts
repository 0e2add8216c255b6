/**
 * The hand-made parser that lib/cli/args.ts replaced (as of commit 353a49a), kept verbatim as the
 * reference that test/cli/parse-args.test.ts compares the util.parseArgs version against.
 */
import { UsageError, type FlagSpec, type FlagSpecs, type ParsedArgs } from '../../lib/cli/args.js';

// A negative number is a positional (e.g. `probe -5`), never a flag: no short alias is a digit.
const NEGATIVE_NUMBER = /^-[0-9]+$/;
const INTEGER = /^(0|[1-9][0-9]*)$/;

function setFlag(flags: ParsedArgs['flags'], name: string, spec: FlagSpec, raw: string | undefined): void {
  switch (spec.type) {
    case 'boolean':
      if (raw !== undefined) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      return;
    case 'string':
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
        throw new UsageError(`--${name} needs a whole number, got ${JSON.stringify(raw)}`);
      }
      flags[name] = Number(raw);
      return;
    }
  }
}

export function legacyParseArgs(argv: readonly string[], specs: FlagSpecs): ParsedArgs {
  const flags: ParsedArgs['flags'] = {};
  const positionals: string[] = [];
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(specs)) if (spec.short) byShort.set(spec.short, name);

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-') || NEGATIVE_NUMBER.test(arg)) {
      positionals.push(arg);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
      if (!Object.hasOwn(specs, name)) throw new UsageError(`unknown option --${name}`);
    } else {
      if (arg.length !== 2) throw new UsageError(`unknown option ${arg} (long options take two dashes)`);
      const long = byShort.get(arg[1]!);
      if (long === undefined) throw new UsageError(`unknown option ${arg}`);
      name = long;
    }
    const spec = specs[name]!;
    if (spec.type !== 'boolean' && inline === undefined) {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-' && !NEGATIVE_NUMBER.test(next))) {
        throw new UsageError(`--${name} needs a value${spec.value ? ` (${spec.value})` : ''}`);
      }
      inline = next;
      i++;
    }
    if (spec.type !== 'boolean' && inline === '') throw new UsageError(`--${name} needs a non-empty value`);
    setFlag(flags, name, spec, inline);
  }
  return { flags, positionals };
}
