/**
 * A throw-away config dir with a `sessions/` folder, and records written into it the way Claude Code
 * writes them (plain writeFile, no rename). Clean up with `remove()`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RegistryFixture {
  configDir: string;
  sessions: string;
  /** The path of a file in sessions/. */
  path(name: string): string;
  /** Writes `<pid>.json` (or `name` when given) from a record object, raw text or bytes; returns its path. */
  write(pid: number, content: object | string | Uint8Array, name?: string): string;
  remove(): void;
}

export function makeRegistry(prefix = 'claude-ps-test-'): RegistryFixture {
  const configDir = mkdtempSync(join(tmpdir(), prefix));
  const sessions = join(configDir, 'sessions');
  mkdirSync(sessions, { mode: 0o700 });
  const path = (name: string) => join(sessions, name);
  return {
    configDir,
    sessions,
    path,
    write(pid, content, name = `${pid}.json`) {
      const file = path(name);
      const data = typeof content === 'string' || content instanceof Uint8Array ? content : JSON.stringify(content);
      writeFileSync(file, data);
      return file;
    },
    remove() {
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** A plausible record for a PID: the fields Claude Code 2.1.283 writes, overridable. */
export function sessionRecord(pid: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    pid,
    sessionId: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    cwd: '/home/user/project',
    startedAt: 1_794_217_730_000,
    version: '2.1.283',
    kind: 'interactive',
    entrypoint: 'cli',
    status: 'idle',
    ...fields,
  };
}
