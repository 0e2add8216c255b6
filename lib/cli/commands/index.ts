/**
 * Every command, in the order `claude-ps --help` lists them, loaded only when called: the bundle
 * then initialises (and requires Node built-ins such as crypto, child_process, events) only what
 * that one command needs, which is what keeps a statusline's `count` or `summary` start-up cheap.
 */
import type { Command } from '../command.js';

export const COMMAND_NAMES = [
  'list', 'count', 'summary', 'has-interactive', 'prune', 'snapshot', 'watch', 'probe', 'doctor', 'demo',
  'statusline', 'top', 'notify', 'service',
] as const;

const LOADERS: Record<(typeof COMMAND_NAMES)[number], () => Promise<Command>> = {
  list: () => import('./list.js').then((m) => m.list),
  count: () => import('./count.js').then((m) => m.count),
  summary: () => import('./summary.js').then((m) => m.summary),
  'has-interactive': () => import('./has-interactive.js').then((m) => m.hasInteractive),
  prune: () => import('./prune.js').then((m) => m.prune),
  snapshot: () => import('./snapshot.js').then((m) => m.snapshot),
  watch: () => import('./watch.js').then((m) => m.watch),
  probe: () => import('./probe.js').then((m) => m.probe),
  doctor: () => import('./doctor.js').then((m) => m.doctor),
  demo: () => import('./demo.js').then((m) => m.demo),
  statusline: () => import('./statusline.js').then((m) => m.statusline),
  top: () => import('./top.js').then((m) => m.top),
  notify: () => import('./notify.js').then((m) => m.notify),
  service: () => import('./service.js').then((m) => m.service),
};

export function isCommandName(name: string): name is (typeof COMMAND_NAMES)[number] {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}

export function loadCommand(name: (typeof COMMAND_NAMES)[number]): Promise<Command> {
  return LOADERS[name]();
}

export function loadAllCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_NAMES.map((name) => LOADERS[name]()));
}
