/**
 * `node bench/profile.mjs [--n 10,1000] [--backend js|native] [--fn liveRecords|readRecords] [--ms 1500]`:
 * the bench's own fixture (real processes, the same 20/10/1/69 % mix and junk files), one library copy
 * per backend, and a CPU profile (node:inspector) of the chosen call looped for --ms per size. Prints the
 * functions with the most self time, so a regression can be traced to the code that pays for it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildFixtures } from './lib/fixtures.mjs';
import { loadBackend } from './lib/instances.mjs';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '10,1000' },
    backend: { type: 'string', default: 'js' },
    fn: { type: 'string', default: 'liveRecords' },
    ms: { type: 'string', default: '1500' },
    top: { type: 'string', default: '25' },
  },
});
const sizes = values.n.split(',').map(Number);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
mkdirSync(here('./build/'), { recursive: true });
const holder = join(here('./build/'), 'cps-holder');
execFileSync('cc', ['-O2', '-Wall', '-o', holder, here('./c/holder.c')], { stdio: 'inherit' });

const post = (session, method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));

const fixtures = await buildFixtures(holder, sizes);
try {
  const lib = await loadBackend(values.backend);
  for (const n of sizes) {
    const { configDir } = fixtures.registries.get(n);
    const call = () => lib[values.fn](configDir);
    const restore = process.env.CLAUDE_PS_BACKEND;
    process.env.CLAUDE_PS_BACKEND = values.backend; // as bench/lib/instances.mjs does around a measurement
    for (let i = 0; i < 200; i++) call(); // warm: JIT, page cache
    const session = new Session();
    session.connect();
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.setSamplingInterval', { interval: 50 });
    await post(session, 'Profiler.start');
    const until = Date.now() + Number(values.ms);
    let calls = 0;
    while (Date.now() < until) {
      call();
      calls++;
    }
    const { profile } = await post(session, 'Profiler.stop');
    if (restore === undefined) delete process.env.CLAUDE_PS_BACKEND;
    else process.env.CLAUDE_PS_BACKEND = restore;
    session.disconnect();
    const self = new Map();
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const dt = new Map();
    for (let i = 0; i < profile.samples.length; i++) {
      dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
    }
    let total = 0;
    for (const [id, us] of dt) {
      const f = byId.get(id).callFrame;
      const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + us);
      total += us;
    }
    console.log(`\n## ${values.backend} ${values.fn}() at N=${n}: ${calls} calls, ${((total / calls) | 0)} µs sampled per call`);
    for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
      console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / calls).toFixed(1).padStart(7)} µs  ${key}`);
    }
  }
} finally {
  await fixtures.end();
}
