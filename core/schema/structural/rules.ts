/**
 * `x-kubernetes-validations` (CEL rules) walked as the server walks them: every node with rules,
 * `self` its value, `oldSelf` the value at the same place in the stored object on an update
 * (objects correlate by key, `map` lists by their keys; other lists do not correlate, so
 * transition rules there do not run). The rules themselves run behind this port (a CEL library
 * is no core dependency): adapters/cel/crd-rules.ts.
 */
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../json/json.js';
import type { ErrorCause } from '../../ports/errors.js';
import { indexPath, memberSchema } from './walk.js';
import { valueKey } from './value-key.js';

/** One node's rules to check. */
export type RuleCheck = {
  /** The node's schema (its `x-kubernetes-validations`, and the types `self` is read with). */
  readonly schema: JsonObject;
  readonly self: JsonValue;
  /** The stored value at the same place, on an update when it correlates. */
  readonly oldSelf: JsonValue | undefined;
  /** The node's field path (`spec.replicas`; `''` at the root). */
  readonly path: string;
  /** What is left of the request's cost budget; each evaluation is charged to it. */
  readonly budget: { remaining: number };
};

/** The cost budget of one request's rules (kube-apiserver's RuntimeCELCostBudget). */
export const RULES_RUNTIME_BUDGET = 10_000_000;

/** The CEL rules port: the causes of one node's failing rules, worded as the server words them. */
export type SchemaRules = { readonly check: (node: RuleCheck) => ReadonlyArray<ErrorCause> };

/** The rules port plus what checks a CRD's own rules (compilation, estimated cost), at paths under `root`. */
export type CrdRules = SchemaRules & {
  readonly schemaProblems: (schema: JsonValue, root: string) => ReadonlyArray<ErrorCause>;
};

const correlatedItem = (item: JsonValue, old: JsonValue | undefined, schema: JsonObject): JsonValue | undefined => {
  const keys = getOwn(schema, 'x-kubernetes-list-map-keys');
  if (getOwn(schema, 'x-kubernetes-list-type') !== 'map' || !isJsonArray(keys) || !isJsonArray(old)) return undefined;
  if (!isJsonObject(item)) return undefined;
  const identity = (value: JsonObject): string =>
    keys.map((key) => (typeof key === 'string' ? valueKey(getOwn(value, key) ?? null) : '')).join('\u0000');
  const wanted = identity(item);
  return old.find((candidate) => isJsonObject(candidate) && identity(candidate) === wanted);
};

const walkRules = (
  rules: SchemaRules,
  value: JsonValue,
  old: JsonValue | undefined,
  schema: JsonObject,
  path: string,
  causes: ErrorCause[],
  budget: { remaining: number },
): void => {
  if (budget.remaining < 0) return;
  if (isJsonArray(getOwn(schema, 'x-kubernetes-validations')))
    causes.push(...rules.check({ schema, self: value, oldSelf: old, path, budget }));
  if (isJsonArray(value)) {
    const items = getOwn(schema, 'items');
    if (isJsonObject(items))
      value.forEach((item, index) =>
        walkRules(rules, item, correlatedItem(item, old, schema), items, indexPath(path, index), causes, budget),
      );
  } else if (isJsonObject(value))
    for (const key of Object.keys(value)) {
      const member = memberSchema(schema, key, path);
      const oldMember = isJsonObject(old) ? getOwn(old, key) : undefined;
      if (member !== undefined)
        walkRules(rules, getOwn(value, key) ?? null, oldMember, member.schema, member.path, causes, budget);
    }
};

/** Every failing rule of the object, parents before children. */
export const ruleCauses = (
  rules: SchemaRules,
  object: JsonObject,
  old: JsonObject | undefined,
  schema: JsonObject,
): ReadonlyArray<ErrorCause> => {
  const causes: ErrorCause[] = [];
  walkRules(rules, object, old, schema, '', causes, { remaining: RULES_RUNTIME_BUDGET });
  return causes;
};
