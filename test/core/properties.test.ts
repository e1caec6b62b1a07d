/**
 * Laws of the core, checked on generated manifests, schemas and clusters (1 000 runs each):
 * convergence, non-observed fields never patched, user values prevail, list lengths end inside
 * their control, no input mutated, no crash on arbitrary JSON.
 */
import { untypable } from '../../adapters/memory/field-manager/index.js';
import { builtinSchemas } from '../../adapters/schemas/builtin-schemas.js';
import { catalogOfCompact, objectSchemaIssues } from '../../core/schema/catalog.js';
import { serverRuleIssues } from '../../core/schema/server-rules/rules.js';
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import {
  FINALIZER,
  calculateResourceDelta,
  createPlanner,
  decodeApplication,
  withDigests,
  fromPointer,
  generateDefaultObserverSchema,
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  isResource,
  jsonEqual,
  listControl,
  listElements,
  ownerOf,
  plan,
  updateLastAppliedManifestFromResponse,
  updateLastAppliedManifestFromSpec,
  updateLastObservedManifestFromResponse,
  validateObserverSchema,
  type Action,
  type JsonObject,
  type JsonValue,
  type ObserverSchema,
  type PatchAction,
  type Plan,
  type Resource,
  type SchemaNode,
} from '../../core/internal.js';
import { schemaFor, indexSchemas } from '../../core/schema/lookup.js';
import { applyLiveEdits, liveEditsArbitrary, manifestArbitrary } from '../../core/model/resource.arbitrary.js';
import { observerSchemaArbitrary } from '../../core/model/observer-schema.arbitrary.js';
import { APP_NAMESPACE, OPEN_TENANCY, OWNER_MARK, application, deepFreeze, writes } from './fixtures.js';
import { indexIn, preexistingObject, run, scenarioArbitrary, scopes, specOf, stored } from './scenario.js';

// At least 1 000 runs each; raise it to hunt for rare counterexamples (KRECONCILE_PROPERTY_RUNS=20000).
const RUNS = { numRuns: Math.max(1000, Number(process.env.KRECONCILE_PROPERTY_RUNS ?? 0)) };

// ---------------------------------------------------------------------------------------------
// Checks.

const patchesOf = (result: Plan): ReadonlyArray<PatchAction> =>
  result.actions.filter((a): a is PatchAction => a.type === 'patch');

const schemaOfRef = (result: Plan, action: Action): SchemaNode | undefined => {
  const schemas = indexSchemas(result.status.mangledObserverSchema ?? []);
  return schemaFor(schemas, {
    apiVersion: action.ref.apiVersion,
    kind: action.ref.kind,
    metadata: { name: action.ref.name },
  });
};

const isIndex = (token: string): boolean => /^(0|[1-9][0-9]*)$/.test(token);

/**
 * Whether a value written at an observed schema node holds only observed fields: an object only
 * observed keys, a list only observed positions, except whole desired elements added to reach the
 * list's minimum or to hold the place of a later observed position (see `patchOf`). A value shaped
 * unlike its schema node (a scalar or list where an object is observed, a scalar or object where a
 * list is) is the user's value of an observed key, compared and written whole, as drift does.
 */
const withinSchema = (value: JsonValue, schema: SchemaNode | undefined): boolean => {
  if (schema === null) return true;
  if (schema === undefined) return false;
  if (isJsonArray(schema)) {
    if (!isJsonArray(value)) return true;
    const elements = listElements(schema);
    const { min } = listControl(schema);
    const observedAt = (i: number): boolean => i < elements.length && withinSchema(value[i] as JsonValue, elements[i]);
    const lastObserved = value.findLastIndex((_, i) => observedAt(i));
    return value.every((_, i) => i < min || i < lastObserved || observedAt(i));
  }
  if (isJsonObject(schema)) {
    if (!isJsonObject(value)) return true;
    return Object.entries(value).every(([key, child]) => hasOwn(schema, key) && withinSchema(child, schema[key]));
  }
  return false; // identification values are never written
};

