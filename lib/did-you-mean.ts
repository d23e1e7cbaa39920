/** Edit distance (insertions, deletions, substitutions, adjacent swaps), for "did you mean". */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate a typo most likely meant: the closest within a third of its
 * length (at least 1, at most 3 edits), or one that starts with it.
 */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; score: number } | undefined;
  for (const name of candidates) {
    const score = name.startsWith(input) && input.length >= 3 ? 0.5 : distance(input, name);
    if (score <= Math.min(3, Math.max(1, Math.floor(name.length / 3))) && (!best || score < best.score)) best = { name, score };
  }
  return best?.name;
}
