/**
 * A command line split into tokens exactly as Node's `util.parseArgs({ strict: false, tokens: true,
 * allowPositionals: true })` splits it (args.ts checks them). Loading util.parseArgs costs ~1 ms of
 * every run with a flag (`count --config-dir DIR`, a poller's call), about as much as the whole scan
 * of a small registry; this is its tokenizer alone, ~60 lines. test/cli/tokens.test.ts compares the
 * two on random command lines.
 */

export interface TokenOptionSpec {
  type: 'boolean' | 'string';
  short?: string;
}

export type Token =
  | { kind: 'option'; name: string; rawName: string; index: number; value: string | undefined; inlineValue: boolean | undefined }
  | { kind: 'positional'; index: number; value: string }
  | { kind: 'option-terminator'; index: number };

export function tokenize(args: readonly string[], options: Readonly<Record<string, TokenOptionSpec>>): Token[] {
  const longFor = (short: string): string => {
    for (const name of Object.keys(options)) if (options[name]!.short === short) return name;
    return short;
  };
  const takesValue = (name: string) => Object.hasOwn(options, name) && options[name]!.type === 'string';
  const tokens: Token[] = [];
  const remaining = [...args];
  let index = -1;
  let groupCount = 0;
  while (remaining.length > 0) {
    const arg = remaining.shift()!;
    const next = remaining[0];
    if (groupCount > 0) groupCount--;
    else index++;
    if (arg === '--') {
      tokens.push({ kind: 'option-terminator', index });
      for (const value of remaining) tokens.push({ kind: 'positional', index: ++index, value });
      break;
    }
    const shortForm = arg.length >= 2 && arg[0] === '-' && arg[1] !== '-';
    if (shortForm && arg.length === 2) {
      // `-f`, and its value from the next word, whatever that word is
      const name = longFor(arg[1]!);
      const value = takesValue(name) && next !== undefined ? remaining.shift() : undefined;
      tokens.push({ kind: 'option', name, rawName: arg, index, value, inlineValue: value === undefined ? undefined : false });
      if (value !== undefined) index++;
      continue;
    }
    if (shortForm && !takesValue(longFor(arg[1]!))) {
      // `-abc` → `-a -b -c`; a value-taking flag inside takes the rest (`-abfFILE` → `-a -b -fFILE`)
      const expanded: string[] = [];
      for (let i = 1; i < arg.length; i++) {
        if (!takesValue(longFor(arg[i]!)) || i === arg.length - 1) expanded.push(`-${arg[i]}`);
        else {
          expanded.push(`-${arg.slice(i)}`);
          break;
        }
      }
      remaining.unshift(...expanded);
      groupCount = expanded.length;
      continue;
    }
    if (shortForm) {
      // `-fFILE`
      tokens.push({ kind: 'option', name: longFor(arg[1]!), rawName: `-${arg[1]}`, index, value: arg.slice(2), inlineValue: true });
      continue;
    }
    if (arg.length > 2 && arg.startsWith('--')) {
      // `--name=value` only with an `=` past the third character, then split at the first one, as
      // Node does (`--==` is the flag "" with the value "=").
      if (!arg.includes('=', 3)) {
        // `--name`, and its value from the next word
        const name = arg.slice(2);
        const value = takesValue(name) && next !== undefined ? remaining.shift() : undefined;
        tokens.push({ kind: 'option', name, rawName: arg, index, value, inlineValue: value === undefined ? undefined : false });
        if (value !== undefined) index++;
      } else {
        const equals = arg.indexOf('=');
        const name = arg.slice(2, equals);
        tokens.push({ kind: 'option', name, rawName: `--${name}`, index, value: arg.slice(equals + 1), inlineValue: true });
      }
      continue;
    }
    tokens.push({ kind: 'positional', index, value: arg });
  }
  return tokens;
}
