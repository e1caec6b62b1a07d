/**
 * fast-check arbitraries of Kubernetes resources and of what happens to them in a cluster:
 * realistic-ish manifests (nested objects, lists of named objects, label keys with `/` and `~`,
 * camelCase, nulls) and live perturbations (another actor, the API server's defaults and status).
 * Test-only: never imported by the core API.
 */
import fc from 'fast-check';
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  withKey,
  withoutKey,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE, OWNER_ANNOTATION } from './application.js';
import type { Resource } from './resource.js';
import { builtinScopes, scopeKey, type Scope, type ScopeTable } from './scope.js';

/** Kinds the arbitraries draw from: built-in (namespaced and cluster-scoped) and custom ones. */
export const arbitraryKinds: ReadonlyArray<{ readonly apiVersion: string; readonly kind: string }> = [
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Secret' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'v1', kind: 'Namespace' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  { apiVersion: 'music.example/v1', kind: 'Song' },
  { apiVersion: 'music.example/v1', kind: 'Label' },
];

/** Scopes of the custom kinds above (`Song` namespaced, `Label` cluster-scoped). */
export const arbitraryCustomScopes: ReadonlyArray<readonly [string, Scope]> = [
  [scopeKey('music.example/v1', 'Song'), 'Namespaced'],
  [scopeKey('music.example/v1', 'Artist'), 'Namespaced'],
  [scopeKey('music.example/v1', 'Label'), 'Cluster'],
];

/** The built-in scope table plus the custom kinds of the arbitraries. */
export const arbitraryScopes: ScopeTable = new Map([...builtinScopes, ...arbitraryCustomScopes]);

/** Records with a plain prototype, as JSON parsing makes them. */
const record = <T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> =>
  fc.record(model, { noNullPrototype: true });

const entriesToObject = (entries: ReadonlyArray<readonly [string, JsonValue]>): JsonObject =>
  objectFromEntries(entries);

/** An object from unique keys (own properties, plain prototype). */
export const objectArbitrary = (
  key: fc.Arbitrary<string>,
  value: fc.Arbitrary<JsonValue>,
  maxKeys = 4,
): fc.Arbitrary<JsonObject> =>
  fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: maxKeys }).map(entriesToObject);

/**
 * Object keys as Kubernetes documents have them: camelCase field names, label-style keys with
 * `.` and `/`, keys with `~` (JSON Pointer escapes), a few odd ones. Never `__proto__`, never
 * a list-control key.
 */
export const keyArbitrary: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'name',
      'image',
      'replicas',
      'containerPort',
      'clusterIP',
      'imagePullPolicy',
      'matchLabels',
      'app',
      'tier',
      'enabled',
      'value',
      'mode',
      'path',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'app.kubernetes.io/name',
      'example.com/tier',
      'a~b',
      'x/y~z',
      '~1',
      '/',
      '-',
      'with space',
      '0',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .string({ minLength: 1, maxLength: 6 })
      .filter((k) => k !== '__proto__' && k !== 'prototype' && !k.startsWith('observer_schema_list_')),
  },
);

/** Scalars of manifests, `null` included (a YAML `key:` without value). */
export const leafArbitrary: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 3, arbitrary: fc.integer({ min: -5, max: 1000 }) },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);

const NAMES = ['a', 'b', 'c', 'd', 'e'] as const;

/** A list of objects identified by `name` (containers, ports, env…); names unique. */
export const namedListArbitrary = (
  fields: fc.Arbitrary<JsonObject>,
  maxLength = 3,
): fc.Arbitrary<ReadonlyArray<JsonValue>> =>
  fc
    .uniqueArray(fc.tuple(fc.constantFrom(...NAMES), fields), { selector: ([name]) => name, maxLength })
    .map((items) => items.map(([name, rest]) => withKey(rest, 'name', name)));

/** Any manifest value: scalars, objects, lists of scalars and lists of named objects, nested. */
export const valueArbitrary: fc.Arbitrary<JsonValue> = fc.letrec<{
  value: JsonValue;
  object: JsonObject;
  list: ReadonlyArray<JsonValue>;
}>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, leafArbitrary, tie('object'), tie('list')),
  object: objectArbitrary(keyArbitrary, tie('value')),
  list: fc.oneof(fc.array(tie('value'), { maxLength: 3 }), namedListArbitrary(tie('object'))),
})).value;

const labelKey = fc.constantFrom(
  'app',
  'tier',
  'app.kubernetes.io/name',
  'app.kubernetes.io/part-of',
  'example.com/a~b',
);
const labelsArbitrary: fc.Arbitrary<JsonObject> = objectArbitrary(
  labelKey,
  fc.constantFrom('web', 'api', 'db', 'v1'),
  3,
);