/** The reason an operation of a patch touches something not observed, or undefined when it does not. */
const unobservedWrite = (
  operation: PatchAction['patch'][number],
  schema: SchemaNode | undefined,
  patch: PatchAction['patch'],
): string | undefined => {
  if (operation.op === 'test') return undefined;
  const tokens = fromPointer(operation.path);
  if (['status', 'apiVersion', 'kind'].includes(tokens[0] ?? '') && tokens.length >= 1)
    return `${operation.path}: top-level ${tokens[0]}`;
  if (tokens[0] === 'metadata' && (tokens[1] === 'name' || tokens[1] === 'namespace'))
    return `${operation.path}: identification`;
  let node: SchemaNode | undefined = schema;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    const last = i === tokens.length - 1;
    if (node === null) return undefined; // inside an observed leaf
    if (isJsonArray(node)) {
      if (!isIndex(token)) return `${operation.path}: ${token} is not a list position`;
      const position = Number(token);
      const elements = listElements(node);
      const { min, max } = listControl(node);
      if (last && operation.op === 'add' && position < min) return undefined; // reaching the minimum length
      if (last && operation.op === 'add' && holdsPlace(operation.path, position, patch, node)) return undefined;
      if (last && operation.op === 'remove' && max !== 0 && position >= max) return undefined; // trimming beyond the maximum
      if (position >= elements.length) return `${operation.path}: position ${position} is not observed`;
      node = elements[position];
    } else if (isJsonObject(node)) {
      if (!hasOwn(node, token)) return `${operation.path}: ${token} is not observed`;
      node = node[token];
    } else return `${operation.path}: below an identification value`;
  }
  if (operation.op === 'remove') return `${operation.path}: removes an observed field`;
  return withinSchema(operation.value, node)
    ? undefined
    : `${operation.path}: value ${JSON.stringify(operation.value)} holds non-observed fields`;
};

/** Whether an element added at `position` holds the place of an observed element added after it in the same patch. */
const holdsPlace = (
  pointer: string,
  position: number,
  patch: PatchAction['patch'],
  list: ReadonlyArray<SchemaNode>,
): boolean => {
  const parent = pointer.slice(0, pointer.lastIndexOf('/'));
  const elements = listElements(list);
  return patch.some((other) => {
    if (other.op !== 'add' || other.path.slice(0, other.path.lastIndexOf('/')) !== parent) return false;
    const later = Number(other.path.slice(other.path.lastIndexOf('/') + 1));
    return later > position && later < elements.length && withinSchema(other.value, elements[later]);
  });
};

const unobservedWrites = (result: Plan): ReadonlyArray<string> =>
  patchesOf(result).flatMap((action) => {
    const schema = schemaOfRef(result, action);
    return action.patch.flatMap((operation) => unobservedWrite(operation, schema, action.patch) ?? []);
  });

/**
 * Where `result` loses or changes something of `original`: known values must stay, lists may
 * only grow at observed positions, keys may only be added where observed.
 */
