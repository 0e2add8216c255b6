/** A stub `notify-send` on PATH that records each call's arguments, for the `notify` tests. */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Stub {
  bin: string;
  log: string;
  /** Each call's arguments, in order. */
  calls(): string[][];
  remove(): void;
}

export function stubNotifySend(): Stub {
  const bin = mkdtempSync(join(tmpdir(), 'cps-notify-'));
  const log = join(bin, 'calls.log');
  writeFileSync(log, '');
  // Unit separator between arguments, record separator after each call: any argument text survives.
  writeFileSync(join(bin, 'notify-send'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\037' "$a"; done >> '${log}'\nprintf '\\036' >> '${log}'\n`);
  chmodSync(join(bin, 'notify-send'), 0o755);
  return {
    bin,
    log,
    calls: () =>
      readFileSync(log, 'utf8')
        .split('\x1e')
        .slice(0, -1)
        .map((call) => call.split('\x1f').slice(0, -1)),
    remove: () => rmSync(bin, { recursive: true, force: true }),
  };
}
