/** Validation of observer schemas (docs/behaviour.md §2): every problem, each with its JSON path. */
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, hasOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import { showPath, type Path } from '../json/path.js';
import type { Issue } from '../model/decode.js';
import {
  isObservedMarker,
  LIST_MAX,
  LIST_MIN,
  withNullMarkers,
  type ObserverSchema,
} from '../model/observer-schema.js';
import type { Resource } from '../model/resource.js';
import { observerSchemaError, type ObserverSchemaError } from '../schema/errors.js';
import { markIssues, SENSITIVE_MARK } from '../sensitive/marked.js';
import { schemaKeyOf } from '../schema/lookup.js';
import { jsonText } from '../json/text.js';

const ROOT = 'spec.observerSchema';

const issue = (path: Path, message: string): Issue => ({ path: showPath(path, ROOT), message });

/**
 * Checks custom observer schemas against the manifest they observe.
 *
 * Guarantees: on success the schemas can be walked without further checks, in the internal
 * form (every observed marker `null`, see `withNullMarkers`).
 * Errors: every problem found, not just the first (missing identification, leaves that are no
 * marker, empty objects and schemas observing nothing — what a merge patch leaves of `null`
 * markers —, malformed list controls, empty lists, unmatched or duplicate schemas).
 */
export const validateObserverSchema = (args: {
  readonly manifest: ReadonlyArray<JsonValue>;
  readonly observerSchema: ReadonlyArray<JsonValue> | undefined;
}): E.Either<ObserverSchemaError, ReadonlyArray<ObserverSchema>> => {
  // Both come from user documents: a non-list is an error to report, never a crash.
  if (args.observerSchema !== undefined && !isJsonArray(args.observerSchema))
    return E.left(observerSchemaError([{ path: ROOT, message: 'observerSchema must be a list of schemas' }]));
  const schemas = args.observerSchema ?? [];
  const manifest = isJsonArray(args.manifest) ? args.manifest : [];
  // Without custom schemas (the common case) there is nothing to match the manifest against.
  if (schemas.length === 0) return E.right([]);
  const manifestKeys = new Set(manifest.flatMap((resource) => (isJsonObject(resource) ? [schemaKeyOf(resource)] : [])));
  const issues = [
    ...schemas.flatMap((schema, index) => schemaIssues(schema, [index])),
    ...matchingIssues(schemas, manifestKeys),
  ];
  return issues.length === 0
    ? // schemaIssues found none: each schema is an identified object (apiVersion, kind, metadata.name).
      // schemaIssues found none: each schema is an identified object (apiVersion, kind, metadata.name).
      E.right((schemas as ReadonlyArray<ObserverSchema>).map(withNullMarkers))
    : E.left(observerSchemaError(issues));
};

const schemaIssues = (schema: JsonValue, path: Path): ReadonlyArray<Issue> => {
  if (!isJsonObject(schema)) return [issue(path, 'an observer schema must be an object shaped like its resource')];
  const identification = identificationIssues(schema, path);
  const nodes = nodeIssues(schema, path);
  if (identification.length > 0 || nodes.length > 0) return [...identification, ...nodes];
  return observesSomething(schema)
    ? []
    : [issue(path, `observes no field beyond the resource's identity: ${STRIPPED_HINT}`)];
};

/**
 * What a JSON merge patch leaves of `null` markers: it deletes them (client-side `kubectl apply`
 * of a custom resource, `kubectl patch --type merge`), so an empty object is never read as
 * "observe nothing".
 */
const STRIPPED_HINT =
  'mark each observed field with true (a JSON merge patch such as kubectl apply deletes null markers)';

/** Whether a schema observes any field besides apiVersion, kind, metadata.name and metadata.namespace. */
const observesSomething = (schema: JsonObject): boolean =>
  Object.entries(schema).some(([key, value]) => {
    if (key === 'apiVersion' || key === 'kind') return false;
    if (key !== 'metadata' || !isJsonObject(value)) return true;
    return Object.keys(value).some((field) => field !== 'name' && field !== 'namespace');
  });

