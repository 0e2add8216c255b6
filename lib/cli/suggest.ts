/** "Did you mean …?": the one known name closest to a mistyped one, as git and cargo suggest. */

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]![j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate a typo most likely meant, or undefined when none is close: a unique name that starts
 * with it (`--conf` → `--config-dir`), else the nearest within a third of its length (at most 2 edits),
 * when no other candidate is as near. A guess that could be either of two names is not offered.
 */
export function closest(typed: string, candidates: readonly string[]): string | undefined {
  // Hostile input (a 100 KB argument) must not cost a quadratic table.
  if (typed.length === 0 || typed.length > 64) return undefined;
  const lower = typed.toLowerCase();
  const prefixed = lower.length >= 3 ? candidates.filter((c) => c.startsWith(lower)) : [];
  if (prefixed.length === 1) return prefixed[0];
  const limit = Math.min(2, Math.max(1, Math.floor(lower.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  let tied = false;
  for (const c of candidates) {
    const d = distance(lower, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
      tied = false;
    } else if (d === bestDistance) {
      tied = true;
    }
  }
  return bestDistance <= limit && !tied ? best : undefined;
}
