/**
 * Turns what the YAML parser built (maps as `Map`, so no key is ever assigned onto a plain
 * object) into plain JSON: keys become own properties (`__proto__` stays data), only JSON values
 * pass, nesting depth and total size are bounded.
 */
import * as E from 'fp-ts/lib/Either.js';
import { objectFromEntries, type JsonValue, type Path } from '../../../core/internal.js';
import type { InputLimits } from './limits.js';

/** A problem at a path of the document. */
export type Problem = { readonly path: Path; readonly message: string };

class Rejected extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
  }
}

const describe = (value: unknown): string =>
  value instanceof Uint8Array
    ? 'binary data (!!binary)'
    : value instanceof Date
      ? 'a timestamp'
      : value instanceof Set
        ? 'a set (!!set)'
        : typeof value;

/** The JSON value of a parsed YAML document, or the first problem found (with its path). */
export const toJson = (
  value: unknown,
  limits: Pick<InputLimits, 'maxDepth' | 'maxNodes'>,
): E.Either<Problem, JsonValue> => {
  let nodes = 0;
  const convert = (current: unknown, path: Path): JsonValue => {
    nodes += 1;
    if (nodes > limits.maxNodes)
      throw new Rejected({
        path: [],
        message: `the document holds more than ${limits.maxNodes} values (after expanding aliases): split it or remove the repetition`,
      });
    if (path.length > limits.maxDepth)
      throw new Rejected({
        path: path.slice(0, 8),
        message: `nesting is deeper than ${limits.maxDepth} levels: Kubernetes objects nest far less, check the file`,
      });
    if (current === null || typeof current === 'string' || typeof current === 'boolean') return current;
    if (typeof current === 'number') {
      if (Number.isFinite(current)) return current;
      throw new Rejected({ path, message: `${String(current)} is not a JSON number: quote it to make it a string` });
    }
    if (Array.isArray(current)) return current.map((item, index) => convert(item, [...path, index]));
    if (current instanceof Map)
      return objectFromEntries(
        [...current.entries()].map(([key, item]) => {
          const name = keyOf(key, path);
          return [name, convert(item, [...path, name])] as const;
        }),
      );
    throw new Rejected({
      path,
      message: `${describe(current)} is not a JSON value: Kubernetes objects hold only strings, numbers, booleans, null, lists and maps`,
    });
  };
  try {
    return E.right(convert(value, []));
  } catch (error) {
    if (error instanceof Rejected) return E.left(error.problem);
    if (error instanceof RangeError)
      return E.left({
        path: [],
        message: 'the document nests too deeply to read: Kubernetes objects nest far less, check the file',
      });
    throw error;
  }
};

// sigs.k8s.io/yaml (kubectl) turns scalar keys into strings; a list or map as a key has no JSON form.
const keyOf = (key: unknown, path: Path): string => {
  if (typeof key === 'string') return key;
  if (key === null || typeof key === 'number' || typeof key === 'boolean') return String(key);
  throw new Rejected({ path, message: 'a map key is itself a list or map, which JSON cannot hold: use a string key' });
};
