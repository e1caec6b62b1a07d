/**
 * Bounds on JSON values that arrive already parsed (Applications from the API server, inline
 * templates): their depth and number of values, checked without recursion, so a hostile value is
 * refused before code that recurses over it (planning, translating, diffing) overflows or stalls.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Path } from './path.js';

export type JsonBounds = {
  /** Deepest nesting of lists and maps accepted. */
  readonly maxDepth: number;
  /** Values (scalars, lists, maps) accepted in all. */
  readonly maxNodes: number;
};

/** Bounds for a Kubernetes object: etcd keeps objects under 1.5 MiB, real ones nest far less than 200. */
export const DEFAULT_JSON_BOUNDS: JsonBounds = { maxDepth: 200, maxNodes: 1_000_000 };

/** Where a value goes over its bounds (the path is cut to its first 8 steps). */
export type BoundsProblem = { readonly path: Path; readonly message: string };

/**
 * `value` itself when it is within `bounds`, else the first place it goes over.
 * Guarantees: iterative (an explicit stack), stops at the first excess, reads own properties only.
 */
export const withinBounds = <T>(value: T, bounds: JsonBounds): E.Either<BoundsProblem, T> => {
  const stack: Frame[] = [{ value, depth: 0 }];
  let nodes = 0;
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    nodes += 1;
    if (nodes > bounds.maxNodes)
      return E.left({ path: [], message: `more than ${bounds.maxNodes} values: too large to handle` });
    const current = frame.value;
    if (typeof current !== 'object' || current === null) continue;
    if (frame.depth >= bounds.maxDepth)
      return E.left({
        path: pathOf(frame).slice(0, 8),
        message: `nested deeper than ${bounds.maxDepth} levels: Kubernetes objects nest far less`,
      });
    const depth = frame.depth + 1;
    const parent = frame;
    if (Array.isArray(current))
      current.forEach((item: unknown, step) => stack.push({ value: item, depth, parent, step }));
    else for (const [step, item] of Object.entries(current)) stack.push({ value: item, depth, parent, step });
  }
  return E.right(value);
};

// Parent links instead of a path per value: the path is only built for the one value reported.
type Frame = {
  readonly value: unknown;
  readonly depth: number;
  readonly parent?: Frame;
  readonly step?: string | number;
};

const pathOf = (frame: Frame): Path => {
  const steps: Array<string | number> = [];
  for (let at: Frame | undefined = frame; at?.step !== undefined; at = at.parent) steps.push(at.step);
  return steps.reverse();
};
