/**
 * The floor of the whole-process rows (bench/sections/process.mjs): the least a Node program can do to
 * count a registry's live claims on Linux, with none of claude-ps's rules. It lists the folder once,
 * reads each `<pid>.json` by path (symlinks followed, FIFOs not guarded against, no size cap), parses
 * it with no schema, checks no pidDomain, and compares procStart to field 22 of /proc/<pid>/stat; the
 * count goes out through fs.writeSync (process.stdout alone costs ~1.5 ms to set up). What it costs
 * over bare `node` is what any reader of the registry pays for its file system work and the first
 * use of Node's fs code: the part of claude-ps's own cost that no change to claude-ps can remove.
 * Not a peer (bench/lib/peers.mjs holds those): unsafe on a registry another program writes.
 * Its twin for the import rows is floor-reader.mjs, the same loop as an ES module (a script run by
 * path and a module imported cold are the two forms measured; neither can load the other at no cost):
 * change both, as the bench checks each counts what claude-ps counts.
 */
'use strict';
const fs = require('node:fs');

const dir = `${process.argv[2]}/sessions`;
let live = 0;
for (const name of fs.readdirSync(dir)) {
  if (!/^[1-9][0-9]*\.json$/.test(name)) continue;
  let record;
  try {
    record = JSON.parse(fs.readFileSync(`${dir}/${name}`, 'utf8'));
  } catch {
    continue;
  }
  if (typeof record?.pid !== 'number') continue;
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${record.pid}/stat`, 'latin1');
  } catch {
    continue;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') continue;
  if (record.procStart === undefined || String(record.procStart) === fields[19]) live++;
}
fs.writeSync(1, `${live}\n`);
