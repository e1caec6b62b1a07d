/**
 * A generated reconcile scenario for the property tests: reconcile spec A against a cluster
 * (some objects already there: ours, unmarked, another Application's), let another actor change
 * our objects while the user edits the spec (B), reconcile B, then reconcile once more.
 */
import fc from 'fast-check';
import { freeze } from 'immer';
import {
  type ApplyMode,
  hasOwn,
  identityOf,
  isJsonArray,
  isJsonObject,
  listElements,
  ownerOf,
  plan,
  withNamespace,
  type Application,
  type ObserverSchema,
  type Plan,
  type PlanInput,
  type Resource,
  type SchemaNode,
} from '../../core/internal.js';
import { indexSchemas, schemaFor } from '../../core/schema/lookup.js';
import {
  applyLiveEdits,
  arbitraryScopes,
  liveEditsArbitrary,
  manifestArbitrary,
  ownedBy,
  serverDefaultsArbitrary,
  type LiveEdit,
  type Step,
} from '../../core/model/resource.arbitrary.js';
import { canonicalResource } from '../../core/canonical/canonical.js';
import { observerSchemaArbitrary } from '../../core/model/observer-schema.arbitrary.js';
import { APP_NAMESPACE, OPEN_TENANCY, OWNER_MARK, afterPlan, application, execute } from './fixtures.js';

export const scopes = arbitraryScopes;

/**
 * A resource as the API server stores it: namespace defaulted (or dropped for cluster-scoped kinds), values canonical.
 */
export const stored = (resource: Resource): Resource =>
  canonicalResource(withNamespace(resource, identityOf(resource, scopes, APP_NAMESPACE)));

export type Preexisting = 'none' | 'ours' | 'unmarked' | 'another';

export type Scenario = {
  readonly pool: ReadonlyArray<Resource>;
  /** Spec B's version of each resource (the user edited it) or the same one. */
  readonly variants: ReadonlyArray<Resource>;
  readonly schemas: ReadonlyArray<ObserverSchema | undefined>;
  readonly inA: ReadonlyArray<boolean>;
  readonly inB: ReadonlyArray<boolean>;
  readonly preexisting: ReadonlyArray<Preexisting>;
  readonly serverDefaults: ReadonlyArray<ReadonlyArray<LiveEdit>>;
  readonly actorEdits: ReadonlyArray<ReadonlyArray<LiveEdit>>;
  readonly finalizer: boolean;
};

const userEdits = liveEditsArbitrary(3).map((edits) =>
  edits.filter((edit) => edit.op !== 'server' && edit.op !== 'status'),
);

const perResource = <T>(
  pool: ReadonlyArray<Resource>,
  arbitrary: (resource: Resource) => fc.Arbitrary<T>,
): fc.Arbitrary<ReadonlyArray<T>> => fc.tuple(...pool.map(arbitrary));

/** Resources are in a spec 3 times in 4. */
const likely = fc.constantFrom(true, true, true, false);

export const scenarioArbitrary: fc.Arbitrary<Scenario> = manifestArbitrary(5).chain((pool) =>
  fc.record({
    pool: fc.constant(pool),
    variants: perResource(pool, (resource) =>
      fc.oneof(
        fc.constant(resource),
        userEdits.map((edits) => applyLiveEdits(resource, edits)),
      ),
    ),
    schemas: perResource(pool, (resource) => fc.option(observerSchemaArbitrary(resource), { nil: undefined })),
    inA: perResource(pool, () => likely),
    inB: perResource(pool, () => likely),
    preexisting: perResource(pool, () =>
      fc.constantFrom<Preexisting>('none', 'none', 'none', 'none', 'none', 'ours', 'ours', 'unmarked', 'another'),
    ),
    serverDefaults: perResource(pool, () => serverDefaultsArbitrary),
    actorEdits: perResource(pool, () => liveEditsArbitrary(4).filter((edits) => edits.length > 0)),
    finalizer: fc.boolean(),
  }),
);

export const specOf = (
  resources: ReadonlyArray<Resource>,
  schemas: ReadonlyArray<ObserverSchema | undefined>,
  chosen: ReadonlyArray<boolean>,
) => {
  const manifest = resources.filter((_, i) => chosen[i] === true);
  const observerSchema = schemas.filter(
    (schema, i): schema is ObserverSchema => chosen[i] === true && schema !== undefined,
  );
  return {
    manifest: manifest.length === 0 ? [resources[0] as Resource] : manifest,
    observerSchema: chosen.some(Boolean) ? observerSchema : [],
  };
};

