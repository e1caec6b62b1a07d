/**
 * Seeded request sequences for the server-side apply differential (issue 35, Proof): two or three
 * field managers mixing server-side apply (with and without force), update (PUT), merge, JSON and
 * strategic merge patches on one object each: a ConfigMap, a Deployment, a Service or a custom
 * resource whose lists are `listType: map`, `set` and atomic and whose maps are granular and atomic.
 *
 * Each manager keeps its applied configuration across the sequence, and each apply changes it the
 * way users change manifests: a field added, changed, set to its zero value or dropped, a list
 * entry added or removed. Fields are named by paths whose list steps select an entry by its keys,
 * so one path serves an applied configuration, a PUT of the object read back, and each patch type.
 */
import type { JsonArray, JsonObject, JsonValue } from '../../core/json/json.js';
import { getOwn, isJsonArray, isJsonObject } from '../../core/json/json.js';
import { seeded } from '../adapters/memory/strategic/patch-cases.js';

export type Random = ReturnType<typeof seeded>;
export { seeded };

/** A key of an object, an entry of a `listType: map` list selected by its keys, or a `set` member. */
export type Step = string | { readonly list: string; readonly keys: JsonObject } | { readonly set: string };

/**
 * A field users write: its path and the values written there (the first is the created object's).
 * At a list entry, a value holds the entry's fields besides its keys. `fixed` fields are part of
 * every object and never dropped nor changed (a Deployment's selector).
 */
export type Facet = {
  readonly path: ReadonlyArray<Step>;
  readonly values: ReadonlyArray<JsonValue>;
  readonly fixed?: true;
  /** In every created object (a Deployment's container), though later requests may change or drop it. */
  readonly initial?: true;
};

export type Target = {
  readonly apiVersion: string;
  readonly kind: string;
  /** The collection's path in a namespace, e.g. `/apis/apps/v1/namespaces/ns/deployments`. */
  readonly collection: (namespace: string) => string;
  /** Strategic merge patch is served (built-in kinds; custom resources answer 415). */
  readonly strategic: boolean;
  readonly facets: ReadonlyArray<Facet>;
};

// ---- paths: set and remove along a path of steps

const matches = (item: JsonValue, keys: JsonObject): boolean =>
  isJsonObject(item) && Object.entries(keys).every(([key, value]) => getOwn(item, key) === value);

const childObject = (value: JsonValue | undefined): JsonObject => (isJsonObject(value) ? value : {});
const childList = (value: JsonValue | undefined): JsonArray => (isJsonArray(value) ? value : []);

/** `object` with `value` written at `path` (objects and entries created on the way, others kept). */
export const setAt = (object: JsonObject, path: ReadonlyArray<Step>, value: JsonValue): JsonObject => {
  const [step, ...rest] = path;
  if (step === undefined) return isJsonObject(value) ? { ...object, ...value } : object;
  if (typeof step === 'string') {
    const next = rest.length === 0 ? value : setAt(childObject(getOwn(object, step)), rest, value);
    return { ...object, [step]: next };
  }
  if ('set' in step) {
    const members = childList(getOwn(object, step.set));
    return { ...object, [step.set]: members.includes(value) ? members : [...members, value] };
  }
  const entries = childList(getOwn(object, step.list));
  const at = entries.findIndex((entry) => matches(entry, step.keys));
  const entry = setAt(at < 0 ? step.keys : childObject(entries[at]), rest, value);
  const next = at < 0 ? [...entries, entry] : entries.map((old, index) => (index === at ? entry : old));
  return { ...object, [step.list]: next };
};

/** `object` without what `path` names (the key, the list entry, the set member `value`). */
export const removeAt = (object: JsonObject, path: ReadonlyArray<Step>, value?: JsonValue): JsonObject => {
  const [step, ...rest] = path;
  if (step === undefined) return object;
  if (typeof step === 'string') {
    const child = getOwn(object, step);
    if (child === undefined) return object;
    if (rest.length === 0) return Object.fromEntries(Object.entries(object).filter(([key]) => key !== step));
    return isJsonObject(child) ? { ...object, [step]: removeAt(child, rest, value) } : object;
  }
  if ('set' in step) return { ...object, [step.set]: childList(getOwn(object, step.set)).filter((m) => m !== value) };
  const entries = childList(getOwn(object, step.list));
  const next =
    rest.length === 0
      ? entries.filter((entry) => !matches(entry, step.keys))
      : entries.map((entry) => (matches(entry, step.keys) ? removeAt(childObject(entry), rest, value) : entry));
  return { ...object, [step.list]: next };
};