const identificationIssues = (schema: JsonObject, path: Path): ReadonlyArray<Issue> => {
  const issues: Issue[] = [];
  for (const key of ['apiVersion', 'kind'] as const) {
    const value = getOwn(schema, key);
    if (value === undefined)
      issues.push(issue([...path, key], `missing ${key}: copy it from the resource this schema observes`));
    else if (typeof value !== 'string' || value === '')
      issues.push(issue([...path, key], `${key} must be the resource's ${key} (a non-empty string)`));
  }
  const metadata = getOwn(schema, 'metadata');
  if (metadata === undefined)
    issues.push(issue([...path, 'metadata'], 'missing metadata: add metadata.name to identify the resource'));
  else if (!isJsonObject(metadata)) issues.push(issue([...path, 'metadata'], 'metadata must be an object'));
  else {
    const name = getOwn(metadata, 'name');
    if (name === undefined)
      issues.push(
        issue(
          [...path, 'metadata', 'name'],
          'missing metadata.name: copy the name of the resource this schema observes',
        ),
      );
    else if (typeof name !== 'string' || name === '')
      issues.push(issue([...path, 'metadata', 'name'], 'metadata.name must be the resource name (a non-empty string)'));
    const namespace = getOwn(metadata, 'namespace');
    if (namespace !== undefined && !isObservedMarker(namespace))
      issues.push(
        issue(
          [...path, 'metadata', 'namespace'],
          'metadata.namespace may only be true or null (observed): the namespace of a resource is set in its manifest',
        ),
      );
  }
  return issues;
};

const isIdentification = (path: Path, depth: number): boolean => {
  const local = path.slice(depth);
  return (
    (local.length === 1 && (local[0] === 'apiVersion' || local[0] === 'kind')) ||
    (local.length === 2 && local[0] === 'metadata' && (local[1] === 'name' || local[1] === 'namespace'))
  );
};

/**
 * Issues below a schema node; the identification fields (already checked) are skipped. Paths
 * start with the schema's index, so a field's path within its schema starts at depth 1.
 */
const nodeIssues = (node: JsonObject, path: Path): ReadonlyArray<Issue> => {
  // An empty schema or metadata object is reported as missing identification instead.
  const identifying = path.length === 1 || (path.length === 2 && path[1] === 'metadata');
  if (Object.keys(node).length === 0)
    return identifying
      ? []
      : [issue(path, `empty object: it observes nothing; ${STRIPPED_HINT}, or write true to observe the whole value`)];
  return Object.entries(node).flatMap(([key, value]) => {
    const childPath = [...path, key];
    if (key === '__proto__') return [issue(childPath, 'the key "__proto__" is not allowed: remove it')];
    if (isIdentification(childPath, 1)) return [];
    if (childPath.length === 2 && key === 'metadata' && !isJsonObject(value)) return []; // reported by identificationIssues
    if (childPath.length === 2 && key === SENSITIVE_MARK) return markIssues(value, childPath, issue);
    return valueIssues(value, childPath);
  });
};

const valueIssues = (value: JsonValue, path: Path): ReadonlyArray<Issue> => {
  if (isObservedMarker(value)) return [];
  if (isJsonArray(value)) return listIssues(value, path);
  if (isJsonObject(value)) return nodeIssues(value, path);
  if (value === false)
    return [
      issue(
        path,
        'false is no marker: write true to observe this field, or remove it from the schema to stop observing it',
      ),
    ];
  // A string is not echoed: a schema copied from a Secret's manifest would print its values in status, Events and CI
  // logs.
  return [
    issue(
      path,
      `observed fields are marked true (or null), got ${typeof value === 'string' ? 'a string' : JSON.stringify(value)}: write true to observe this field`,
    ),
  ];
};

/**
 * An empty element schema holds a list position without observing it (to observe a later
 * element only); a list of nothing but such placeholders observes nothing.
 */
const isEmptyObject = (value: JsonValue): boolean => isJsonObject(value) && Object.keys(value).length === 0;

/** A list without a trailing control object is reported at the list's path; all its items are elements then. */
const listIssues = (list: ReadonlyArray<JsonValue>, path: Path): ReadonlyArray<Issue> => {
  if (list.length === 0) return [issue(path, `empty list: end every list with {"${LIST_MIN}": m, "${LIST_MAX}": M}`)];
  const control = list[list.length - 1];
  const controlled = isJsonObject(control) && (hasOwn(control, LIST_MIN) || hasOwn(control, LIST_MAX));
  const elements = controlled ? list.slice(0, -1) : list;
  const elementIssues =
    elements.length > 0 && elements.every(isEmptyObject)
      ? [issue(path, `every element schema is empty: it observes nothing; ${STRIPPED_HINT}`)]
      : elements.flatMap((element, index) => (isEmptyObject(element) ? [] : valueIssues(element, [...path, index])));
  if (!controlled)
    return [
      ...elementIssues,
      issue(path, `a list must end with a list control object {"${LIST_MIN}": m, "${LIST_MAX}": M}`),
    ];
  return [...elementIssues, ...controlIssues(control, elements.length, [...path, list.length - 1])];
};

