/** Shared by the statusline suites: waiting for a condition, and cleanups run after each test. */
import { readFileSync } from 'node:fs';
import { afterEach } from 'vitest';

/** Polls `check` every 20 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A file's text, or '' while it does not exist. */
export function textOf(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Cleanups registered by a test run after it, last first (processes before the folders they use). */
export function cleanupsAfterEach(): Array<() => void | Promise<void>> {
  const cleanups: Array<() => void | Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  });
  return cleanups;
}