/** Metadata: a name, maybe a namespace, maybe labels and annotations (keys with `/`). */
export const metadataArbitrary: fc.Arbitrary<JsonObject> = record({
  name: fc.constantFrom('web', 'api', 'db', 'cache'),
  namespace: fc.option(fc.constantFrom('default', 'other'), { nil: undefined }),
  labels: fc.option(labelsArbitrary, { nil: undefined }),
  annotations: fc.option(
    objectArbitrary(fc.constantFrom('note', 'example.com/owner-team', 'a~b/c'), fc.string({ maxLength: 6 }), 2),
    { nil: undefined },
  ),
}).map(({ name, namespace, labels, annotations }) =>
  objectFromEntries([
    ['name', name],
    ...(namespace === undefined ? [] : [['namespace', namespace] as const]),
    ...(labels === undefined ? [] : [['labels', labels] as const]),
    ...(annotations === undefined ? [] : [['annotations', annotations] as const]),
  ]),
);

const containerArbitrary: fc.Arbitrary<JsonObject> = record({
  image: fc.constantFrom('nginx:1.27', 'redis:7', 'busybox'),
  imagePullPolicy: fc.constantFrom('Always', 'IfNotPresent'),
  ports: namedListArbitrary(record({ containerPort: fc.integer({ min: 1, max: 9000 }) }), 2),
  env: namedListArbitrary(record({ value: fc.oneof(fc.string({ maxLength: 5 }), fc.constant(null)) }), 2),
}).chain((container) => fc.subarray(Object.entries(container)).map((entries) => objectFromEntries(entries)));

/** The body of a resource by kind: typical fields of that kind plus random extra ones. */
const bodyArbitrary = (kind: string): fc.Arbitrary<JsonObject> => {
  const extra = objectArbitrary(keyArbitrary, valueArbitrary, 2);
  switch (kind) {
    case 'ConfigMap':
    case 'Secret':
      return record({
        data: objectArbitrary(fc.constantFrom('config.yaml', 'a.b/c', 'KEY', 'x~y'), fc.string({ maxLength: 6 }), 3),
      });
    case 'Service':
      return record({
        spec: fc
          .tuple(
            record({
              type: fc.constantFrom('ClusterIP', 'LoadBalancer', 'NodePort'),
              ports: namedListArbitrary(
                record({ port: fc.integer({ min: 1, max: 9000 }), targetPort: fc.integer({ min: 1, max: 9000 }) }),
              ),
              selector: labelsArbitrary,
            }),
            extra,
          )
          .map(([spec, more]) => objectFromEntries([...Object.entries(more), ...Object.entries(spec)])),
      });
    case 'Deployment':
      return record({
        spec: record({
          replicas: fc.integer({ min: 0, max: 5 }),
          selector: record({ matchLabels: labelsArbitrary }),
          template: record({
            metadata: record({ labels: labelsArbitrary }),
            spec: record({ containers: namedListArbitrary(containerArbitrary) }),
          }),
        }),
      });
    case 'ServiceAccount':
    case 'Namespace':
      return fc.constant({});
    case 'ClusterRole':
      return record({
        rules: fc.array(
          record({
            apiGroups: fc.array(fc.constantFrom('', 'apps'), { maxLength: 2 }),
            verbs: fc.array(fc.constantFrom('get', 'list', 'watch'), { minLength: 1, maxLength: 3 }),
          }),
          { maxLength: 2 },
        ),
      });
    default:
      return record({ spec: objectArbitrary(keyArbitrary, valueArbitrary, 5) });
  }
};

/** One resource of a kind drawn from {@link arbitraryKinds}. */
export const resourceArbitrary: fc.Arbitrary<Resource> = fc
  .constantFrom(...arbitraryKinds)
  .chain(({ apiVersion, kind }) =>
    fc.tuple(metadataArbitrary, bodyArbitrary(kind)).map(
      ([metadata, body]) =>
        // apiVersion, kind and metadata (with a name) are the first entries: a Resource.
        objectFromEntries([
          ['apiVersion', apiVersion],
          ['kind', kind],
          ['metadata', metadata],
          ...Object.entries(body),
        ]) as Resource,
    ),
  );

/**
 * A manifest: distinct resources (by apiVersion, kind and name, so each can have its own
 * observer schema), 1 to `maxLength` of them.
 */
export const manifestArbitrary = (maxLength = 5): fc.Arbitrary<ReadonlyArray<Resource>> =>
  fc.uniqueArray(resourceArbitrary, {
    minLength: 1,
    maxLength,
    selector: (r) => `${r.apiVersion}|${r.kind}|${r.metadata.name}`,
  });

