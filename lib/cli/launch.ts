/**
 * The `cc-sessions` executable: runs the CLI bundle (dist/cli-main.cjs) through V8's code cache.
 *
 * A statusline starts this process on every render, and compiling the ~60 KB bundle was the largest
 * part of our start-up (~6 ms of ~15 ms over a bare `node` on the reference machine). The cache is kept
 * beside the bundle; when it is missing or V8 rejects it (another Node version), the bundle is compiled
 * as usual and a fresh cache, including the functions this run compiled, is written at exit — atomically,
 * and silently skipped where the folder is read-only. (Node 22's module.enableCompileCache does the same.)
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire, wrap } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

// Bundled as CommonJS (dist/cli.cjs), where __dirname is the dist folder.
declare const __dirname: string;

const bundle = join(__dirname, 'cli-main.cjs');
const cacheFile = join(__dirname, 'cli-main.cache');

function readCache(): Buffer | undefined {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

const cachedData = readCache();
const script = new Script(wrap(readFileSync(bundle, 'utf8')), { filename: bundle, cachedData });

if (cachedData === undefined || script.cachedDataRejected === true) {
  process.once('exit', () => {
    const temp = `${cacheFile}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, script.createCachedData(), { mode: 0o644 });
      renameSync(temp, cacheFile);
    } catch {
      try {
        unlinkSync(temp);
      } catch {
        // nothing was written
      }
    }
  });
}

const run = script.runInThisContext() as (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
) => void;
const cliModule = { exports: {} };
run(cliModule.exports, createRequire(bundle), cliModule, bundle, dirname(bundle));
