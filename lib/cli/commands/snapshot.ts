/** `claude-ps snapshot`: the registry as one JSON document, for dashboards that cannot see this host. */
import { scanRegistry } from '../../registry/read/scan.js';
import { snapshotOf, writeSnapshot } from '../../registry/snapshot.js';
import { noteRegistry } from '../registry-notes.js';
import { skipsJson } from '../skips.js';
import { configDirList, type Command } from '../command.js';
import { HOST_FLAGS, wantsHosts } from '../hosts/flags.js';
import { out, outJson } from '../output.js';

export const snapshot: Command = {
  name: 'snapshot',
  summary: 'write the live picture as JSON (--output FILE, atomically; else to stdout)',
  usage: 'snapshot [--output FILE] [options]',
  plain: true,
  details: `
The document: {"version": 1, "written": EPOCH_MS, "host": {"platform", "pidDomain"},
"sessions": {SESSION_ID: {"pid", "name", "status", "waitingFor", "kind", "interactive", "cwd",
"statusUpdatedAt", "verdict", "live"}}}. With --output the file is replaced atomically;
--json then prints {"output": FILE, "sessions": N, "skipped": [{"path", "pid", "reason", "error"}...]}.
Candidates that could not be read are counted on stderr in one line.`,
  flags: {
    output: { type: 'string', short: 'o', value: 'FILE', help: 'write the snapshot to FILE (atomic replace)' },
    ...HOST_FLAGS,
  },
  run(ctx) {
    if (wantsHosts(ctx.flags)) return import('../hosts/commands.js').then((m) => m.snapshotOnHosts(ctx));
    const dirs = configDirList(ctx.configDirs, ctx.env);
    const scan = scanRegistry(dirs, { env: ctx.env });
    const data = snapshotOf(scan.records);
    const file = ctx.flags.output as string | undefined;
    if (file === undefined) {
      outJson(data);
      noteRegistry(ctx, dirs, scan);
      return 0;
    }
    writeSnapshot(file, data);
    // After the write: a failure stays the one line a runtime error is.
    noteRegistry(ctx, dirs, scan);
    const n = Object.keys(data.sessions).length;
    if (ctx.json) outJson({ output: file, sessions: n, skipped: skipsJson(scan.skipped) });
    else out(`Wrote ${n} session(s) to ${file}\n`);
    return 0;
  },
};