// ---------------------------------------------------------------------------------------------
// Live perturbations: edit scripts applied to whatever object is live when the test runs.

/**
 * One change made to a live object: `set` replaces a value, `remove` drops a key or element,
 * `push`/`pop` grow or shrink a list, `default` adds a key where it is missing (what an API
 * server's defaulting does), `status` rewrites the top-level status, `server` adds server-set
 * metadata. `at` picks the target among the candidates (modulo their number).
 */
export type LiveEdit =
  | { readonly op: 'set'; readonly at: number; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly at: number }
  | { readonly op: 'push'; readonly at: number; readonly value: JsonValue }
  | { readonly op: 'pop'; readonly at: number }
  | { readonly op: 'default'; readonly at: number; readonly key: string; readonly value: JsonValue }
  | { readonly op: 'status'; readonly value: JsonObject }
  | { readonly op: 'server'; readonly uid: string };

export const liveEditArbitrary: fc.Arbitrary<LiveEdit> = fc.oneof(
  record({
    op: fc.constant('set' as const),
    at: fc.nat(),
    value: fc.oneof({ weight: 3, arbitrary: leafArbitrary }, { weight: 1, arbitrary: valueArbitrary }),
  }),
  record({ op: fc.constant('remove' as const), at: fc.nat() }),
  record({ op: fc.constant('push' as const), at: fc.nat(), value: valueArbitrary }),
  record({ op: fc.constant('pop' as const), at: fc.nat() }),
  record({ op: fc.constant('default' as const), at: fc.nat(), key: keyArbitrary, value: leafArbitrary }),
  record({
    op: fc.constant('status' as const),
    value: objectArbitrary(fc.constantFrom('phase', 'loadBalancer', 'conditions', 'replicas'), valueArbitrary, 3),
  }),
  record({ op: fc.constant('server' as const), uid: fc.uuid() }),
);

/** Edits of another actor and of the API server, in order. */
export const liveEditsArbitrary = (maxLength = 4): fc.Arbitrary<ReadonlyArray<LiveEdit>> =>
  fc.array(liveEditArbitrary, { maxLength });

/** Edits an API server makes on create: defaulted fields, status, server-set metadata. */
export const serverDefaultsArbitrary: fc.Arbitrary<ReadonlyArray<LiveEdit>> = fc.array(
  fc.oneof(
    record({ op: fc.constant('default' as const), at: fc.nat(), key: keyArbitrary, value: leafArbitrary }),
    record({
      op: fc.constant('status' as const),
      value: objectArbitrary(fc.constantFrom('phase', 'loadBalancer', 'observedGeneration'), leafArbitrary, 2),
    }),
    record({ op: fc.constant('server' as const), uid: fc.uuid() }),
  ),
  { maxLength: 3 },
);

export type Step = string | number;
type Node = { readonly path: ReadonlyArray<Step>; readonly value: JsonValue };

/**
 * The nodes another actor may touch: everything but the identification, and inside metadata
 * only labels and annotations (never our owner annotation, which is what makes the object ours).
 */
const editableNodes = (object: JsonObject): ReadonlyArray<Node> => {
  const metadata = getOwn(object, 'metadata');
  const fromMetadata = ['labels', 'annotations'].flatMap((field) => {
    const map = isJsonObject(metadata) ? getOwn(metadata, field) : undefined;
    return isJsonObject(map)
      ? Object.entries(map)
          .filter(([key]) => key !== OWNER_ANNOTATION)
          .flatMap(([key, value]) => nodesOf(value, ['metadata', field, key]))
      : [];
  });
  const body = Object.entries(object).filter(([key]) => key !== 'apiVersion' && key !== 'kind' && key !== 'metadata');
  return [...body.flatMap(([key, value]) => nodesOf(value, [key])), ...fromMetadata];
};

const nodesOf = (value: JsonValue, path: ReadonlyArray<Step>): ReadonlyArray<Node> => {
  const children = isJsonArray(value)
    ? value.flatMap((item, i) => nodesOf(item, [...path, i]))
    : isJsonObject(value)
      ? Object.entries(value).flatMap(([key, child]) => nodesOf(child, [...path, key]))
      : [];
  return [{ path, value }, ...children];
};

/** The containers an edit can add keys to: the object itself and every nested object but metadata. */
const editableObjects = (object: JsonObject): ReadonlyArray<Node> => [
  { path: [], value: object },
  ...editableNodes(object).filter((node) => isJsonObject(node.value) && node.path[0] !== 'metadata'),
];

