/**
 * `claude-ps`: which Claude Code sessions on this machine are really running.
 * Parses the command line, dispatches to one command of a command set, and turns a UsageError into
 * exit 2 with one line on stderr. Nothing happens at load: each bundle's entry (lib/cli/bin/) calls
 * runCli with the commands it holds, and a statusline starts one of them on every render.
 */
import { parseArgs, tokensOf, UsageError } from './args.js';
import { checkBackendRequest } from './backend-request.js';
import { commandHelp, commonFlagsFor, environmentHelp, type Command } from './command.js';
import { printable } from './format.js';
import { errorSentence } from '../registry/system-error.js';
import { colourChoice, err, makePaint, out, stdoutIsTTY, type ColorMode } from './output.js';
import { closest } from './suggest.js';
import { readVersion } from './version.js';

/** The commands a bundle holds (commands/index.ts: all of them), each loaded when it is called. */
export interface CommandSet {
  readonly COMMAND_NAMES: readonly string[];
  isCommandName(name: string): boolean;
  loadCommand(name: string): Promise<Command>;
  loadAllCommands(): Promise<Command[]>;
}

/**
 * The set of one command: the entry of a bundle that holds it alone (lib/cli/bin/count.ts,
 * statusline.ts), which the launcher runs only for a command line naming it.
 */
export function commandSetOf(command: Command): CommandSet {
  const { name } = command;
  return {
    COMMAND_NAMES: [name],
    isCommandName: (given) => given === name,
    loadCommand: (given) => (given === name ? Promise.resolve(command) : Promise.reject(new Error(`${given}: not in the bundle of ${name}`))),
    loadAllCommands: () => Promise.resolve([command]),
  };
}

async function generalHelp({ loadAllCommands }: CommandSet): Promise<string> {
  const COMMANDS = await loadAllCommands();
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  const noRegistry = COMMANDS.filter((c) => !commonFlagsFor(c).flags['config-dir']).map((c) => c.name);
  return [
    'Usage: claude-ps [command] [options]',
    '',
    'Which Claude Code sessions on this machine are really running (dead and recycled claims filtered out).',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Every command takes --json, -h/--help and -V/--version; --config-dir DIR (repeatable) where it reads',
    `a registry (all but ${noRegistry.join(' and ')}); --color WHEN (auto, always, never) where it colours.`,
    'Run `claude-ps COMMAND --help` for its own options, `claude-ps demo` to see the filter at work.',
    '',
    'Exit status: 0 success; 1 a runtime error (one line on stderr); 2 a usage error (unknown command or',
    'option, missing or bad value). has-interactive and probe answer with exit codes of their own, and',
    'statusline always exits 0: see their --help.',
    '',
    ...environmentHelp({ registry: true, colour: true }),
  ].join('\n') + '\n';
}

function unknownCommand(name: string, { COMMAND_NAMES }: CommandSet): UsageError {
  const guess = closest(name, COMMAND_NAMES);
  const shown = JSON.stringify(name.length > 40 ? name.slice(0, 39) + '…' : name);
  return new UsageError(`unknown command ${shown}${guess ? ` (did you mean ${guess}?)` : ''}; see claude-ps --help`);
}

/** For a `statusline` command line: whether it installs or uninstalls (no render); set by main(). */
let statuslineSetup: boolean | undefined;

async function main(argv: string[], commands: CommandSet): Promise<number> {
  const { isCommandName, loadCommand } = commands;
  const first = argv[0];
  // Answered before any command loads: nothing else is needed.
  if (first === '--version' || first === '-V') {
    out(readVersion() + '\n');
    return 0;
  }
  if (first === 'help') {
    const name = argv[1];
    if (name !== undefined && !isCommandName(name)) throw unknownCommand(name, commands);
    out(name ? commandHelp(await loadCommand(name)) : await generalHelp(commands));
    return 0;
  }
  let cmd: Command | undefined;
  let rest = argv;
  if (first !== undefined && !first.startsWith('-')) {
    if (!isCommandName(first)) throw unknownCommand(first, commands);
    cmd = await loadCommand(first);
    rest = argv.slice(1);
  }
  const command = cmd ?? (await loadCommand('list'));
  const common = commonFlagsFor(command);
  const specs = { ...command.flags, ...common.flags };
  // A statusline render exits 0 whatever happens; an install or uninstall says when it refuses. Which
  // one this is, from the words as the parser splits them (not `-- --install`, not `-f --install`),
  // known before the parse that may fail.
  if (command.name === 'statusline') {
    statuslineSetup = tokensOf(rest, specs).some((t) => t.kind === 'option' && (t.name === 'install' || t.name === 'uninstall'));
  }
  const { flags, positionals } = parseArgs(rest, specs, { notTaken: common.notTaken });
  if (flags.version) {
    out(readVersion() + '\n');
    return 0;
  }
  if (flags.help) {
    out(cmd ? commandHelp(cmd) : await generalHelp(commands));
    return 0;
  }
  const allowed = command.positionals ?? { min: 0, max: 0, name: '' };
  if (positionals.length > allowed.max) {
    throw new UsageError(`${command.name}: unexpected argument ${JSON.stringify(positionals[allowed.max]!.slice(0, 80))}`);
  }
  if (positionals.length < allowed.min) throw new UsageError(`${command.name}: needs ${allowed.name}`);
  // The guard checks it inside its own error mapping (a failure there is exit 4, never its "no", 1).
  if (command.name !== 'has-interactive') checkBackendRequest(process.env);
  const configDirs = flags['config-dir'] as string[] | undefined;
  const json = flags.json === true;
  // The terminal is asked (node:tty) only when nothing else decides.
  const colour = !command.plain && !json && (colourChoice(process.env, flags.color as ColorMode | undefined) ?? (await stdoutIsTTY()));
  // For the launcher's code cache (launch.ts): the command this run compiles, named only once it
  // runs (never for help, a version or a usage error).
  (globalThis as Record<symbol, unknown>)[Symbol.for('claude-ps.command')] =
    command.name === 'statusline' && (flags.install === true || flags.uninstall === true || flags.snippet === true) ? 'statusline:setup' : command.name;
  return command.run({
    flags,
    positionals,
    configDirs,
    json,
    paint: makePaint(colour),
    env: process.env,
    note: err,
  });
}

/** Runs the command line of this process; its exit code is set when the command is done. */
export function runCli(commands: CommandSet): void {
  main(process.argv.slice(2), commands).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // One line, whatever the message holds (a path or an argument with a newline or a bidi override).
      // A system error as a sentence about the user's path (errorSentence), never a bare `EEXIST: …`.
      const message = printable(errorSentence(error));
      err(`claude-ps: ${message}\n`);
      if (error instanceof UsageError) {
        process.exitCode = 2;
        return;
      }
      if (process.env.CLAUDE_PS_DEBUG && error instanceof Error && error.stack) err(error.stack + '\n');
      process.exitCode = 1;
    },
  ).finally(() => {
    // A statusline exits 0 even on a usage error (docs/statusline.md): its one stderr line is enough.
    // (--install and --uninstall are not renders: they say when they refuse.)
    if (process.argv[2] === 'statusline' && statuslineSetup !== true) process.exitCode = 0;
  });
}
