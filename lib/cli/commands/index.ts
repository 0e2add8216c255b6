/** Every command, in the order `cc-sessions --help` lists them. */
import type { Command } from '../command.js';
import { count } from './count.js';
import { demo } from './demo.js';
import { doctor } from './doctor.js';
import { hasInteractive } from './has-interactive.js';
import { list } from './list.js';
import { probe } from './probe.js';
import { prune } from './prune.js';
import { snapshot } from './snapshot.js';
import { summary } from './summary.js';
import { watch } from './watch.js';

export const COMMANDS: readonly Command[] = [list, count, summary, hasInteractive, prune, snapshot, watch, probe, doctor, demo];

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}