const controlIssues = (control: JsonObject, observed: number, path: Path): ReadonlyArray<Issue> => {
  const bounds = [LIST_MIN, LIST_MAX].flatMap((key) => boundIssues(control, key, path));
  const min = getOwn(control, LIST_MIN);
  const max = getOwn(control, LIST_MAX);
  // boundIssues found none: both are non-negative integers.
  if (bounds.length > 0 || typeof min !== 'number' || typeof max !== 'number') return bounds;
  if (max !== 0 && max < min)
    return [issue(path, `${LIST_MAX} (${max}) is below ${LIST_MIN} (${min}); use 0 for no maximum`)];
  if (max !== 0 && max < observed)
    return [
      issue(path, `${LIST_MAX} (${max}) is below the ${observed} observed elements; raise it or use 0 for no maximum`),
    ];
  return [];
};

const boundIssues = (control: JsonObject, key: string, path: Path): ReadonlyArray<Issue> => {
  const value = getOwn(control, key);
  if (value === undefined) return [issue([...path, key], `missing ${key}: give a non-negative integer`)];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    return [issue([...path, key], `${key} must be a non-negative integer, got ${JSON.stringify(value)}`)];
  }
  return [];
};

const matchingIssues = (schemas: ReadonlyArray<JsonValue>, manifestKeys: ReadonlySet<string>): ReadonlyArray<Issue> => {
  const seen = new Map<string, number>();
  return schemas.flatMap((schema, index) => {
    if (!isIdentified(schema)) return []; // already reported by identificationIssues
    const key = schemaKeyOf(schema);
    const first = seen.get(key);
    if (first !== undefined)
      return [issue([index], `a second schema for the same resource (the first is ${ROOT}[${first}]): merge them`)];
    seen.set(key, index);
    return manifestKeys.has(key)
      ? []
      : [
          issue(
            [index],
            `observes ${describeKey(schema)}, which is not in spec.manifest: fix apiVersion, kind or metadata.name`,
          ),
        ];
  });
};

/** Whether a schema or resource names itself: apiVersion, kind and metadata.name are non-empty strings. */
const isIdentified = (object: JsonValue): object is JsonObject => {
  if (!isJsonObject(object)) return false;
  const metadata = getOwn(object, 'metadata');
  return (
    nonEmptyString(getOwn(object, 'apiVersion')) &&
    nonEmptyString(getOwn(object, 'kind')) &&
    isJsonObject(metadata) &&
    nonEmptyString(getOwn(metadata, 'name'))
  );
};

const describeKey = (schema: JsonObject): string => {
  const metadata = getOwn(schema, 'metadata');
  const name = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
  return `${jsonText(getOwn(schema, 'apiVersion'))} ${jsonText(getOwn(schema, 'kind'))} ${jsonText(name)}`;
};

/**
 * Checks the manifest itself: every resource needs apiVersion, kind and metadata.name; no duplicates.
 * Two resources are the same when their references (`refKey`: apiVersion, kind, namespace as
 * `namespaceOf` resolves it, name) are.
 */
export const manifestIssues = (
  manifest: ReadonlyArray<JsonValue>,
  namespaceOf: (resource: Resource) => string | undefined,
): ReadonlyArray<Issue> =>
  // Compared by parts, a key string per resource saved; a part with the key's separator could make two different
  // references one key, so then the keys themselves are compared (the same issues either way for other manifests).
  scanManifest(manifest, namespaceOf, false) ?? (scanManifest(manifest, namespaceOf, true) as ReadonlyArray<Issue>);

/**
 * The issues of `manifestIssues`, duplicates found by key strings (`keyed`) or by parts; `undefined` when compared
 * by parts and a part holds the key's separator.
 */
