/**
 * The floor of the whole-process import rows (bench/sections/process.mjs): bench/lib/floor-reader.cjs's
 * reader as an ES module, imported cold the way a statusline script imports claude-ps (`import()`,
 * then one call). The same read with none of claude-ps's rules: one listing, each `<pid>.json` read by
 * path (symlinks followed, FIFOs not guarded against, no size cap), no schema, no pidDomain, procStart
 * compared to field 22 of /proc/<pid>/stat. Its built-in comes from process.getBuiltinModule, as the
 * library's entry takes its own (a static `import` of node:fs builds a facade of its whole export list
 * on every cold import), so the floor pays no more than claude-ps would for the same work.
 * Not a peer (bench/lib/peers.mjs holds those): unsafe on a registry another program writes.
 */
const fs = process.getBuiltinModule('node:fs');

/** How many of the registry's `<pid>.json` claims are live, by the floor's rules (none). */
export function countLive(configDir) {
  const dir = `${configDir}/sessions`;
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
  return live;
}
