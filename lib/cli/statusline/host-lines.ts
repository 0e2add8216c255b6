/**
 * `watch --host … --statusline-dir DIR` (docs/statusline.md, "Other hosts on the line"): this
 * machine's sessions keep their line files, and every line also names the other hosts' waiting
 * sessions, or says that a host could not be read. Fed by the host watcher's events
 * (lib/hosts/watch.ts): records per host, and each host's state (`pending` until its first answer).
 */
import type { EventEmitter } from 'node:events';
import type { HostStateEvent, HostWatchEvent } from '../../hosts/watch.js';
import { resolveSessionsDirs } from '../../registry/config.js';
import type { SessionRecord } from '../../registry/types.js';
import { UsageError } from '../args.js';
import type { Context } from '../command.js';
import { err } from '../output.js';
import { hostPart } from './hosts-line.js';
import { checkLifetimeFlags, startWatcherLifetime } from './lifetime.js';
import { openWatchOutputs, type WatchOutputs } from './watch-outputs.js';

export class HostLines {
  private readonly records = new Map<string, Map<string, SessionRecord>>();
  private readonly states = new Map<string, string>();

  constructor(
    private readonly hosts: readonly string[],
    private readonly outputs: WatchOutputs,
  ) {
    for (const host of hosts) this.states.set(host, 'pending');
    this.push();
  }

  change(event: HostWatchEvent): void {
    let own = this.records.get(event.host);
    if (own === undefined) this.records.set(event.host, (own = new Map()));
    if (event.type === 'removed') own.delete(event.record.path);
    else own.set(event.record.path, event.record);
    this.push();
  }

  host(event: HostStateEvent): void {
    this.states.set(event.host, event.state);
    this.push();
  }

  private push(): void {
    this.outputs.setHosts(this.hosts.map((h) => hostPart(h, this.states.get(h) ?? 'pending', this.records.get(h)?.values() ?? [])));
  }
}

/**
 * Opens `--statusline-dir` for `watch --host` (the folder and its lock taken before any event flows,
 * `DIR/.watcher` naming the remotes), or undefined without the flag. `attach` starts the line files
 * and the watcher's lifetime on the local watcher; `stop` is called when that lifetime ends it.
 */
export async function openLineFilesWithHosts(
  ctx: Context,
  remotes: readonly string[],
): Promise<{ change(e: HostWatchEvent): void; host(e: HostStateEvent): void; attach(local: EventEmitter, stop: () => void): () => void } | undefined> {
  checkLifetimeFlags(ctx.flags);
  if (ctx.flags['statusline-dir'] === undefined) {
    if (ctx.flags['until-logout'] === true) throw new UsageError('--until-logout with --host needs --statusline-dir');
    return undefined;
  }
  const report = (line: string) => {
    try {
      err(`claude-ps watch: ${line}\n`);
    } catch {
      // nowhere to report
    }
  };
  const attachOutputs = await openWatchOutputs(ctx.flags, ctx.env, resolveSessionsDirs(ctx.configDirs, ctx.env), report, { hosts: [...remotes] });
  // Host events come from reads that resolve later: `attach` (in the same turn as the watchers'
  // creation) always runs first.
  let hosts: HostLines | undefined;
  return {
    change: (e) => hosts?.change(e),
    host: (e) => hosts?.host(e),
    attach(local, stop) {
      const outputs = attachOutputs(local);
      hosts = new HostLines(remotes, outputs);
      const endLifetime = startWatcherLifetime(ctx.flags, ctx.env, local, outputs.lineDir, report, (why) => {
        report(`ending: ${why}`);
        stop();
      });
      return () => {
        endLifetime();
        outputs.close();
      };
    },
  };
}
