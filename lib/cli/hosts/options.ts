/**
 * Which hosts a command reads: --host NAME (repeatable), --all-hosts (`local` and the hosts file,
 * `$XDG_CONFIG_HOME/claude-ps/hosts`, one ssh NAME a line), --host-timeout (docs/hosts.md).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { UsageError } from '../args.js';
import type { Context } from '../command.js';
import { readHosts, LOCAL_HOST, type HostScan } from '../../hosts/read.js';
import { checkHostName } from '../../hosts/transport.js';

/** `$XDG_CONFIG_HOME/claude-ps/hosts`, else `~/.config/claude-ps/hosts`. */
export function hostsFile(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'claude-ps', 'hosts');
}

/** The names in a hosts file: one a line; blank lines and `#` comments are skipped. */
export function parseHostsFile(text: string, path: string): string[] {
  const names: string[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    try {
      names.push(line === LOCAL_HOST ? line : checkHostName(line));
    } catch (error) {
      throw new UsageError(`${path}:${i + 1}: ${(error as Error).message}`);
    }
  });
  return names;
}

/** The hosts a command was asked to read, or undefined: this machine only, as without the flags. */
export function requestedHosts(ctx: Context): string[] | undefined {
  const named = (ctx.flags.host as string[] | undefined) ?? [];
  for (const name of named) {
    if (name !== LOCAL_HOST) {
      try {
        checkHostName(name);
      } catch (error) {
        throw new UsageError(`--host: ${(error as Error).message}`);
      }
    }
  }
  if (ctx.flags['all-hosts'] !== true) return named.length > 0 ? named : undefined;
  const path = hostsFile(ctx.env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--all-hosts: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}); it lists one ssh NAME a line`);
  }
  return [LOCAL_HOST, ...parseHostsFile(text, path), ...named];
}

/** Reads the requested hosts in parallel (--config-dir applies to `local`). */
export function readRequestedHosts(ctx: Context, hosts: readonly string[]): Promise<HostScan[]> {
  const seconds = ctx.flags['host-timeout'] as number | undefined;
  if (seconds === 0) throw new UsageError('--host-timeout: at least 1 second');
  return readHosts(hosts, {
    env: ctx.env,
    configDirs: ctx.configDirs,
    timeoutMs: seconds === undefined ? undefined : seconds * 1000,
  });
}