const lostOrChanged = (
  original: JsonValue | undefined,
  result: JsonValue | undefined,
  schema: SchemaNode | undefined,
  path: string,
): ReadonlyArray<string> => {
  if (original === undefined || original === null) {
    return schema === undefined && !jsonEqual(original, result)
      ? [`${path}: not observed, yet changed to ${JSON.stringify(result)}`]
      : [];
  }
  const childSchema = (key: string | number): SchemaNode | undefined => {
    if (schema === null) return null;
    if (typeof key === 'number')
      return isJsonArray(schema) && key < listElements(schema).length ? listElements(schema)[key] : undefined;
    return isJsonObject(schema) && hasOwn(schema, key) ? schema[key] : undefined;
  };
  if (isJsonArray(original)) {
    if (!isJsonArray(result) || result.length < original.length) return [`${path}: list shortened or replaced`];
    return [
      ...original.flatMap((item, i) => lostOrChanged(item, result[i], childSchema(i), `${path}[${i}]`)),
      ...result
        .slice(original.length)
        .flatMap((_, j) =>
          childSchema(original.length + j) === undefined
            ? [`${path}[${original.length + j}]: appended at a non-observed position`]
            : [],
        ),
    ];
  }
  if (isJsonObject(original)) {
    if (!isJsonObject(result)) return [`${path}: object replaced by ${JSON.stringify(result)}`];
    return [
      ...Object.entries(original).flatMap(([key, value]) =>
        lostOrChanged(value, getOwn(result, key), childSchema(key), `${path}.${key}`),
      ),
      ...Object.keys(result)
        .filter((key) => !hasOwn(original, key) && childSchema(key) === undefined)
        .map((key) => `${path}.${key}: added but not observed`),
    ];
  }
  return jsonEqual(original, result) ? [] : [`${path}: ${JSON.stringify(original)} became ${JSON.stringify(result)}`];
};

/** Observed lists of `live` outside their control although the desired list could bring them inside. */
const lengthViolations = (
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  schema: SchemaNode | undefined,
  path: string,
): ReadonlyArray<string> => {
  if (schema === null || schema === undefined || desired === undefined || desired === null) return [];
  if (isJsonArray(schema)) {
    if (!isJsonArray(desired) || (live !== undefined && !isJsonArray(live))) return [];
    const items = live ?? [];
    const { min, max } = listControl(schema);
    const length = items.length;
    const problems = [
      ...(desired.length >= min && length < min ? [`${path}: length ${length} < min ${min}`] : []),
      ...(max !== 0 && length > max ? [`${path}: length ${length} > max ${max}`] : []),
    ];
    const elements = listElements(schema);
    const nested = elements
      .slice(0, Math.min(desired.length, items.length))
      .flatMap((element, i) => lengthViolations(desired[i], items[i], element, `${path}[${i}]`));
    return [...problems, ...nested];
  }
  if (!isJsonObject(schema) || !isJsonObject(desired) || !isJsonObject(live)) return [];
  return Object.entries(schema).flatMap(([key, child]) =>
    lengthViolations(getOwn(desired, key), getOwn(live, key), child, `${path}.${key}`),
  );
};

/** Whether a list of named elements anywhere in `value` repeats a name. */
const repeatsAName = (value: JsonValue): boolean => {
  if (isJsonArray(value)) {
    const names = value.flatMap((item) => (isJsonObject(item) && typeof item.name === 'string' ? [item.name] : []));
    return new Set(names).size < names.length || value.some(repeatsAName);
  }
  return isJsonObject(value) && Object.values(value).some((child) => child !== undefined && repeatsAName(child));
};

const BUILTIN_CATALOG = catalogOfCompact(builtinSchemas());

/**
 * Whether a list item of `object` is one the API server refuses: a field its schema requires missing, or one of the
 * wrong type (an env var without `name`, a container named `false`), or a value its rules beyond the schema refuse
 * (a Service port 0, an unnamed port beside others: core/schema/server-rules, as `validate` checks them). Server-side
 * apply would name such an item by its key's default (`""`, port 0) or not at all, so an apply cannot say which live
 * item it means.
 */
const listItemRefused = (object: JsonObject): boolean =>
  [
    ...objectSchemaIssues(object, BUILTIN_CATALOG).filter((issue) =>
      /^(missing required field|expected )/.test(issue.message),
    ),
    ...serverRuleIssues(object, 0),
  ].some((issue) => /\]\.[^.[\]]+$/.test(issue.path));

const liveOfRef = (live: ReadonlyArray<Resource>, resource: Resource): Resource | undefined => {
  const index = indexIn([resource], resource) < 0 ? -1 : live.findIndex((object) => indexIn([resource], object) === 0);
  return index < 0 ? undefined : live[index];
};

