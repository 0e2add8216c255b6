/** `claude-ps snapshot`: the registry as one JSON document, for dashboards that cannot see this host. */
import { snapshot as takeSnapshot, writeSnapshot } from '../../registry/snapshot.js';
import type { Command } from '../command.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import { jsonText, out } from '../output.js';
import { configDirList } from './list.js';

export const snapshot: Command = {
  name: 'snapshot',
  summary: 'write the live picture as JSON (--output FILE, atomically; else to stdout)',
  usage: 'snapshot [--output FILE] [options]',
  plain: true,
  details: `
The document: {"version": 1, "written": EPOCH_MS, "host": {"platform", "pidDomain"},
"sessions": {SESSION_ID: {"pid", "name", "status", "waitingFor", "kind", "interactive", "cwd",
"statusUpdatedAt", "verdict", "live"}}}. With --output the file is replaced atomically;
--json then prints {"output": FILE, "sessions": N}.`,
  flags: {
    output: { type: 'string', short: 'o', value: 'FILE', help: 'write the snapshot to FILE (atomic replace)' },
    ...HOST_FLAGS,
  },
  run(ctx) {
    if (wantsHosts(ctx.flags)) return import('../hosts/commands.js').then((m) => m.snapshotOnHosts(ctx));
    const dirs = configDirList(ctx.configDirs, ctx.env);
    const data = takeSnapshot(dirs);
    const file = ctx.flags.output as string | undefined;
    if (file === undefined) {
      out(jsonText(data) + '\n');
      return 0;
    }
    writeSnapshot(file, data);
    const n = Object.keys(data.sessions).length;
    out(ctx.json ? JSON.stringify({ output: file, sessions: n }) + '\n' : `Wrote ${n} session(s) to ${file}\n`);
    return 0;
  },
};