/** A copy of `value` with `update` applied at `path` (undefined from `update` removes). */
export const updateIn = (
  value: JsonValue,
  path: ReadonlyArray<Step>,
  update: (old: JsonValue | undefined) => JsonValue | undefined,
): JsonValue => {
  const [step, ...rest] = path;
  if (step === undefined) return update(value) ?? null;
  if (isJsonArray(value) && typeof step === 'number') {
    if (rest.length === 0 && update(value[step]) === undefined) return value.filter((_, i) => i !== step);
    return value.map((item, i) => (i === step ? updateIn(item, rest, update) : item));
  }
  if (!isJsonObject(value) || typeof step !== 'string') return value;
  if (rest.length === 0) {
    const next = update(getOwn(value, step));
    return next === undefined ? withoutKey(value, step) : withKey(value, step, next);
  }
  const child = getOwn(value, step);
  return child === undefined ? value : withKey(value, step, updateIn(child, rest, update));
};

const pick = <T>(items: ReadonlyArray<T>, at: number): T | undefined =>
  items.length === 0 ? undefined : items[at % items.length];

/** Which nodes (by path) an edit may target: e.g. an API server defaults fields only where they are unset. */
export type EditTargets = (path: ReadonlyArray<Step>) => boolean;

/** Applies one edit to a target allowed by `targets`; an edit with no target leaves the object as it is. */
export const applyLiveEdit = (object: JsonObject, edit: LiveEdit, targets: EditTargets = () => true): JsonObject => {
  const at = (
    nodes: ReadonlyArray<Node>,
    update: (old: JsonValue | undefined) => JsonValue | undefined,
  ): JsonObject => {
    const node = pick(
      nodes.filter((candidate) => targets(candidate.path)),
      'at' in edit ? edit.at : 0,
    );
    // Edits reach only nodes below the root (editableNodes has no empty path): the root stays an object.
    return node === undefined ? object : (updateIn(object, node.path, update) as JsonObject);
  };
  const lists = (): ReadonlyArray<Node> => editableNodes(object).filter((node) => isJsonArray(node.value));
  switch (edit.op) {
    case 'set':
      return at(editableNodes(object), () => edit.value);
    case 'remove':
      return at(editableNodes(object), () => undefined);
    case 'push':
      return at(lists(), (list) => (isJsonArray(list) ? [...list, edit.value] : list));
    case 'pop':
      return at(lists(), (list) => (isJsonArray(list) ? list.slice(0, -1) : list));
    case 'default':
      return at(editableObjects(object), (target) =>
        isJsonObject(target) && getOwn(target, edit.key) === undefined ? withKey(target, edit.key, edit.value) : target,
      );
    case 'status':
      return withKey(object, 'status', edit.value);
    case 'server':
      return withServerMetadata(object, edit.uid);
  }
};

const SERVER_METADATA = ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields'];

const withServerMetadata = (object: JsonObject, uid: string): JsonObject => {
  const metadata = getOwn(object, 'metadata');
  const kept = Object.entries(isJsonObject(metadata) ? metadata : {}).filter(([key]) => !SERVER_METADATA.includes(key));
  return withKey(
    object,
    'metadata',
    objectFromEntries([
      ...kept,
      ['uid', uid],
      ['resourceVersion', '1'],
      ['creationTimestamp', '2024-01-01T00:00:00Z'],
      ['managedFields', [{ manager: 'kube-controller-manager', operation: 'Update', fieldsType: 'FieldsV1' }]],
    ]),
  );
};

/** Applies edits in order, each to a target allowed by `targets`. */
export const applyLiveEdits = <T extends JsonObject>(
  object: T,
  edits: ReadonlyArray<LiveEdit>,
  targets: EditTargets = () => true,
  // Live edits never touch the identification (EditTargets exclude it): still a T.
): T => edits.reduce<JsonObject>((current, edit) => applyLiveEdit(current, edit, targets), object) as T;

/** A live object derived from `object` by another actor's and the API server's changes. */
export const livePerturbationArbitrary = <T extends JsonObject>(object: T, maxEdits = 4): fc.Arbitrary<T> =>
  liveEditsArbitrary(maxEdits).map((edits) => applyLiveEdits(object, edits));

/** A live object created by someone else: no owner mark, or the mark of another Application. */
export const foreignOwnerArbitrary: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  'default/another-app',
  'other/app',
);

/** `resource` as found in the cluster under the given owner (undefined: unmarked). */
export const ownedBy = (resource: Resource, owner: string | undefined): Resource => {
  if (owner === undefined) return resource;
  const { metadata } = resource;
  return withKey(
    resource,
    'metadata',
    withKey(
      withKey(metadata, 'labels', withKey(metadata.labels ?? {}, MANAGED_BY_LABEL, MANAGED_BY_VALUE)),
      'annotations',
      withKey(metadata.annotations ?? {}, OWNER_ANNOTATION, owner),
    ),
  );
};
