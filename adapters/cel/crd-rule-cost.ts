/**
 * The estimated cost of a CRD rule, in the spirit of the API server's estimator: every AST node
 * costs 1, and what a comprehension (`all`, `exists`, `exists_one`, `map`, `filter`) evaluates per
 * element is multiplied by the most elements its receiver can have: the schema's `maxItems` /
 * `maxProperties` when the receiver is a field of `self`, else what a 3 MiB request could hold.
 * Nested comprehensions over unbounded lists are what this refuses, as the server does.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../core/json/json.js';

/** A node of the library's AST (`op`, `args`), read structurally. */
export type CelNode = { readonly op: string; args: unknown };

const isCelNode = (value: unknown): value is CelNode =>
  typeof value === 'object' && value !== null && 'op' in value && typeof value.op === 'string' && 'args' in value;

export const celNode = (value: unknown): CelNode | undefined => (isCelNode(value) ? value : undefined);

const COMPREHENSIONS: ReadonlySet<string> = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** Most elements of a list or map a 3 MiB request can hold (two bytes each, at the least). */
const UNBOUNDED_ELEMENTS = 1_572_864;

const children = (node: unknown): ReadonlyArray<unknown> => {
  if (Array.isArray(node)) return node;
  const parsed = celNode(node);
  return parsed === undefined ? [] : [parsed.args];
};

export const mentionsOldSelf = (node: unknown): boolean => {
  const parsed = celNode(node);
  if (parsed?.op === 'id' && parsed.args === 'oldSelf') return true;
  return children(node).some(mentionsOldSelf);
};

/** The schema a `self.a.b` chain reads, when the receiver is one. */
const schemaAt = (node: unknown, schema: JsonObject): JsonValue | undefined => {
  const parsed = celNode(node);
  if (parsed === undefined) return undefined;
  if (parsed.op === 'id') return parsed.args === 'self' ? schema : undefined;
  if ((parsed.op === '.' || parsed.op === '.?') && Array.isArray(parsed.args) && typeof parsed.args[1] === 'string') {
    const parent = schemaAt(parsed.args[0], schema);
    const properties = isJsonObject(parent) ? getOwn(parent, 'properties') : undefined;
    const property = isJsonObject(properties) ? getOwn(properties, parsed.args[1]) : undefined;
    return property ?? (isJsonObject(parent) ? getOwn(parent, 'additionalProperties') : undefined);
  }
  return undefined;
};

const elementBound = (receiver: unknown, schema: JsonObject): number => {
  const target = schemaAt(receiver, schema);
  const bound = isJsonObject(target) ? (getOwn(target, 'maxItems') ?? getOwn(target, 'maxProperties')) : undefined;
  return typeof bound === 'number' ? Math.max(bound, 1) : UNBOUNDED_ELEMENTS;
};

/** `Array.isArray` that narrows to a list of unknown, not of `any`. */
const isList = (value: unknown): value is ReadonlyArray<unknown> => Array.isArray(value);

/** The estimated cost of evaluating `node` once, at a schema node. */
export const comprehensionCost = (node: unknown, schema: JsonObject): number => {
  const parsed = celNode(node);
  if (parsed?.op === 'rcall' && isList(parsed.args) && COMPREHENSIONS.has(String(parsed.args[0]))) {
    const [, receiver, body] = parsed.args;
    return 1 + comprehensionCost(receiver, schema) + elementBound(receiver, schema) * comprehensionCost(body, schema);
  }
  return (
    (parsed === undefined ? 0 : 1) +
    children(node).reduce<number>((sum, child) => sum + comprehensionCost(child, schema), 0)
  );
};