// ---------------------------------------------------------------------------------------------

describe('properties of plan (with a pure applier standing in for the API server)', () => {
  it('convergence: after executing a plan, planning again against the result has no create/patch/delete', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const { planC } = run(s);
        expect(writes(planC)).toEqual([]);
      }),
      RUNS,
    );
  });

  it('convergence in ServerSideApply mode: the observed-fields intent, applied as the memory API server applies it, converges too', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const { live0, liveB, live2, planB, planC } = run(s, 'ServerSideApply');
        // Keyed lists with a repeated key do not exist there: the API server refuses them (duplicate entries for a map
        // list's key).
        fc.pre(![s.pool, s.variants, live0, liveB, live2].flat().some(repeatsAName));
        // Nor keyed list items without their keys (a Service port without `port`): the API server cannot type them to
        // apply.
        fc.pre(![s.pool, s.variants, live0, liveB, live2].flat().some(untypable));
        fc.pre(![s.pool, s.variants, live0, liveB, live2].flat().some(listItemRefused));
        // Every patch of the mode says how it is sent: its intent, or its JSON Patch naming the lists
        // whose live names are off the schema's positions (renamed or shifted by another actor).
        expect(
          patchesOf(planB).filter((a) => (a.serverSideApply === undefined) === (a.positionalLists === undefined)),
        ).toEqual([]);
        expect(writes(planC)).toEqual([]);
      }),
      RUNS,
    );
  });

  it('convergence: the second plan reports Ready, or Stalled NotOwned when a foreign object blocks it', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const { planC } = run(s);
        const conflicts = planC.actions.filter((action) => action.type === 'conflict');
        const ready = planC.status.conditions?.find((c) => c.type === 'Ready');
        const stalled = planC.status.conditions?.find((c) => c.type === 'Stalled');
        if (conflicts.length === 0) expect(ready?.status).toBe('True');
        else expect([stalled?.status, stalled?.reason]).toEqual(['True', 'NotOwned']);
      }),
      RUNS,
    );
  });

  it('non-observed fields are never in a patch (except whole elements added to reach a list minimum)', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const { planA, planB, planC } = run(s);
        expect([...unobservedWrites(planA), ...unobservedWrites(planB), ...unobservedWrites(planC)]).toEqual([]);
      }),
      RUNS,
    );
  });

  it('objects owned by another Application (or unmarked, without adopt) are never written', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const { live0, planA, planB } = run(s);
        const foreign = live0.filter((object) => ownerOf(object) !== OWNER_MARK);
        const touched = [...writes(planA), ...writes(planB)].filter((action) =>
          foreign.some(
            (object) =>
              indexIn([object], {
                apiVersion: action.ref.apiVersion,
                kind: action.ref.kind,
                metadata: {
                  name: action.ref.name,
                  ...(action.ref.namespace === undefined ? {} : { namespace: action.ref.namespace }),
                },
              }) === 0,
          ),
        );
        expect(touched).toEqual([]);
      }),
      RUNS,
    );
  });

  it('list lengths end inside [min, max] after executing the plan (when the desired list can reach min)', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const { planB, live2 } = run(s);
        const schemas = indexSchemas(planB.status.mangledObserverSchema ?? []);
        const conflicted = planB.actions
          .filter((a) => a.type === 'conflict')
          .map((a) => `${a.ref.kind}/${a.ref.namespace ?? ''}/${a.ref.name}`);
        const violations = (planB.status.lastAppliedManifest ?? []).flatMap((desired) => {
          if (conflicted.includes(`${desired.kind}/${desired.metadata.namespace ?? ''}/${desired.metadata.name}`))
            return [];
          const live = liveOfRef(live2, desired);
          const schema = schemaFor(schemas, desired);
          if (live === undefined || !isJsonObject(schema)) return [];
          return Object.entries(schema)
            .filter(([key]) => key !== 'status' && key !== 'apiVersion' && key !== 'kind')
            .flatMap(([key, child]) =>
              lengthViolations(
                getOwn(desired, key),
                getOwn(live, key),
                child,
                `${desired.kind}/${desired.metadata.name}.${key}`,
              ),
            );
        });
        expect(violations).toEqual([]);
      }),
      RUNS,
    );
  });

  it('spec values always win in the desired state a plan records', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const { planB, appB } = run(s);
        const schemas = indexSchemas(planB.status.mangledObserverSchema ?? []);
        // Secret values are recorded as their digests (core/sensitive/secret-values.ts): the spec's digest must win.
        const manifest = (appB.spec.manifest ?? []).map(stored).map((resource) => withDigests(resource));
        if (planB.status.lastAppliedManifest === undefined) return; // a stalled plan records nothing
        const problems = manifest.flatMap((resource, i) =>
          lostOrChanged(
            resource,
            planB.status.lastAppliedManifest?.[i],
            schemaFor(schemas, resource),
            `${resource.kind}/${resource.metadata.name}`,
          ),
        );
        expect(problems).toEqual([]);
      }),
      RUNS,
    );
  });
});