const scanManifest = (
  manifest: ReadonlyArray<JsonValue>,
  namespaceOf: (resource: Resource) => string | undefined,
  keyed: boolean,
): ReadonlyArray<Issue> | undefined => {
  const seen = new Map<string, number>();
  const shared = new Map<string, number[]>();
  const issues: Issue[] = [];
  // A plain loop that allocates only for problems: this runs on every fresh spec.
  for (let index = 0; index < manifest.length; index++) {
    const resource = manifest[index];
    if (!isJsonObject(resource)) {
      issues.push({ path: entryPath(index), message: 'a manifest entry must be a Kubernetes object' });
      continue;
    }
    if (!isIdentified(resource)) {
      for (const field of missingIdentification(resource))
        issues.push({
          path: entryPath(index, ...field),
          message: `missing ${field.join('.')}: every resource needs apiVersion, kind and metadata.name`,
        });
      continue;
    }
    for (const hostile of hostilePaths(resource, []))
      issues.push({ path: entryPath(index, ...hostile), message: 'the key "__proto__" is not allowed: remove it' });
    // isIdentified checked apiVersion, kind and metadata.name: what a Resource's identity needs.
    const identified = resource as Resource;
    const namespace = namespaceOf(identified) ?? '';
    if (!keyed && hasSeparator(identified, namespace)) return undefined;
    const first = keyed
      ? firstByKey(seen, identified, namespace, index)
      : firstByParts(seen, shared, manifest, namespaceOf, identified, namespace, index);
    if (first !== undefined)
      issues.push({
        path: entryPath(index),
        message: `the same resource as spec.manifest[${first}]: each resource may appear once`,
      });
  }
  return issues;
};

const hasSeparator = (resource: Resource, namespace: string): boolean =>
  resource.apiVersion.includes('|') ||
  resource.kind.includes('|') ||
  namespace.includes('|') ||
  resource.metadata.name.includes('|');

/** The index of the first resource with the reference key of `resource`, or `undefined` (then it is recorded). */
const firstByKey = (
  seen: Map<string, number>,
  resource: Resource,
  namespace: string,
  index: number,
): number | undefined => {
  const key = `${resource.apiVersion}|${resource.kind}|${namespace}|${resource.metadata.name}`;
  const first = seen.get(key);
  if (first === undefined) seen.set(key, index);
  return first;
};

/**
 * `firstByKey` by parts: the first resource of each name in `seen`, later ones of a name that are other resources
 * in `shared` (few); apiVersion, kind and namespace compared on a name found.
 */
const firstByParts = (
  seen: Map<string, number>,
  shared: Map<string, number[]>,
  manifest: ReadonlyArray<JsonValue>,
  namespaceOf: (resource: Resource) => string | undefined,
  resource: Resource,
  namespace: string,
  index: number,
): number | undefined => {
  const name = resource.metadata.name;
  const single = seen.get(name);
  if (single === undefined) {
    seen.set(name, index);
    return undefined;
  }
  const candidates = shared.get(name) ?? [single];
  for (const candidate of candidates) {
    // Only identified resources were recorded.
    const other = manifest[candidate] as Resource;
    if (
      other.apiVersion === resource.apiVersion &&
      other.kind === resource.kind &&
      (namespaceOf(other) ?? '') === namespace
    )
      return candidate;
  }
  shared.set(name, [...candidates, index]);
  return undefined;
};

const entryPath = (index: number, ...rest: Path): string => showPath([index, ...rest], 'spec.manifest');

const nonEmptyString = (value: JsonValue | undefined): boolean => typeof value === 'string' && value !== '';

const missingIdentification = (resource: JsonObject): ReadonlyArray<Path> => {
  const metadata = getOwn(resource, 'metadata');
  const name = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
  return [
    ...(nonEmptyString(getOwn(resource, 'apiVersion')) ? [] : [['apiVersion']]),
    ...(nonEmptyString(getOwn(resource, 'kind')) ? [] : [['kind']]),
    ...(nonEmptyString(name) ? [] : [['metadata', 'name']]),
  ];
};

/**
 * Where `__proto__` keys are. Most manifests have none, so a read-only walk answers first and
 * paths are built only when there is something to report (this runs on every fresh spec).
 */
const hostilePaths = (value: JsonValue, path: Path): ReadonlyArray<Path> =>
  hasHostileKey(value) ? hostilePathsIn(value, path) : NO_PATHS;

const NO_PATHS: ReadonlyArray<Path> = [];

const hasHostileKey = (value: JsonValue): boolean => {
  if (typeof value !== 'object' || value === null) return false;
  // Scalars (most values) are skipped here, without a call each.
  if (isJsonArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (typeof item === 'object' && item !== null && hasHostileKey(item)) return true;
    }
    return false;
  }
  for (const key in value) {
    if (key === '__proto__') return true;
    const child = value[key];
    if (typeof child === 'object' && child !== null && hasHostileKey(child)) return true;
  }
  return false;
};

const hostilePathsIn = (value: JsonValue, path: Path): ReadonlyArray<Path> => {
  if (isJsonArray(value)) return value.flatMap((item, index) => hostilePathsIn(item, [...path, index]));
  if (!isJsonObject(value)) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '__proto__' ? [[...path, key]] : hostilePathsIn(child, [...path, key]),
  );
};
