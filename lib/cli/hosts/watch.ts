/**
 * `watch --host`: the events of several hosts on one NDJSON stream. Remote hosts are read every
 * --interval ms (default 2000) over the shared ssh connection (lib/hosts/watch.ts); `local` is the
 * ordinary watch. Each record event carries `host`; a host's state changing (first answer, a lost
 * connection, its return) is a `host` event of its own (docs/hosts.md).
 */
import { watchHangup } from '../../backend/exits.js';
import { LOCAL_HOST } from '../../hosts/read.js';
import { watchHosts, type HostStateEvent, type HostWatchEvent } from '../../hosts/watch.js';
import type { SessionRecord } from '../../registry/types.js';
import { watch as watchRegistry } from '../../registry/watch/watch.js';
import { UsageError } from '../args.js';
import type { Context } from '../command.js';
import { err, out, outJson } from '../output.js';
import { recordJson } from '../records.js';
import { hostTimeoutMs, requestedHosts } from './options.js';
import { openLineFilesWithHosts } from '../statusline/host-lines.js';

// What watch --host does not do yet: said plainly rather than silently done for this machine only.
const NOT_WITH_HOSTS = ['snapshot', 'exec'];

export async function watchOnHosts(ctx: Context): Promise<number> {
  for (const flag of NOT_WITH_HOSTS) {
    if (ctx.flags[flag] !== undefined) throw new UsageError(`--${flag} does not apply with --host yet (this machine only: drop --host)`);
  }
  const hosts = requestedHosts(ctx)!;
  const interval = ctx.flags.interval as number | undefined;
  if (interval !== undefined && interval < 10) throw new UsageError('--interval must be at least 10 (ms)');
  // --statusline-dir: this machine's line files, naming the other hosts' waiting sessions (docs/statusline.md).
  const lines = await openLineFilesWithHosts(ctx, hosts.filter((h) => h !== LOCAL_HOST));
  const remotes = hosts.filter((h) => h !== LOCAL_HOST);
  const say = (line: object) => outJson(line);
  const remote = watchHosts(remotes, { env: ctx.env, intervalMs: interval, timeoutMs: hostTimeoutMs(ctx) });
  remote.on('change', (e: HostWatchEvent) => {
    const fields = e.type === 'changed' || e.type === 'died' ? e.fields : [];
    say({ type: e.type, time: Date.now(), host: e.host, fields, record: { host: e.host, measuredAt: e.record.measuredAt, ...recordJson(e.record) } });
  });
  if (lines) remote.on('change', (e: HostWatchEvent) => lines.change(e));
  if (lines) remote.on('host', (e: HostStateEvent) => lines.host(e));
  remote.on('host', (e: HostStateEvent) => say({ type: 'host', time: e.time, host: e.host, state: e.state, detail: e.detail ?? null }));
  remote.on('error', (error: unknown) => err(`claude-ps watch: ${error instanceof Error ? error.message : String(error)}\n`));
  const local = hosts.includes(LOCAL_HOST) || lines ? watchRegistry(ctx.configDirs, { env: ctx.env, interval }) : undefined;
  const endLines = lines && local ? lines.attach(local, () => stop()) : () => {};
  if (hosts.includes(LOCAL_HOST)) local?.on('change', (e: { type: string; record: SessionRecord; fields?: readonly string[] }) => {
    const time = Date.now();
    say({ type: e.type, time, host: LOCAL_HOST, fields: e.fields ?? [], record: { host: LOCAL_HOST, measuredAt: time, ...recordJson(e.record) } });
  });
  local?.on('error', (error: unknown) => err(`claude-ps watch: ${error instanceof Error ? error.message : String(error)}\n`));
  let stop = () => {};
  return new Promise<number>((resolve) => {
    stop = () => {
      endLines();
      remote.close();
      local?.close();
      resolve(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    watchHangup(1, stop);
  });
}