describe('plan is a function of its input alone', () => {
  it('results do not depend on earlier calls through the same planner (its memo is invisible)', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const { appB, live0, liveB } = run(s);
        const planner = createPlanner();
        planner.plan({ application: appB, live: live0, scopes, now: 't2', options: { tenancy: OPEN_TENANCY } });
        planner.plan({ application: appB, live: [], scopes, now: 't2', options: { tenancy: OPEN_TENANCY } });
        const reused = planner.plan({
          application: appB,
          live: liveB,
          scopes,
          now: 't2',
          options: { tenancy: OPEN_TENANCY },
        });
        const fresh = plan({
          application: structuredClone(appB),
          live: structuredClone(liveB),
          scopes: new Map(scopes),
          now: 't2',
          options: { tenancy: OPEN_TENANCY },
        });
        expect(reused).toEqual(fresh);
      }),
      RUNS,
    );
  });

  it('the in-sync fast path is invisible: same plan with or without the previous observation', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const { planB, appB, live2 } = run(s);
        const next = { ...appB, metadata: { ...appB.metadata, finalizers: [FINALIZER] }, status: planB.status };
        const withObservation = plan({
          application: next,
          live: live2,
          scopes,
          now: 't3',
          options: { tenancy: OPEN_TENANCY },
        });
        const without = plan({
          application: { ...next, status: { ...planB.status, lastObservedManifest: [] } },
          live: structuredClone(live2),
          scopes,
          now: 't3',
          options: { tenancy: OPEN_TENANCY },
        });
        expect(withObservation.actions).toEqual(without.actions);
        expect(withObservation.status.lastAppliedManifest).toEqual(without.status.lastAppliedManifest);
        expect(withObservation.status.lastObservedManifest).toEqual(without.status.lastObservedManifest);
      }),
      RUNS,
    );
  });
});

