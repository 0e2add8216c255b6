/**
 * The read and guard API rejects a wrong argument type with a TypeError that names it, before any
 * folder is read: a guard called with a typo must not answer, and must not answer "no".
 */
import { chmodSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as lib from '../../../lib/index.js';
import { makeRegistry, sessionRecord, type RegistryFixture } from '../../helpers/registry-fixture.js';
import { endAll, spawnSleep, type Spawned } from '../../helpers/processes.js';
import { READERS } from './as-nobody.js';

type Reader = (configDirs?: unknown, options?: unknown) => unknown;

let reg: RegistryFixture;
let live: Spawned;

beforeAll(() => {
  reg = makeRegistry('cps-guard-options-');
  live = spawnSleep();
  reg.write(live.pid, sessionRecord(live.pid));
});
afterAll(async () => {
  await live.end();
  await endAll();
  reg.remove();
});

/** What a call did: its value, or the class and message of what it threw (sync) or rejected with (async). */
async function outcome(reader: string, configDirs: unknown, options: unknown): Promise<{ threw?: string; message?: string }> {
  try {
    await (lib[reader as keyof typeof lib] as Reader)(configDirs, options);
    return {};
  } catch (error) {
    return { threw: (error as Error).constructor.name, message: (error as Error).message };
  }
}

const BAD_OPTIONS: [string, unknown, RegExp][] = [
  ['a string', 'fast', /^options must be an object or undefined, got the string "fast"$/],
  ['a number', 25, /^options must be an object/],
  ['null', null, /^options must be an object or undefined, got null$/],
  ['an array', [], /^options must be an object or undefined, got an array$/],
  ['retryDelayMs as a string', { retryDelayMs: '5' }, /^options\.retryDelayMs must be a number of milliseconds from 0 to 2147483647, got the string "5"$/],
  ['retryDelayMs NaN', { retryDelayMs: Number.NaN }, /^options\.retryDelayMs .* got NaN$/],
  ['retryDelayMs negative', { retryDelayMs: -1 }, /^options\.retryDelayMs .* got -1$/],
  ['retryDelayMs Infinity', { retryDelayMs: Infinity }, /^options\.retryDelayMs .* got Infinity$/],
  ['retryDelayMs beyond setTimeout', { retryDelayMs: 2 ** 31 }, /^options\.retryDelayMs .* got 2147483648$/],
  ['retryDelayMs a boolean', { retryDelayMs: true }, /^options\.retryDelayMs .* got a boolean$/],
  ['env a string', { env: 'CLAUDE_CONFIG_DIR=/x' }, /^options\.env must be an object \(like process\.env\) or undefined, got the string/],
  ['env null', { env: null }, /^options\.env must be an object .* got null$/],
  ['env an array', { env: ['/x'] }, /^options\.env must be an object .* got an array$/],
  ['env.CLAUDE_CONFIG_DIR a number', { env: { CLAUDE_CONFIG_DIR: 7 } }, /^options\.env\.CLAUDE_CONFIG_DIR must be a string or undefined, got 7$/],
];

const BAD_DIRS: [string, unknown][] = [
  ['an empty string (the current folder)', ''],
  ['an array holding an empty string', ['/tmp', '']],
  ['a path with a NUL', '/tmp/a\0b'],
  ['a number', 5],
  ['an object', { dir: '/tmp' }],
  ['an array holding a number', ['/tmp', 5]],
  ['null', null],
];

describe.each(READERS)('%s: a wrong argument is a TypeError', (reader) => {
  it.each(BAD_OPTIONS)('options: %s', async (_what, options, message) => {
    const result = await outcome(reader, reg.configDir, options);
    expect(result.threw).toBe('TypeError');
    expect(result.message).toMatch(message);
  });

  it.each(BAD_DIRS)('configDirs: %s', async (_what, configDirs) => {
    const result = await outcome(reader, configDirs, { retryDelayMs: 0 });
    expect(result).toMatchObject({ threw: 'TypeError', message: expect.stringMatching(/^configDirs/) });
  });

  it('good options of every documented shape are accepted', async () => {
    for (const options of [undefined, {}, { retryDelayMs: 0 }, { retryDelayMs: 2 ** 31 - 1, env: {} }, { env: { CLAUDE_CONFIG_DIR: reg.configDir } }]) {
      expect(await outcome(reader, reg.configDir, options), JSON.stringify(options)).toEqual({});
    }
    // env decides the default config dir: with no configDirs, env.CLAUDE_CONFIG_DIR is read.
    const fn = lib[reader] as Reader;
    const viaEnv = JSON.stringify(await fn(undefined, { retryDelayMs: 0, env: { CLAUDE_CONFIG_DIR: reg.configDir } }));
    if (reader.startsWith('hasLive')) expect(viaEnv).toBe('true');
    else expect(viaEnv).toContain(`"pid":${live.pid}`);
  });
});

describe('order of checks', () => {
  it('a wrong option type is reported before the folder is read (even an unlistable one)', () => {
    const file = reg.write(1, 'x', 'not-a-folder');
    chmodSync(file, 0o600);
    // A config dir that is a file throws RegistryUnreadableError when read: the TypeError wins.
    expect(() => lib.hasLiveInteractive(file, { retryDelayMs: 'soon' as unknown as number })).toThrow(TypeError);
    expect(() => lib.hasLiveInteractive(file, { retryDelayMs: 0 })).toThrow(lib.RegistryUnreadableError);
  });

  it('defaultConfigDir rejects a CLAUDE_CONFIG_DIR that is not a string, and reads an empty one as unset', () => {
    expect(() => lib.defaultConfigDir({ CLAUDE_CONFIG_DIR: 5 as unknown as string })).toThrow(TypeError);
    expect(() => lib.defaultConfigDir(null as unknown as NodeJS.ProcessEnv)).toThrow(/env must be an object/);
    expect(lib.defaultConfigDir({ CLAUDE_CONFIG_DIR: '' })).toBe(lib.defaultConfigDir({}));
    expect(lib.defaultConfigDir({})).toMatch(/^\/.*\/\.claude$/);
  });
});