export const preexistingObject = (
  resource: Resource,
  kind: Preexisting,
  edits: ReadonlyArray<LiveEdit>,
): ReadonlyArray<Resource> => {
  switch (kind) {
    case 'none':
      return [];
    case 'ours':
      return [applyLiveEdits(ownedBy(stored(resource), OWNER_MARK), edits)];
    case 'unmarked':
      return [stored(resource)];
    case 'another':
      return [ownedBy(stored(resource), 'default/another-app')];
  }
};

/** Which pool entry a live object is (by identity). */
export const indexIn = (pool: ReadonlyArray<Resource>, object: Resource): number =>
  pool.findIndex((resource) => {
    const a = identityOf(resource, scopes, APP_NAMESPACE);
    const b = identityOf(object, scopes, APP_NAMESPACE);
    return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.namespace === b.namespace;
  });

export type Run = {
  readonly live0: ReadonlyArray<Resource>;
  readonly planA: Plan;
  readonly live1: ReadonlyArray<Resource>;
  readonly planB: Plan;
  readonly liveB: ReadonlyArray<Resource>;
  readonly live2: ReadonlyArray<Resource>;
  readonly planC: Plan;
  readonly appB: Application;
};

/**
 * Whether `path` lies within a value its schema observes whole: a `null` node on the way, or a
 * value whose shape differs from its schema's (a list where the schema has an object, or the
 * reverse), which drift compares whole too.
 */
export const observedWhole = (schema: SchemaNode | undefined, path: ReadonlyArray<Step>): boolean => {
  let node: SchemaNode | undefined = schema;
  for (const step of path) {
    if (node === null) return true;
    if (isJsonArray(node)) {
      if (typeof step !== 'number') return true;
      node = step < listElements(node).length ? listElements(node)[step] : undefined;
    } else if (isJsonObject(node)) {
      if (typeof step !== 'string') return true;
      node = hasOwn(node, step) ? node[step] : undefined;
    } else return false;
    if (node === undefined) return false;
  }
  return node === null;
};

/** Runs the scenario with a pure applier standing in for the API server. */
export const run = (s: Scenario, applyMode: ApplyMode = 'JsonPatch'): Run => {
  const mode = applyMode === 'JsonPatch' ? {} : { applyMode };
  // The server defaults fields where they are unset. Inside a value observed whole (a `null` schema
  // leaf) that is drift by definition (the next patch restores the user's value), so not there.
  const creating =
    (result: Plan) =>
    (body: Resource): Resource => {
      const index = indexIn(s.pool, body);
      const schema = schemaFor(indexSchemas(result.status.mangledObserverSchema ?? []), body);
      return applyLiveEdits(
        body,
        index < 0 ? [] : (s.serverDefaults[index] ?? []),
        (path) => !observedWhole(schema, path),
      );
    };
  const live0 = s.pool.flatMap((resource, i) =>
    preexistingObject(resource, s.preexisting[i] ?? 'none', s.actorEdits[i] ?? []),
  );
  const appA = application({ ...specOf(s.pool, s.schemas, s.inA), ...mode }, { finalizer: s.finalizer });
  const planA = frozenPlan({ application: appA, live: live0, scopes, now: 't1', options: { tenancy: OPEN_TENANCY } });
  const live1 = execute(live0, planA.actions, creating(planA));
  // Another actor changes the objects we own; the user edits the spec.
  const liveB = live1.map((object) => {
    const index = indexIn(s.pool, object);
    return ownerOf(object) === OWNER_MARK && index >= 0 ? applyLiveEdits(object, s.actorEdits[index] ?? []) : object;
  });
  const appB: Application = { ...afterPlan(appA, planA), spec: { ...specOf(s.variants, s.schemas, s.inB), ...mode } };
  const planB = frozenPlan({ application: appB, live: liveB, scopes, now: 't2', options: { tenancy: OPEN_TENANCY } });
  const live2 = execute(liveB, planB.actions, creating(planB));
  // The pure applier runs no workload controllers: children count as ready once they exist.
  const planC = frozenPlan({
    application: afterPlan(appB, planB),
    live: live2,
    scopes,
    now: 't3',
    options: { readiness: 'existence', tenancy: OPEN_TENANCY },
  });
  return { live0, planA, live1, planB, liveB, live2, planC, appB };
};

/** `plan` of deep-frozen inputs (immer's `freeze`): a mutation of any input throws. */
const frozenPlan = (input: PlanInput): Plan => plan(freeze(input, true));