describe('properties of the learning and observing steps', () => {
  const learningCase = manifestArbitrary(3).chain((manifest) =>
    fc.record({
      manifest: fc.constant(manifest.map(stored)),
      custom: fc.tuple(...manifest.map((resource) => fc.option(observerSchemaArbitrary(resource), { nil: undefined }))),
      index: fc.nat({ max: manifest.length - 1 }),
      edits: liveEditsArbitrary(5),
    }),
  );

  it("the user's observed values prevail: updateLastAppliedManifestFromResponse never changes a known value", () => {
    fc.assert(
      fc.property(learningCase, ({ manifest, custom, index, edits }) => {
        const mangled = generateDefaultObserverSchema({
          manifest,
          observerSchema: custom.filter((s): s is ObserverSchema => s !== undefined),
        });
        const desired = manifest[index] as Resource;
        const response = applyLiveEdits(desired, edits);
        const learned = updateLastAppliedManifestFromResponse({
          lastAppliedManifest: manifest,
          mangledObserverSchema: mangled,
          response,
          namespace: APP_NAMESPACE,
        });
        const schema = schemaFor(indexSchemas(mangled), desired);
        expect(learned.length).toBe(manifest.length);
        expect(lostOrChanged(desired, learned[index], schema, desired.kind)).toEqual([]);
        learned.forEach((resource, i) => {
          if (i !== index) expect(resource).toEqual(manifest[i]);
        });
      }),
      RUNS,
    );
  });

  it('learning from the response is idempotent and its result shows no drift against the response', () => {
    fc.assert(
      fc.property(learningCase, ({ manifest, custom, index, edits }) => {
        const mangled = generateDefaultObserverSchema({
          manifest,
          observerSchema: custom.filter((s): s is ObserverSchema => s !== undefined),
        });
        const response = applyLiveEdits(manifest[index] as Resource, edits);
        const once = updateLastAppliedManifestFromResponse({
          lastAppliedManifest: manifest,
          mangledObserverSchema: mangled,
          response,
          namespace: APP_NAMESPACE,
        });
        const twice = updateLastAppliedManifestFromResponse({
          lastAppliedManifest: once,
          mangledObserverSchema: mangled,
          response,
          namespace: APP_NAMESPACE,
        });
        expect(twice).toEqual(once);
        const observed = updateLastObservedManifestFromResponse({
          lastObservedManifest: [],
          mangledObserverSchema: mangled,
          response,
          namespace: APP_NAMESPACE,
        });
        const delta = calculateResourceDelta({
          lastAppliedManifest: [once[index] as Resource],
          lastObservedManifest: observed,
          mangledObserverSchema: mangled,
          namespace: APP_NAMESPACE,
        });
        expect(delta.new).toEqual([]);
        expect(delta.deleted).toEqual([]);
      }),
      RUNS,
    );
  });
});

describe('no input is mutated', () => {
  it('all seven functions leave deep-frozen inputs untouched', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const appA = application(specOf(s.pool, s.schemas, s.inA), { finalizer: s.finalizer });
        const live = s.pool.flatMap((resource, i) =>
          preexistingObject(resource, s.preexisting[i] ?? 'ours', s.actorEdits[i] ?? []),
        );
        const inputs = { s, appA, live };
        const before = structuredClone(inputs);
        deepFreeze(inputs);
        const manifest = appA.spec.manifest ?? [];
        const custom = appA.spec.observerSchema ?? [];
        validateObserverSchema({ manifest, observerSchema: custom });
        const mangled = generateDefaultObserverSchema({ manifest, observerSchema: custom });
        deepFreeze(mangled);
        const lastApplied = updateLastAppliedManifestFromSpec({
          manifest,
          mangledObserverSchema: mangled,
          lastAppliedManifest: s.variants,
        });
        deepFreeze(lastApplied);
        live.forEach((response) => {
          updateLastAppliedManifestFromResponse({
            lastAppliedManifest: lastApplied,
            mangledObserverSchema: mangled,
            response,
          });
          updateLastObservedManifestFromResponse({
            lastObservedManifest: live,
            mangledObserverSchema: mangled,
            response,
          });
        });
        calculateResourceDelta({
          lastAppliedManifest: lastApplied,
          lastObservedManifest: live,
          mangledObserverSchema: mangled,
        });
        const first = plan({ application: appA, live, scopes, now: 't1', options: { tenancy: OPEN_TENANCY } });
        deepFreeze(first);
        const next = { ...appA, metadata: { ...appA.metadata, finalizers: [FINALIZER] }, status: first.status };
        deepFreeze(next);
        plan({ application: next, live, scopes, now: 't2', options: { tenancy: OPEN_TENANCY } });
        plan({ application: next, live: undefined, scopes, now: 't2', options: { tenancy: OPEN_TENANCY } });
        plan({
          application: { ...next, metadata: { ...next.metadata, deletionTimestamp: 't' } },
          live,
          scopes,
          now: 't3',
          options: { tenancy: OPEN_TENANCY },
        });
        expect(inputs).toEqual(before);
      }),
      RUNS,
    );
  });
});

