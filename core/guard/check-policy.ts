/**
 * Guards fail closed (issue 36): every kind a rule names must be a kind the schema catalog knows
 * (Kubernetes' built-in kinds, the CRDs given or served), every path a field of one of those
 * kinds, and every rule able to match some action. A misspelt `Deploymnet` or `spec.selectr`
 * would otherwise guard nothing and let the write it was written to stop go through.
 * Pure: a decoded policy and a catalog in, issues (path into the guard document, message) out.
 */
import { getOwn, isJsonObject, type JsonObject } from '../json/json.js';
import { closestName } from '../model/closest-name.js';
import type { Issue } from '../model/decode.js';
import type { KindSchema, SchemaCatalog } from '../schema/catalog.js';
import { resolved } from '../schema/openapi.js';
import { parseFieldPath, type DenySelector, type GuardPolicy } from './policy.js';

const groupOf = (apiVersion: string): string => {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
};

/** Every kind of the catalog as `group/Kind` (`core/Kind` for the core group) with its schemas. */
const kindsOf = (catalog: SchemaCatalog): ReadonlyMap<string, ReadonlyArray<KindSchema>> => {
  const kinds = new Map<string, KindSchema[]>();
  for (const [apiVersion, byKind] of catalog.kinds)
    for (const [kind, schema] of byKind) {
      const key = `${groupOf(apiVersion) || 'core'}/${kind}`;
      kinds.set(key, [...(kinds.get(key) ?? []), schema]);
    }
  return kinds;
};

const kindPart = (qualified: string): string => qualified.slice(qualified.indexOf('/') + 1);

/** The catalog's `group/Kind` keys a rule's kind pattern names (`*`: all of them). */
const matchedKinds = (pattern: string, known: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (pattern === '*') return known;
  return pattern.includes('/')
    ? known.filter((key) => key === pattern)
    : known.filter((key) => kindPart(key) === pattern);
};

const unknownKindMessage = (pattern: string, known: ReadonlyArray<string>): string => {
  const candidates = pattern.includes('/') ? known : [...new Set(known.map(kindPart))];
  const closest = closestName(pattern, candidates);
  return `unknown kind ${JSON.stringify(pattern)}${closest === undefined ? '' : ` (did you mean ${JSON.stringify(closest)}?)`}: a rule naming no known kind guards nothing; name a built-in kind, or give the CustomResourceDefinition of a custom one (--crd or -f)`;
};

/** Whether the schema has the field at `steps` (maps and preserved unknown fields take any key). */
const hasField = (schema: JsonObject, steps: ReadonlyArray<string>, schemas: JsonObject, depth = 0): boolean => {
  const [step, ...rest] = steps;
  if (step === undefined || depth > 64) return true;
  const s = resolved(schema, schemas);
  const properties = getOwn(s, 'properties');
  const property = isJsonObject(properties) ? getOwn(properties, step) : undefined;
  if (isJsonObject(property)) return hasField(property, rest, schemas, depth + 1);
  const items = getOwn(s, 'items');
  if (isJsonObject(items) && /^\d+$/.test(step)) return hasField(items, rest, schemas, depth + 1);
  const additional = getOwn(s, 'additionalProperties');
  if (isJsonObject(additional)) return hasField(additional, rest, schemas, depth + 1);
  if (additional === true || getOwn(s, 'x-kubernetes-preserve-unknown-fields') === true) return true;
  // A schema that says nothing of its shape (no type, properties or items) takes anything.
  return !isJsonObject(properties) && !isJsonObject(items) && getOwn(s, 'type') === undefined;
};

/** The field names one step below `steps` in the schema, for "did you mean". */
const fieldNames = (schema: JsonObject, steps: ReadonlyArray<string>, schemas: JsonObject): ReadonlyArray<string> => {
  let current: JsonObject | undefined = schema;
  for (const step of steps) {
    const s: JsonObject = resolved(current, schemas);
    const properties = getOwn(s, 'properties');
    const items = getOwn(s, 'items');
    const next = isJsonObject(properties) ? getOwn(properties, step) : /^\d+$/.test(step) ? items : undefined;
    if (!isJsonObject(next)) return [];
    current = next;
  }
  const properties = getOwn(resolved(current, schemas), 'properties');
  return isJsonObject(properties) ? Object.keys(properties) : [];
};

/** The closest existing path to a missing one: the first step that is missing, corrected. */
const closestPath = (
  steps: ReadonlyArray<string>,
  schemas: ReadonlyArray<KindSchema>,
  catalog: SchemaCatalog,
): string | undefined => {
  for (let i = 0; i < steps.length; i++) {
    const head = steps.slice(0, i + 1);
    if (schemas.some(({ schema }) => hasField(schema, head, catalog.schemas))) continue;
    const names = schemas.flatMap(({ schema }) => fieldNames(schema, steps.slice(0, i), catalog.schemas));
    const fixed = closestName(steps[i] ?? '', [...new Set(names)]);
    return fixed === undefined ? undefined : [...steps.slice(0, i), fixed, ...steps.slice(i + 1)].join('.');
  }
  return undefined;
};

