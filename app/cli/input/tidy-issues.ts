/**
 * Decoding reports every alternative a value failed (io-ts unions and intersections): keep the
 * most specific issue per place, so the user reads one line per actual problem.
 */
import type { Issue } from '../../../core/internal.js';

const isAncestor = (ancestor: string, path: string): boolean =>
  ancestor !== path && (ancestor === '' || path.startsWith(`${ancestor}.`) || path.startsWith(`${ancestor}[`));

/** Drops issues about a parent when its children have issues, then keeps the shortest message per path. */
export const tidyIssues = (issues: ReadonlyArray<Issue>): ReadonlyArray<Issue> => {
  const specific = issues.filter((issue) => !issues.some((other) => isAncestor(issue.path, other.path)));
  const byPath = new Map<string, Issue>();
  for (const issue of specific) {
    const kept = byPath.get(issue.path);
    if (kept === undefined || issue.message.length < kept.message.length) byPath.set(issue.path, issue);
  }
  return [...byPath.values()];
};
