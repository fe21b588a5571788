// The nearest names to a mistyped one: commands (the command_not_found hook), flags and subcommands (a
// usage error's "did you mean"), profiles, countries and currencies. Kept apart from help.ts so that every
// command's start does not load it.

/** Levenshtein distance, for the nearest command names. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The names nearest to a mistyped one (at most three, within two edits or sharing its start). */
export function nearest(typed: string, names: string[]): string[] {
  return names
    .map((n) => ({ n, d: distance(typed, n) }))
    .filter(({ n, d }) => d <= 2 || (typed.length >= 3 && n.startsWith(typed)))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map(({ n }) => n);
}
