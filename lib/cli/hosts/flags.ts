/**
 * The flags of the commands that read other hosts. Kept apart from the code that reads them, so a
 * command's module (loaded on every statusline render) pulls in no ssh code until --host is given.
 */
import type { FlagSpecs } from '../args.js';

export const HOST_FLAGS: FlagSpecs = {
  host: {
    type: 'list',
    value: 'NAME',
    help: 'read NAME over ssh (an alias or user@host; `local`: this machine), repeatable; exit 3 if one gives no answer',
  },
  'all-hosts': { type: 'boolean', help: 'read `local` and every host in $XDG_CONFIG_HOME/claude-ps/hosts' },
  'host-timeout': { type: 'integer', value: 'SECONDS', help: 'per host, the whole read over ssh (default 15)' },
};

/** True when the command was asked to read other hosts (then lib/cli/hosts/commands.ts serves it). */
export function wantsHosts(flags: Readonly<Record<string, unknown>>): boolean {
  return flags.host !== undefined || flags['all-hosts'] === true;
}

/**
 * True when a command line may ask for other hosts: a word that is one of HOST_FLAGS, alone or with
 * `=VALUE` (they have no short forms). Wider than wantsHosts (a folder named `--host` counts too): the
 * launcher runs `count` from the bundle that holds no host code (lib/cli/bin/count.ts) only when this
 * is false.
 */
export function mayAskForHosts(argv: readonly string[]): boolean {
  const names = Object.keys(HOST_FLAGS).map((name) => `--${name}`);
  return argv.some((word) => names.some((flag) => word === flag || word.startsWith(`${flag}=`)));
}
