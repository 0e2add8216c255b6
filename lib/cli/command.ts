/** What every command is made of, the flags they all take, and the help text built from them. */
import type { FlagSpecs, ParsedArgs } from './args.js';
import type { Paint } from './output.js';

export interface Context {
  flags: ParsedArgs['flags'];
  positionals: string[];
  /** The --config-dir values, or undefined for the default (CLAUDE_CONFIG_DIR, else ~/.claude). */
  configDirs: string[] | undefined;
  json: boolean;
  /** Colours for stdout (off unless stdout is a TTY and NO_COLOR is unset). */
  paint: Paint;
  env: NodeJS.ProcessEnv;
  /** Asides for a person (e.g. "3 dead records hidden"): stderr, so they never mix into piped output. */
  note(text: string): void;
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The usage line after `cc-sessions`, e.g. `probe [options] PID...`. */
  usage: string;
  /** Extra paragraphs for --help: what it prints, the --json shape, exit codes. */
  details?: string;
  flags: FlagSpecs;
  /** True for commands that never colour (their output is for scripts): skips the TTY check. */
  plain?: boolean;
  /** Positional arguments: how many are allowed. */
  positionals?: { min: number; max: number; name: string };
  /** Returns the exit code. */
  run(ctx: Context): number | Promise<number>;
}

export const COMMON_FLAGS: FlagSpecs = {
  'config-dir': {
    type: 'list',
    value: 'DIR',
    help: 'Claude Code config dir to read (repeatable; default $CLAUDE_CONFIG_DIR, else ~/.claude)',
  },
  json: { type: 'boolean', help: 'machine-readable output (a stable JSON shape)' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
  version: { type: 'boolean', short: 'V', help: 'print the version' },
};

export function commandHelp(cmd: Command): string {
  const flags = { ...cmd.flags, ...COMMON_FLAGS };
  const rows = Object.entries(flags).map(([name, spec]) => {
    const short = spec.short ? `-${spec.short}, ` : '    ';
    return [`  ${short}--${name}${spec.value ? ` ${spec.value}` : ''}`, spec.help] as const;
  });
  const width = Math.max(...rows.map(([l]) => l.length)) + 2;
  const lines = [`Usage: cc-sessions ${cmd.usage}`, '', cmd.summary, ''];
  if (cmd.details) lines.push(cmd.details.trim(), '');
  lines.push('Options:', ...rows.map(([l, h]) => l.padEnd(width) + h));
  return lines.join('\n') + '\n';
}
