/** The guard's exit codes (docs/guard.md). Usage errors (2) are the CLI's own; every failure is ≥ 2, never 1. */
export const GUARD_EXIT = Object.freeze({ yes: 0, no: 1, usage: 2, cannotTell: 3, error: 4 });
