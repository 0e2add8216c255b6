/**
 * dist/cli-statusline.cjs: `claude-ps statusline` alone, which Claude Code runs on every render where
 * no line-file watcher answers (the first render, a fallback). The launcher (lib/cli/launch.ts) runs it
 * for `statusline` unless a host flag is on the command line; like lib/cli/bin/count.ts, the same
 * dispatcher and command as the whole CLI, built from the same files, without the other commands.
 */
import { statusline } from '../commands/statusline.js';
import { commandSetOf, runCli } from '../main.js';

runCli(commandSetOf(statusline));
