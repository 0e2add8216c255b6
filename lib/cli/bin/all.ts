/** dist/cli-main.cjs: every command (lib/cli/launch.ts runs it for any command line but a plain `count`). */
import * as commands from '../commands/index.js';
import { runCli } from '../main.js';

runCli(commands);
