/** "Did you mean …?": the known name closest to a misspelt one, by edit distance. */

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions, so `adpot` is one
 * edit from `adopt`), case-insensitive: a wrong case is still the closest name.
 */
export const editDistance = (a: string, b: string): number => {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const rows = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= x.length; i++) {
    const row = rows[i] ?? [];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(x.length, y.length);
};

/** Names longer than this get no suggestion: no field or kind is that long, and the distance is quadratic. */
const LONGEST_SUGGESTED = 128;

/**
 * Edit-distance cells a caller may spend on suggestions (a memo the caller owns): a tenant's
 * object can have thousands of unknown fields under a schema of thousands of properties, and
 * without a budget that is millions of distances (a 195 KB CRD took 110 s). Once spent, no more
 * suggestions are made.
 */
export type SuggestionBudget = { remaining: number };

/** About 0.1 s of distances. */
export const suggestionBudget = (): SuggestionBudget => ({ remaining: 1_000_000 });

/**
 * The candidate closest to `name`, when it is close enough to be a likely typo: at most one edit
 * per three characters of the candidate (at least one), and fewer edits than its length (`b` is
 * no typo of `a`). Ties go to the earlier candidate. A candidate whose length differs by more
 * than the edits it allows cannot be close enough and is skipped without a distance.
 */
export const closestName = (
  name: string,
  candidates: ReadonlyArray<string>,
  budget: SuggestionBudget = suggestionBudget(),
): string | undefined => {
  if (name.length > LONGEST_SUGGESTED || budget.remaining <= 0) return undefined;
  let best: { readonly candidate: string; readonly distance: number } | undefined;
  for (const candidate of candidates) {
    const allowed = Math.max(1, Math.floor(candidate.length / 3));
    if (Math.abs(candidate.length - name.length) > allowed || candidate.length > LONGEST_SUGGESTED) continue;
    budget.remaining -= (name.length + 1) * (candidate.length + 1);
    if (budget.remaining < 0) return best?.candidate;
    const distance = editDistance(name, candidate);
    const likely = distance <= allowed && distance < candidate.length;
    if (likely && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
};
