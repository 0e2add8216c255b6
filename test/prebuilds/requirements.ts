/**
 * What a prebuild check needs from this machine, and what happens when it is missing: one line saying
 * why the check is skipped on a workstation, a failing test on CI (CI=true), where a skipped check
 * would let an unchecked prebuild ship.
 */
import { it } from 'vitest';

export const onCi = process.env.CI === 'true' || process.env.CI === '1';

/**
 * Registers, when `missing` is non-empty, one test that fails on CI and is skipped elsewhere, titled
 * with the reason; returns true when the checks can run. `notHere` (another OS or architecture, where
 * the check has no meaning) is a skip on CI too.
 */
export function requireAll(what: string, missing: readonly string[], notHere?: string): boolean {
  if (notHere !== undefined) {
    it.skip(`${what}: not on ${process.platform}-${process.arch} (${notHere})`, () => {});
    return false;
  }
  if (missing.length === 0) return true;
  const reason = `${what} cannot run here: ${missing.join('; ')}`;
  if (onCi) {
    it(reason, () => {
      throw new Error(`${reason} (CI=true: .ci/run installs these, so this fails instead of skipping)`);
    });
  } else {
    it.skip(reason, () => {});
  }
  return false;
}
