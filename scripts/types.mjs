// dist/types: the declarations tsc emits from lib/ (ESM, .d.ts), and a CommonJS twin of each (.d.cts)
// for the `require` condition, so a CommonJS consumer's TypeScript sees CommonJS types (a .d.ts in a
// "type": "module" package reads as ESM and fails there with TS1479). Emitted afresh each build, so a
// declaration of a deleted source is never packed.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const out = 'dist/types';
rmSync(out, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });

// Relative specifiers name the emitted .js files; in the twin they name the .cjs twins (which
// TypeScript resolves to the .d.cts files beside them).
const RELATIVE_JS = /((?:from|import)\s*\(?\s*["'])(\.\.?\/[^"']+)\.js(["'])/g;

function twin(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) twin(path);
    else if (entry.name.endsWith('.d.ts')) {
      const text = readFileSync(path, 'utf8').replace(RELATIVE_JS, '$1$2.cjs$3');
      writeFileSync(path.replace(/\.d\.ts$/, '.d.cts'), text);
    }
  }
}
twin(out);
