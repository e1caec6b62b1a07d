/**
 * Bounds on what an embedder's `desired` may return and how long it may take: a cyclic value would
 * overflow the decoder's stack and an oversized one the operator's heap, on every reconcile of that
 * object. Either is reported on the object (`Stalled`, naming the bound) instead of crashing the
 * reconcile into an endless back-off with nothing on the object.
 */

export type DesiredLimits = {
  /**
   * Most bytes the returned value may take as JSON (default 16 MiB; the API server takes at most ~3 MiB per object).
   */
  readonly maxBytes: number;
  /** Deepest nesting (default 100: Kubernetes objects nest a few dozen levels at most). */
  readonly maxDepth: number;
  /**
   * Most milliseconds one call may take (default 1 000). `desired` is synchronous: while it runs,
   * nothing else of the operator does (lease renewals, watches), so a slow one is a defect too.
   */
  readonly maxMs: number;
};

export const DEFAULT_DESIRED_LIMITS: DesiredLimits = { maxBytes: 16 * 1024 * 1024, maxDepth: 100, maxMs: 1_000 };

type Walk = { bytes: number; readonly ancestors: Set<object> };

// JSON text size, counted without building the text: a walk that stops at the first bound crossed.
const walk = (value: unknown, path: string, depth: number, state: Walk, limits: DesiredLimits): string | undefined => {
  if (depth > limits.maxDepth) return `nests deeper than ${limits.maxDepth} levels at ${path}`;
  if (value === null || typeof value === 'boolean') state.bytes += 5;
  else if (typeof value === 'number') {
    if (!Number.isFinite(value)) return `is not JSON at ${path}: ${value} (JSON has finite numbers only)`;
    state.bytes += String(value).length;
  } else if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint')
    return `is not JSON at ${path}: a ${typeof value} (JSON would drop or reject it silently)`;
  else if (typeof value === 'string') state.bytes += value.length + 2;
  else if (typeof value === 'object') {
    if (state.ancestors.has(value)) return `is cyclic: ${path} refers back to one of its parents`;
    state.ancestors.add(value);
    const entries: ReadonlyArray<[string, unknown]> = Array.isArray(value)
      ? value.map((item, index): [string, unknown] => [`[${index}]`, item])
      : Object.entries(value).map(([key, item]): [string, unknown] => [`.${key}`, item]);
    for (const [step, item] of entries) {
      state.bytes += step.length + 2;
      if (state.bytes > limits.maxBytes) break;
      const problem = walk(item, `${path}${step}`, depth + 1, state, limits);
      if (problem !== undefined) return problem;
    }
    state.ancestors.delete(value);
  }
  return state.bytes > limits.maxBytes
    ? `is larger than ${limits.maxBytes} bytes as JSON (found at ${path}): split the object or return less`
    : undefined;
};

/** Why `value` (what `desired` returned) cannot be used, or undefined when it is within the bounds. */
export const desiredProblem = (value: unknown, limits: DesiredLimits = DEFAULT_DESIRED_LIMITS): string | undefined =>
  walk(value, 'desired', 0, { bytes: 0, ancestors: new Set() }, limits);
