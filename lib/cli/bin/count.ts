/**
 * dist/cli-count.cjs: `claude-ps count` alone, the command a poller or a status bar runs over and
 * over. The launcher (lib/cli/launch.ts) runs it for `count` unless a host flag is on the command
 * line: the dispatcher, the read path and `count`, ~45 KB where the whole CLI's core is ~100 KB, so a
 * run compiles, or reads from its code cache, less than half as much. The answers are the whole CLI's:
 * the same dispatcher and the same command, built from the same files.
 */
import { count } from '../commands/count.js';
import { commandSetOf, runCli } from '../main.js';

runCli(commandSetOf(count));
