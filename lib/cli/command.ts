/** What every command is made of, the flags they all take, and the help text built from them. */
import type { FlagSpecs, ParsedArgs } from './args.js';
import { defaultConfigDir } from '../registry/config.js';
import { COLOR_MODES, type Paint } from './output.js';

export interface Context {
  flags: ParsedArgs['flags'];
  positionals: string[];
  /** The --config-dir values, or undefined for the default (CLAUDE_CONFIG_DIR, else ~/.claude). */
  configDirs: string[] | undefined;
  json: boolean;
  /** Colours for stdout (see colourChoice in output.ts: --color, FORCE_COLOR, NO_COLOR, a terminal). */
  paint: Paint;
  env: NodeJS.ProcessEnv;
  /** Asides for a person (e.g. "3 dead records hidden"): stderr, so they never mix into piped output. */
  note(text: string): void;
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The usage line after `claude-ps`, e.g. `probe [options] PID...`. */
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

/**
 * The config dirs a command reads: the --config-dir values, else the default one. Here, not in
 * commands/list.ts, so that `count` (a poller's command) does not bring the table code with it.
 */
export function configDirList(configDirs: string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  return configDirs ?? [defaultConfigDir(env)];
}

export const COMMON_FLAGS: FlagSpecs = {
  'config-dir': {
    type: 'list',
    value: 'DIR',
    help: 'Claude Code config dir to read (repeatable; default $CLAUDE_CONFIG_DIR, else ~/.claude)',
  },
  json: { type: 'boolean', help: 'machine-readable output (a stable JSON shape)' },
  color: {
    type: 'string',
    value: 'WHEN',
    choices: COLOR_MODES,
    help: 'colour: auto (default: on a terminal, see Environment), always or never',
  },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
  version: { type: 'boolean', short: 'V', help: 'print the version' },
};

// Commands that read no registry, and why: --config-dir is a usage error there, not silently ignored.
const NO_REGISTRY: Readonly<Record<string, string>> = {
  probe: 'probe asks the kernel about PIDs and reads no registry',
  demo: 'the demo makes its own registry',
};

// Commands whose exit codes are answers of their own (yes/no); their `details` say what each means.
const OWN_EXIT_CODES = new Set(['has-interactive', 'probe']);

// Commands whose exit status is not the common one, and what it is instead.
const EXIT_STATUS: Readonly<Record<string, string>> = {
  // Claude Code starts it on every render: any exit but 0 would only blank the line (docs/statusline.md).
  statusline:
    'Exit status of a render: always 0, usage errors included; a problem is one line on stderr.\n' +
    '--install and --uninstall are not renders: 0 done, 1 refused (one line says why), 2 usage error.',
};

/** The common flags a command really takes, and for the others the reason it does not. */
export function commonFlagsFor(cmd: Command): { flags: FlagSpecs; notTaken: Record<string, string> } {
  const flags: Record<string, FlagSpecs[string]> = { ...COMMON_FLAGS };
  const notTaken: Record<string, string> = {};
  const why = Object.hasOwn(NO_REGISTRY, cmd.name) ? NO_REGISTRY[cmd.name] : undefined;
  if (why !== undefined) {
    delete flags['config-dir'];
    notTaken['config-dir'] = why;
  }
  // Accepted everywhere (as by ls and ripgrep), so that an alias adding --color breaks nothing.
  if (cmd.plain) flags.color = { ...COMMON_FLAGS.color!, help: `accepted, but ${cmd.name} never colours its output` };
  return { flags, notTaken };
}

/** The environment variables that matter to a command (all of them for the general help). */
export function environmentHelp(reads: { registry: boolean; colour: boolean }): string[] {
  const rows: [string, string][] = [];
  if (reads.registry) rows.push(['CLAUDE_CONFIG_DIR', 'the config dir read without --config-dir (else ~/.claude)']);
  rows.push(['CLAUDE_PS_BACKEND', 'native, js or ps: the probe backend to use (`claude-ps doctor` says which serves)']);
  if (reads.colour) {
    rows.push(['NO_COLOR', 'set and non-empty: no colour (https://no-color.org)']);
    rows.push(['FORCE_COLOR', '1, 2, 3, true or empty: colour even when piped; 0 or false: none (beats NO_COLOR)']);
    rows.push(['TERM', '`dumb`: no colour (--color beats all three)']);
  }
  rows.push(['CLAUDE_PS_DEBUG', 'non-empty: print the stack trace of a runtime error']);
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  return ['Environment:', ...rows.map(([name, text]) => `  ${name.padEnd(width)}${text}`)];
}

export function commandHelp(cmd: Command): string {
  const { flags: common, notTaken } = commonFlagsFor(cmd);
  const flags = { ...cmd.flags, ...common };
  const rows = Object.entries(flags).map(([name, spec]) => {
    const short = spec.short ? `-${spec.short}, ` : '    ';
    return [`  ${short}--${name}${spec.value ? ` ${spec.value}` : ''}`, spec.help] as const;
  });
  const width = Math.max(...rows.map(([l]) => l.length)) + 2;
  const lines = [`Usage: claude-ps ${cmd.usage}`, '', cmd.summary, ''];
  if (cmd.details) lines.push(cmd.details.trim(), '');
  lines.push('Options:', ...rows.map(([l, h]) => l.padEnd(width) + h));
  if (notTaken['config-dir']) lines.push(`  (--config-dir DIR does not apply: ${notTaken['config-dir']})`);
  lines.push('');
  if (Object.hasOwn(EXIT_STATUS, cmd.name)) lines.push(EXIT_STATUS[cmd.name]!, '');
  else if (!OWN_EXIT_CODES.has(cmd.name)) {
    lines.push('Exit status: 0 success; 1 a runtime error (one line on stderr); 2 a usage error.', '');
  }
  lines.push(...environmentHelp({ registry: flags['config-dir'] !== undefined, colour: !cmd.plain }));
  return lines.join('\n') + '\n';
}
