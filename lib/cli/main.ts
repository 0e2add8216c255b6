/**
 * `cc-sessions`: which Claude Code sessions on this machine are really running.
 * Parses the command line, dispatches to one command, and turns a UsageError into exit 2 with one line
 * on stderr. Nothing heavy happens at load: a statusline starts this process on every render.
 */
import { parseArgs, UsageError } from './args.js';
import { COMMON_FLAGS, commandHelp, type Command } from './command.js';
import { isCommandName, loadAllCommands, loadCommand } from './commands/index.js';
import { colourWanted, err, makePaint, out, stdoutIsTTY } from './output.js';
import { readVersion } from './version.js';

async function generalHelp(): Promise<string> {
  const COMMANDS = await loadAllCommands();
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'Usage: cc-sessions [command] [options]',
    '',
    'Which Claude Code sessions on this machine are really running (dead and recycled claims filtered out).',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Every command takes --config-dir DIR (repeatable), --json, --help; `list` is the default.',
    'Run `cc-sessions COMMAND --help` for details, `cc-sessions demo` to see the filter at work.',
  ].join('\n') + '\n';
}

async function main(argv: string[]): Promise<number> {
  const first = argv[0];
  // Answered before any command loads: nothing else is needed.
  if (first === '--version' || first === '-V') {
    out(readVersion() + '\n');
    return 0;
  }
  if (first === 'help') {
    const name = argv[1];
    if (name !== undefined && !isCommandName(name)) throw new UsageError(`unknown command "${name}"`);
    out(name ? commandHelp(await loadCommand(name)) : await generalHelp());
    return 0;
  }
  let cmd: Command | undefined;
  let rest = argv;
  if (first !== undefined && !first.startsWith('-')) {
    if (!isCommandName(first)) throw new UsageError(`unknown command "${first}" (see cc-sessions --help)`);
    cmd = await loadCommand(first);
    rest = argv.slice(1);
  }
  const command = cmd ?? (await loadCommand('list'));
  const { flags, positionals } = parseArgs(rest, { ...command.flags, ...COMMON_FLAGS });
  if (flags.version) {
    out(readVersion() + '\n');
    return 0;
  }
  if (flags.help) {
    out(cmd ? commandHelp(cmd) : await generalHelp());
    return 0;
  }
  const allowed = command.positionals ?? { min: 0, max: 0, name: '' };
  if (positionals.length > allowed.max) {
    throw new UsageError(`${command.name}: unexpected argument "${positionals[allowed.max]}"`);
  }
  if (positionals.length < allowed.min) throw new UsageError(`${command.name}: needs ${allowed.name}`);
  const configDirs = flags['config-dir'] as string[] | undefined;
  return command.run({
    flags,
    positionals,
    configDirs,
    json: flags.json === true,
    paint: makePaint(!command.plain && flags.json !== true && colourWanted(await stdoutIsTTY(), process.env)),
    env: process.env,
    note: err,
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      err(`cc-sessions: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    err(`cc-sessions: ${message}\n`);
    if (process.env.CC_SESSIONS_DEBUG && error instanceof Error && error.stack) err(error.stack + '\n');
    process.exitCode = 1;
  },
).finally(() => {
  // A statusline exits 0 even on a usage error (docs/statusline.md): its one stderr line is enough.
  if (process.argv[2] === 'statusline') process.exitCode = 0;
});