describe('never throws on arbitrary JSON', () => {
  const json = fc.jsonValue({ maxDepth: 4 });

  it('validateObserverSchema returns an Either for any manifest and schemas', () => {
    fc.assert(
      fc.property(
        fc.oneof(json, fc.array(json)),
        fc.oneof(json, fc.array(json), fc.constant(undefined)),
        (manifest, observerSchema) => {
          const result = validateObserverSchema({
            manifest: manifest as ReadonlyArray<JsonValue>,
            observerSchema: observerSchema as ReadonlyArray<JsonValue> | undefined,
          });
          expect(E.isLeft(result) || E.isRight(result)).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('validateObserverSchema on schema-shaped JSON (right identification, arbitrary body)', () => {
    fc.assert(
      fc.property(manifestArbitrary(2), fc.array(json, { maxLength: 3 }), (manifest, bodies) => {
        const schemas = bodies.map((body, i) => {
          const resource = manifest[i % manifest.length] as Resource;
          return {
            apiVersion: resource.apiVersion,
            kind: resource.kind,
            metadata: { name: resource.metadata.name },
            spec: body,
          };
        });
        const result = validateObserverSchema({
          manifest,
          observerSchema: schemas as unknown as ReadonlyArray<JsonValue>,
        });
        if (E.isLeft(result)) expect(result.left.issues.length).toBeGreaterThan(0);
        // A valid schema comes back in the internal form: every `true` marker is `null`.
        else
          expect(result.right).toEqual(
            JSON.parse(JSON.stringify(schemas, (_key, value: unknown) => (value === true ? null : value))),
          );
      }),
      RUNS,
    );
  });

  it('decodeApplication returns issues or an Application for any JSON', () => {
    fc.assert(
      fc.property(json, (input) => {
        const result = decodeApplication(input);
        if (E.isLeft(result)) expect(result.left.length).toBeGreaterThan(0);
      }),
      RUNS,
    );
  });

  const resourceish = fc.record(
    {
      apiVersion: fc.constantFrom('v1', 'apps/v1', 'music.example/v1', 'unknown.example/v1'),
      kind: fc.constantFrom('ConfigMap', 'Deployment', 'Song', 'Namespace', 'Thing'),
      metadata: fc.record(
        {
          name: fc.constantFrom('a', 'b'),
          namespace: fc.option(fc.constantFrom('default', 'other'), { nil: undefined }),
          annotations: fc.option(fc.oneof(fc.constant({ 'kreconcile.io/owner': OWNER_MARK }), json), {
            nil: undefined,
          }),
          labels: fc.option(json, { nil: undefined }),
          deletionTimestamp: fc.option(fc.constant('t'), { nil: undefined }),
        },
        { requiredKeys: ['name'] },
      ),
      spec: json,
      data: json,
    },
    { requiredKeys: ['apiVersion', 'kind', 'metadata'] },
  );

  /** Mostly well-typed where the codec checks types (so that most inputs decode), arbitrary JSON elsewhere. */
  const mostly = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
    fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: json });

  const applicationish = fc.record(
    {
      apiVersion: fc.constant('kreconcile.io/v1alpha1'),
      kind: fc.constant('Application'),
      metadata: fc.record(
        {
          name: fc.constant('app'),
          namespace: fc.constant('default'),
          uid: fc.constant('uid'),
          generation: fc.integer({ min: 1, max: 3 }),
          finalizers: mostly(fc.constant([FINALIZER])),
          deletionTimestamp: fc.constant('t'),
          labels: json,
        },
        { requiredKeys: ['name'] },
      ),
      spec: mostly(
        fc.record(
          {
            manifest: mostly(
              fc.array(fc.oneof({ weight: 4, arbitrary: resourceish }, { weight: 1, arbitrary: json }), {
                maxLength: 4,
              }),
            ),
            observerSchema: fc.oneof(json, fc.array(fc.oneof(json, resourceish), { maxLength: 3 })),
            hooks: fc.constantFrom(['complete'], ['shutdown', 'complete'], []),
            adopt: fc.boolean(),
            tosca: json,
            csar: fc.string(),
          },
          { requiredKeys: [] },
        ),
      ),
      status: mostly(
        fc.record(
          {
            observedGeneration: fc.integer(),
            conditions: fc.constant([
              { type: 'Ready', status: 'True', reason: 'r', message: 'm', lastTransitionTime: 't0' },
            ]),
            mangledObserverSchema: fc.array(fc.oneof(json, resourceish).filter(isJsonObject), { maxLength: 3 }),
            lastAppliedManifest: fc.array(resourceish, { maxLength: 3 }),
            lastObservedManifest: fc.array(fc.oneof(resourceish, fc.dictionary(fc.string(), json)), { maxLength: 3 }),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: ['apiVersion', 'kind', 'metadata', 'spec'] },
  );

  it('plan never throws on a decoded Application, with or without a live snapshot', () => {
    let decoded = 0;
    fc.assert(
      fc.property(
        applicationish,
        fc.option(fc.array(fc.oneof(resourceish, json), { maxLength: 4 }), { nil: undefined }),
        (input, live) => {
          const application = decodeApplication(input);
          if (E.isLeft(application)) return;
          decoded++;
          const snapshot = (live as ReadonlyArray<JsonValue> | undefined)?.filter(isResource);
          const result = plan({
            application: application.right,
            live: snapshot,
            scopes,
            now: 't',
            options: { tenancy: OPEN_TENANCY },
          });
          expect(Array.isArray(result.actions)).toBe(true);
          expect(result.outcome._tag).toMatch(/^(RequeueAfter|AwaitChange)$/);
        },
      ),
      RUNS,
    );
    expect(decoded).toBeGreaterThan(200);
  });

  it('plan never throws when arbitrary JSON stands in for resources, schemas and status entries', () => {
    fc.assert(
      fc.property(
        fc.array(resourceish, { minLength: 1, maxLength: 4 }),
        fc.array(json, { maxLength: 3 }),
        fc.array(resourceish, { maxLength: 3 }),
        fc.array(resourceish, { maxLength: 3 }),
        (manifest, observerSchema, observed, live) => {
          const app = application(
            {
              manifest: manifest as unknown as ReadonlyArray<Resource>,
              observerSchema: observerSchema as unknown as ReadonlyArray<ObserverSchema>,
            },
            {
              status: {
                lastObservedManifest: observed as unknown as ReadonlyArray<JsonObject>,
                lastAppliedManifest: manifest as unknown as ReadonlyArray<Resource>,
                mangledObserverSchema: observed as unknown as ReadonlyArray<Resource>,
              },
            },
          );
          const snapshot = live as unknown as ReadonlyArray<Resource>;
          for (const result of [
            plan({ application: app, live: snapshot, scopes, now: 't', options: { tenancy: OPEN_TENANCY } }),
            plan({ application: app, live: undefined, scopes, now: 't', options: { tenancy: OPEN_TENANCY } }),
            plan({
              application: { ...app, metadata: { ...app.metadata, deletionTimestamp: 't' } },
              live: snapshot,
              scopes,
              now: 't',
              options: { tenancy: OPEN_TENANCY },
            }),
          ])
            expect(result.status.conditions?.length).toBe(3);
        },
      ),
      RUNS,
    );
  });
});
