/**
 * Which hosts a command reads: --host NAME (repeatable), --all-hosts (`local` and the hosts file,
 * `$XDG_CONFIG_HOME/claude-ps/hosts`, one ssh NAME a line), --host-timeout (docs/hosts.md).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { UsageError } from '../args.js';
import type { Context } from '../command.js';
import { readHosts, LOCAL_HOST, type HostScan } from '../../hosts/read.js';
import { checkHostName, MAX_TIMEOUT_MS } from '../../hosts/transport.js';

/** `$XDG_CONFIG_HOME/claude-ps/hosts`, else `~/.config/claude-ps/hosts`. */
export function hostsFile(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'claude-ps', 'hosts');
}

/** Far more than any list of hosts; a bigger "hosts file" is something else (a device, a mistake). */
export const MAX_HOSTS_FILE_BYTES = 64 * 1024;

/**
 * The hosts file's text. Opened without blocking (a FIFO would wait for a writer for ever) and read
 * only when it is a regular file of at most MAX_HOSTS_FILE_BYTES (a symlink to /dev/zero never
 * ends). A symlink to a regular file is followed: dotfile managers (stow, home-manager) make them.
 */
export function readHostsFile(path: string): string {
  const refuse = (why: string) => new UsageError(`--all-hosts: cannot read ${path} (${why}); it lists one ssh NAME a line`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    throw refuse((error as NodeJS.ErrnoException).code ?? 'error');
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw refuse('not a regular file');
    if (st.size > MAX_HOSTS_FILE_BYTES) throw refuse(`over ${MAX_HOSTS_FILE_BYTES} bytes`);
    // The size again while reading: the file may grow after the fstat.
    const buf = Buffer.alloc(MAX_HOSTS_FILE_BYTES + 1);
    let used = 0;
    while (used < buf.length) {
      const n = readSync(fd, buf, used, buf.length - used, null);
      if (n === 0) break;
      used += n;
    }
    if (used > MAX_HOSTS_FILE_BYTES) throw refuse(`over ${MAX_HOSTS_FILE_BYTES} bytes`);
    return buf.toString('utf8', 0, used);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw refuse((error as NodeJS.ErrnoException).code ?? 'error');
  } finally {
    closeSync(fd);
  }
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
  return [LOCAL_HOST, ...parseHostsFile(readHostsFile(path), path), ...named];
}

/** --host-timeout in ms, or undefined (the default); a usage error outside 1 s .. setTimeout's limit. */
export function hostTimeoutMs(ctx: Context): number | undefined {
  const seconds = ctx.flags['host-timeout'] as number | undefined;
  if (seconds === undefined) return undefined;
  const most = Math.floor(MAX_TIMEOUT_MS / 1000);
  if (seconds < 1 || seconds > most) throw new UsageError(`--host-timeout: 1 to ${most} seconds, got ${seconds}`);
  return seconds * 1000;
}

/** Reads the requested hosts in parallel (--config-dir applies to `local`). */
export function readRequestedHosts(ctx: Context, hosts: readonly string[]): Promise<HostScan[]> {
  return readHosts(hosts, { env: ctx.env, configDirs: ctx.configDirs, timeoutMs: hostTimeoutMs(ctx) });
}
