/** `--interval MS` of the commands that watch (`top`, `notify`), checked by the library's own rule. */
import { watchSettings } from '../registry/watch/options.js';
import { UsageError } from './args.js';

/** The flag's value, or a UsageError worded for the command line (the library's message, renamed). */
export function intervalFlag(flags: Record<string, unknown>): number | undefined {
  const interval = flags.interval as number | undefined;
  try {
    watchSettings({ interval });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^watch: options\.interval /, '--interval '));
  }
  return interval;
}