/** The JSON pointer of a path of keys only (JSON patch cannot select a list entry by its keys). */
export const pointerOf = (path: ReadonlyArray<Step>): string | undefined =>
  path.every((step) => typeof step === 'string')
    ? path.map((step) => `/${String(step).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
    : undefined;

/** A strategic merge patch removing what `path` names: null for a key, `$patch: delete` for an entry. */
export const strategicRemoval = (path: ReadonlyArray<Step>, value: JsonValue): JsonObject => {
  const last = path[path.length - 1];
  const init = path.slice(0, -1);
  if (last === undefined || typeof last === 'string') return setAt({}, path, null);
  if ('set' in last) return setAt({}, [...init, `$deleteFromPrimitiveList/${last.set}`], [value]);
  return setAt({}, [...init, { list: last.list, keys: { ...last.keys, $patch: 'delete' } }], {});
};

// ---- the objects

const labels = (key: string): Facet => ({ path: ['metadata', 'labels', key], values: ['red', 'blue', ''] });
const note: Facet = { path: ['metadata', 'annotations', 'example.com/note'], values: ['one', 'two'] };

const configMap: Target = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  collection: (ns) => `/api/v1/namespaces/${ns}/configmaps`,
  strategic: true,
  facets: [
    { path: ['data', 'a'], initial: true, values: ['0', '1', ''] },
    { path: ['data', 'b'], values: ['x', 'y'] },
    { path: ['data', 'c'], values: [''] },
    { path: ['binaryData', 'bin'], values: ['AA==', ''] },
    labels('team'),
    labels('tier'),
    note,
  ],
};

const MAIN = { list: 'containers', keys: { name: 'main' } } as const;
const SIDE = { list: 'containers', keys: { name: 'side' } } as const;
const POD = ['spec', 'template', 'spec'] as const;

const deployment: Target = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  collection: (ns) => `/apis/apps/v1/namespaces/${ns}/deployments`,
  strategic: true,
  facets: [
    // Paused, so that the deployment controller of the shared cluster writes only status.
    { path: ['spec', 'paused'], values: [true], fixed: true },
    { path: ['spec', 'selector', 'matchLabels', 'app'], values: ['web'], fixed: true },
    { path: ['spec', 'template', 'metadata', 'labels', 'app'], values: ['web'], fixed: true },
    { path: [...POD, MAIN, 'image'], initial: true, values: ['nginx:1.27', 'nginx:1.28'] },
    { path: ['spec', 'replicas'], values: [1, 0, 3] },
    { path: ['spec', 'minReadySeconds'], values: [5, 0] },
    { path: ['spec', 'revisionHistoryLimit'], values: [2, 10] },
    { path: ['spec', 'template', 'metadata', 'annotations', 'example.com/rev'], values: ['1', '2'] },
    { path: [...POD, 'terminationGracePeriodSeconds'], values: [30, 0] },
    { path: [...POD, MAIN, { list: 'env', keys: { name: 'E1' } }, 'value'], values: ['a', ''] },
    { path: [...POD, MAIN, { list: 'env', keys: { name: 'E2' } }], values: [{ value: 'b' }, {}] },
    {
      path: [...POD, MAIN, { list: 'ports', keys: { containerPort: 8080, protocol: 'TCP' } }],
      values: [{ name: 'http' }],
    },
    { path: [...POD, MAIN, { list: 'ports', keys: { containerPort: 9090, protocol: 'TCP' } }], values: [{}] },
    { path: [...POD, MAIN, 'resources', 'limits', 'cpu'], values: ['1000m', '500m'] },
    { path: [...POD, MAIN, 'args'], values: [['a', 'b'], ['c'], []] },
    // A container needs an image: the side container's env is written with it.
    {
      path: [...POD, SIDE],
      values: [{ image: 'busybox:1.36' }, { image: 'busybox:1.36', env: [{ name: 'S', value: '1' }] }],
    },
    labels('team'),
    note,
  ],
};

const servicePort = (port: number, protocol = 'TCP'): Step => ({ list: 'ports', keys: { port, protocol } });

const service: Target = {
  apiVersion: 'v1',
  kind: 'Service',
  collection: (ns) => `/api/v1/namespaces/${ns}/services`,
  strategic: true,
  facets: [
    {
      path: ['spec', servicePort(80)],
      initial: true,
      values: [
        { name: 'http', targetPort: 8080 },
        { name: 'http', targetPort: 9090 },
      ],
    },
    { path: ['spec', 'selector', 'app'], values: ['web', 'other'] },
    { path: ['spec', servicePort(443)], values: [{ name: 'https', targetPort: 8443 }] },
    { path: ['spec', servicePort(53, 'UDP')], values: [{ name: 'dns' }] },
    { path: ['spec', 'sessionAffinity'], values: ['ClientIP', 'None'] },
    { path: ['spec', 'publishNotReadyAddresses'], values: [true, false] },
    labels('team'),
    note,
  ],
};

/** The custom resource's schema: list types map, set and atomic; a granular and an atomic map. */
export const WIDGET_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        mode: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        items: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, value: { type: 'integer' }, note: { type: 'string' } },
          },
        },
        args: { type: 'array', items: { type: 'string' } },
        atomic: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          properties: { a: { type: 'string' }, b: { type: 'string' } },
        },
        settings: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
};

const widget = (group: string): Target => ({
  apiVersion: `${group}/v1`,
  kind: 'Widget',
  collection: (ns) => `/apis/${group}/v1/namespaces/${ns}/widgets`,
  strategic: false,
  facets: [
    { path: ['spec', 'size'], initial: true, values: [1, 0, 5] },
    { path: ['spec', 'mode'], values: ['fast', '', 'slow'] },
    { path: ['spec', { set: 'tags' }], values: ['x'] },
    { path: ['spec', { set: 'tags' }], values: ['y'] },
    { path: ['spec', { set: 'tags' }], values: ['z'] },
    { path: ['spec', { list: 'items', keys: { name: 'one' } }, 'value'], values: [1, 0] },
    { path: ['spec', { list: 'items', keys: { name: 'one' } }, 'note'], values: ['hey'] },
    { path: ['spec', { list: 'items', keys: { name: 'two' } }], values: [{ note: 'n' }, { note: '' }] },
    { path: ['spec', 'args'], values: [['a'], ['a', 'b'], []] },
    { path: ['spec', 'atomic'], values: [{ a: '1' }, { a: '1', b: '2' }, { b: '3' }] },
    { path: ['spec', 'settings', 'k1'], values: ['v', ''] },
    { path: ['spec', 'settings', 'k2'], values: ['w'] },
    labels('team'),
    note,
  ],
});

/** The kinds sequences run on; the custom resource is served under `group`. */
export const targets = (group: string): ReadonlyArray<Target> => [configMap, deployment, service, widget(group)];

// ---- sequences

/** PUT of the object as read back, with a field written (value) or removed (no value). */
export type UpdateOperation = {
  readonly verb: 'update';
  readonly manager: string;
  readonly facet: Facet;
  readonly value?: JsonValue;
};

export type Operation =
  | { readonly verb: 'create'; readonly manager: string; readonly body: JsonObject }
  | { readonly verb: 'apply'; readonly manager: string | undefined; readonly force: boolean; readonly body: JsonObject }
  | UpdateOperation
  | { readonly verb: 'merge' | 'strategic'; readonly manager: string; readonly body: JsonObject }
  | { readonly verb: 'json'; readonly manager: string; readonly body: JsonArray };

export type Sequence = {
  readonly target: Target;
  readonly name: string;
  readonly operations: ReadonlyArray<Operation>;
};

/** A manager's applied configuration: the value of each field it applies. */
type Config = ReadonlyMap<Facet, JsonValue>;

export const bodyOf = (target: Target, name: string, config: Config): JsonObject =>
  [...config].reduce<JsonObject>((body, [facet, value]) => setAt(body, facet.path, value), {
    apiVersion: target.apiVersion,
    kind: target.kind,
    metadata: { name },
  });

const fixedConfig = (target: Target): Config =>
  new Map(target.facets.filter((facet) => facet.fixed).map((facet) => [facet, facet.values[0] ?? null]));

/** The object as created: its fixed fields and each field's first value, some left out. */
const initialConfig = (target: Target, random: Random): Config =>
  new Map([
    ...fixedConfig(target),
    ...target.facets
      .filter((facet) => !facet.fixed && (facet.initial === true || random.chance(0.4)))
      .map((facet) => [facet, facet.values[0] ?? null] as const),
  ]);

const changeable = (target: Target): ReadonlyArray<Facet> => target.facets.filter((facet) => !facet.fixed);

/** One change to an applied configuration: a field dropped (if applied), or written at one of its values. */
const changed = (config: Config, target: Target, random: Random): Config => {
  const facet = random.pick(changeable(target));
  const next = new Map(config);
  if (config.has(facet) && random.chance(0.4)) next.delete(facet);
  else next.set(facet, random.pick(facet.values));
  return next;
};

const patchOperation = (target: Target, manager: string, random: Random): Operation => {
  const facet = random.pick(changeable(target));
  const value = random.pick(facet.values);
  const remove = random.chance(0.35);
  const pointer = pointerOf(facet.path);
  const roll = random.next();
  if (pointer !== undefined && roll < 0.3) {
    const op: JsonObject = remove
      ? { op: 'remove', path: pointer }
      : { op: random.pick(['add', 'replace']), path: pointer, value };
    return { verb: 'json', manager, body: random.chance(0.2) ? [{ op: 'test', path: pointer, value }, op] : [op] };
  }
  // Custom resources answer 415 to a strategic merge patch: sent now and then, to compare that.
  if (target.strategic ? roll < 0.65 : roll < 0.4)
    return {
      verb: 'strategic',
      manager,
      body: remove ? strategicRemoval(facet.path, value) : setAt({}, facet.path, value),
    };
  return {
    verb: 'merge',
    manager,
    body: remove && pointer !== undefined ? setAt({}, facet.path, null) : setAt({}, facet.path, value),
  };
};

/**
 * A sequence of `length` requests after the object's creation (a POST by `setup`, or the first
 * manager's apply), by two or three managers.
 */
export const generateSequence = (target: Target, name: string, random: Random, length: number): Sequence => {
  const managers = ['alice', 'bob', 'carol'].slice(0, random.chance(0.5) ? 2 : 3);
  const configs = new Map<string, Config>();
  const initial = initialConfig(target, random);
  const byApply = random.chance(0.5);
  const first = managers[0] ?? 'alice';
  if (byApply) configs.set(first, initial);
  const operations: Operation[] = [
    byApply
      ? { verb: 'apply', manager: first, force: false, body: bodyOf(target, name, initial) }
      : { verb: 'create', manager: 'setup', body: bodyOf(target, name, initial) },
  ];
  for (let i = 0; i < length; i++) {
    const manager = random.pick(managers);
    const roll = random.next();
    if (roll < 0.5) {
      const start = configs.get(manager) ?? fixedConfig(target);
      const config = changed(random.chance(0.3) ? changed(start, target, random) : start, target, random);
      configs.set(manager, config);
      // Rarely without a field manager, which apply requires.
      const named = random.chance(0.97) ? manager : undefined;
      operations.push({ verb: 'apply', manager: named, force: random.chance(0.3), body: bodyOf(target, name, config) });
    } else if (roll < 0.65) {
      const facet = random.pick(changeable(target));
      operations.push({
        verb: 'update',
        manager,
        facet,
        ...(random.chance(0.3) ? {} : { value: random.pick(facet.values) }),
      });
    } else operations.push(patchOperation(target, manager, random));
  }
  return { target, name, operations };
};