const pathIssues = (
  deny: DenySelector,
  at: string,
  kinds: ReadonlyArray<string>,
  all: ReadonlyMap<string, ReadonlyArray<KindSchema>>,
  catalog: SchemaCatalog,
): ReadonlyArray<Issue> =>
  (deny.paths ?? []).flatMap((path, index) => {
    const steps = parseFieldPath(path) ?? [];
    const schemas = kinds.flatMap((key) => all.get(key) ?? []);
    if (schemas.length === 0 || schemas.some(({ schema }) => hasField(schema, steps, catalog.schemas))) return [];
    const closest = closestPath(steps, schemas, catalog);
    const whose = deny.kinds === undefined || deny.kinds.includes('*') ? 'any known kind' : deny.kinds.join(', ');
    return [
      {
        path: `${at}.paths[${index}]`,
        message: `${whose} has no field ${JSON.stringify(path)}${closest === undefined ? '' : ` (did you mean ${JSON.stringify(closest)}?)`}: a path no object has guards nothing`,
      },
    ];
  });

/** Paths match only patches and recreations: with only creates and deletes, the rule matches nothing. */
const unmatchableIssues = (deny: DenySelector, at: string): ReadonlyArray<Issue> =>
  deny.paths !== undefined &&
  deny.actions !== undefined &&
  !deny.actions.some((action) => action === 'patch' || action === 'recreate')
    ? [
        {
          path: `${at}.paths`,
          message: `paths match only patch and recreate actions, and this rule names only ${deny.actions.join(', ')}: it can match nothing; add patch or recreate to actions, or drop paths`,
        },
      ]
    : [];

/**
 * With an open catalog (the operator: built-in kinds only, the cluster's CRDs unknown), whether an
 * unknown kind is still certainly wrong: a group the catalog knows whole, or a bare kind one edit
 * or so from a known one (`Deploymnet`). Other unknown kinds may be served: not refused.
 */
const certainlyUnknown = (pattern: string, known: ReadonlyArray<string>, catalog: SchemaCatalog): boolean => {
  const slash = pattern.indexOf('/');
  if (slash < 0) return closestName(pattern, [...new Set(known.map(kindPart))]) !== undefined;
  const group = pattern.slice(0, slash);
  return catalog.completeGroups.has(group === 'core' ? '' : group);
};

const denyIssues = (
  deny: DenySelector,
  at: string,
  all: ReadonlyMap<string, ReadonlyArray<KindSchema>>,
  catalog: SchemaCatalog,
  open: boolean,
): ReadonlyArray<Issue> => {
  const known = [...all.keys()];
  const unknown = (deny.kinds ?? []).flatMap((pattern, index) =>
    matchedKinds(pattern, known).length > 0 ? [] : [{ pattern, index }],
  );
  const kindIssues = unknown
    .filter(({ pattern }) => !open || certainlyUnknown(pattern, known, catalog))
    .map(({ pattern, index }) => ({ path: `${at}.kinds[${index}]`, message: unknownKindMessage(pattern, known) }));
  const kinds = deny.kinds === undefined ? known : deny.kinds.flatMap((pattern) => matchedKinds(pattern, known));
  // Open: paths are checked only when every kind the rule names is known (a custom kind's fields are not).
  const checkPaths = !open || (deny.kinds !== undefined && unknown.length === 0 && !deny.kinds.includes('*'));
  return [
    ...kindIssues,
    ...unmatchableIssues(deny, at),
    ...(checkPaths ? pathIssues(deny, at, kinds, all, catalog) : []),
  ];
};

/**
 * Every rule of `policy` that names a kind the catalog does not know, a path none of its kinds
 * has, or can match nothing; each issue's path points into the guard document
 * (`rules[0].deny.kinds[1]`) and its message says the closest known name. `open`: the catalog
 * holds the built-in kinds only (the operator, whose cluster may serve any CRD): an unknown kind
 * is refused only when certainly wrong, and paths only of rules whose kinds are all known.
 */
export const guardPolicyIssues = (
  policy: GuardPolicy,
  catalog: SchemaCatalog,
  options: { readonly open?: boolean } = {},
): ReadonlyArray<Issue> => {
  const all = kindsOf(catalog);
  return policy.rules.flatMap((rule, index) =>
    'deny' in rule ? denyIssues(rule.deny, `rules[${index}].deny`, all, catalog, options.open === true) : [],
  );
};
