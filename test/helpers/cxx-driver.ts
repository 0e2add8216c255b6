/**
 * A small C++ test driver compiled with g++ against native/ (warnings as errors), for the probe decisions
 * that only injected answers can reach (darwin_state.h, linux_state.h). Call inside beforeAll; `remove()`
 * in afterAll deletes the temporary folder it was built in.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

export const hasGxx = spawnSync('g++', ['--version']).status === 0;

// AddressSanitizer and UBSan where g++ has them (docs/architecture.md, "Build and package"): a driver
// that reads or writes out of bounds, or hits undefined behaviour, prints a report and fails its run.
const libasan = hasGxx ? spawnSync('g++', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).stdout.trim() : '';
const SANITIZE = libasan.startsWith('/') ? ['-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-fno-omit-frame-pointer', '-g'] : [];

const native = join(import.meta.dirname, '..', '..', 'native');

export interface Driver {
  /** Runs the driver with `input` on stdin; its stdout, after checking it exited 0 with a silent stderr. */
  run(input: string): string;
  remove(): void;
}

export function compileDriver(source: string, name: string): Driver {
  const dir = mkdtempSync(join(tmpdir(), `cps-${name}-`));
  const path = join(dir, name);
  const cc = spawnSync('g++', ['-std=c++17', '-O1', '-Wall', '-Wextra', '-Werror', ...SANITIZE, '-I', native, source, '-o', path], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(cc.stderr).toBe('');
  expect(cc.status).toBe(0);
  return {
    run(input) {
      const out = spawnSync(path, [], { input, encoding: 'utf8', timeout: 10_000 });
      expect(out.stderr).toBe('');
      expect(out.status).toBe(0);
      return out.stdout;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
