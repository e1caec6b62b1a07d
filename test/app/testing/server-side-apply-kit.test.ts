/**
 * kreconcile's own `spec.applyMode: ServerSideApply` in the test kit (issue 35, item 5): the same
 * story as on the real API server (test/integration/e2e-server-side-apply.test.ts), on the kit's
 * in-memory API server with no conflict injected: the server's own field ownership decides.
 * kreconcile applies the observed fields as field manager `kreconcile` and converges; a field
 * another manager wrote that kreconcile does not observe stays through later applies; an observed
 * field another manager took over answers 409 and stalls the Application `Conflict` naming that
 * manager; `spec.forceConflicts` takes the field back, and the other manager no longer owns it.
 */
import { describe, expect, it } from 'vitest';
import {
  createMemoryCluster,
  ManualClock,
  reconcileAllApplications,
  type MemoryCluster,
} from '../../../app/testing/index.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  FIELD_MANAGER,
  getIn,
  isJsonArray,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type ObjectRef,
  type Resource,
} from '../../../core/internal.js';
import type { ReconcileResult } from '../../../app/reconcile/reconcile-application.js';
import {
  applicationRef,
  conditionOf,
  expectReady,
  readApplication,
  readExisting,
} from '../../support/e2e-application.js';
import { must } from '../../support/kubernetes-env.js';

const NAMESPACE = 'shop';
const config: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: NAMESPACE, name: 'web-config' };
const deployment: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NAMESPACE, name: 'web' };
const ref = applicationRef(NAMESPACE, 'ssa');

/** LOG_LEVEL is in the manifest but not observed: kreconcile creates it and then leaves it to others. */
const spec = (color: string, extra: JsonObject = {}): JsonObject => ({
  applyMode: 'ServerSideApply',
  manifest: [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-config' },
      data: { LOG_LEVEL: 'info', COLOR: color },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    },
  ],
  observerSchema: [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { COLOR: true } },
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: true } },
  ],
  ...extra,
});

/** Each managedFields entry's fieldsV1, by `manager/operation`. */
const ownersOf = (object: Resource): ReadonlyMap<string, JsonValue | undefined> =>
  new Map(
    (isJsonArray(object.metadata.managedFields) ? object.metadata.managedFields : []).flatMap((entry) =>
      isJsonObject(entry) ? [[`${String(entry.manager)}/${String(entry.operation)}`, entry.fieldsV1] as const] : [],
    ),
  );

/** Each managedFields entry as `manager/operation`. */
const managersOf = (object: Resource): ReadonlyArray<string> =>
  (isJsonArray(object.metadata.managedFields) ? object.metadata.managedFields : []).flatMap((entry) =>
    isJsonObject(entry) ? [`${String(entry.manager)}/${String(entry.operation)}`] : [],
  );

type World = { readonly cluster: MemoryCluster; readonly clock: ManualClock };

const reconcile = (world: World): Promise<ReadonlyArray<ReconcileResult>> =>
  // The kit's workload controllers are off: children count as ready once they exist.
  reconcileAllApplications(world.cluster, world.clock, builtinScopes, { readiness: 'existence' });

/** Reconciles until a pass plans nothing; every pass must succeed. Returns the passes' results. */
const reconcileUntilQuiet = async (world: World): Promise<ReadonlyArray<ReconcileResult>> => {
  const passes: ReconcileResult[] = [];
  for (let pass = 1; pass <= 8; pass++) {
    const [result] = await reconcile(world);
    if (result === undefined) throw new Error('no Application reconciled');
    if (result._tag === 'Failed') throw new Error(`pass ${pass} failed: ${result.error.message}`);
    passes.push(result);
    if (result._tag === 'Gone' || result.plan.actions.length === 0) return passes;
  }
  throw new Error('still acting after 8 passes');
};

const respec = (world: World, next: JsonObject) =>
  must(world.cluster.patch(ref, { type: 'json', operations: [{ op: 'replace', path: '/spec', value: next }] }));

const started = async (): Promise<World> => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, seed: 11, workloads: false });
  await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }));
  await must(
    cluster.create({
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      metadata: { name: 'ssa', namespace: NAMESPACE },
      spec: spec('red'),
    }),
  );
  const world = { cluster, clock };
  await reconcileUntilQuiet(world);
  expectReady(await readApplication(cluster, ref));
  return world;
};

describe("kreconcile's server-side apply mode in the kit", () => {
  it('applies as field manager kreconcile, leaves fields it does not observe to others', async () => {
    const world = await started();
    const { cluster } = world;
    expect(getIn(await readExisting(cluster, config), ['data'])).toEqual({ LOG_LEVEL: 'info', COLOR: 'red' });

    // A spec change is applied by kreconcile: only the observed field is sent, and the server records the Apply.
    await respec(world, spec('blue'));
    const changed = await reconcileUntilQuiet(world);
    const first = changed[0];
    const sent = first?._tag === 'Done' ? first.plan.actions.find((action) => action.type === 'patch') : undefined;
    expect(sent?.type === 'patch' && sent.serverSideApply?.body.data).toEqual({ COLOR: 'blue' });
    expectReady(await readApplication(cluster, ref));
    const applied = await readExisting(cluster, config);
    expect(getIn(applied, ['data'])).toEqual({ LOG_LEVEL: 'info', COLOR: 'blue' });
    expect(managersOf(applied)).toContain(`${FIELD_MANAGER}/Apply`);

    // Another manager writes fields kreconcile does not observe: they stay through later applies.
    await must(
      cluster.patch(config, { type: 'merge', body: { data: { LOG_LEVEL: 'debug' } } }, { fieldManager: 'log-tuner' }),
    );
    await must(
      cluster.patch(
        deployment,
        {
          type: 'merge',
          body: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } },
        },
        { fieldManager: 'log-tuner' },
      ),
    );
    await respec(world, spec('green'));
    await reconcileUntilQuiet(world);
    expectReady(await readApplication(cluster, ref));
    expect(getIn(await readExisting(cluster, config), ['data'])).toEqual({ LOG_LEVEL: 'debug', COLOR: 'green' });
    expect(getIn(await readExisting(cluster, deployment), ['spec', 'template', 'spec', 'containers', 0, 'image'])).toBe(
      'nginx:1.28',
    );
    // As on kube-apiserver 1.36.3 (kubectl create, apply --server-side --force-conflicts, patch as
    // another manager): kreconcile's create keeps what it alone wrote (metadata), its apply owns
    // COLOR, the other manager LOG_LEVEL.
    const owners = ownersOf(await readExisting(cluster, config));
    expect([...owners.keys()].sort()).toEqual([
      `${FIELD_MANAGER}/Apply`,
      `${FIELD_MANAGER}/Update`,
      'log-tuner/Update',
    ]);
    expect(getIn(owners.get(`${FIELD_MANAGER}/Apply`), ['f:data'])).toEqual({ 'f:COLOR': {} });
    expect(getIn(owners.get('log-tuner/Update'), ['f:data'])).toEqual({ 'f:LOG_LEVEL': {} });
  });

  it('stalls Conflict when another manager took an observed field, converges with forceConflicts', async () => {
    const world = await started();
    const { cluster } = world;
    await respec(world, spec('blue'));
    await reconcileUntilQuiet(world);

    // Another manager takes the observed field: the server answers kreconcile's apply with 409.
    await must(
      cluster.patch(config, { type: 'merge', body: { data: { COLOR: 'purple' } } }, { fieldManager: 'kubectl-edit' }),
    );
    const [refused] = await reconcile(world);
    expect(refused?._tag === 'Failed' && refused.terminal).toBe(true);
    expect(refused?._tag === 'Failed' && refused.error.code).toBe(409);
    const stalled = await readApplication(cluster, ref);
    expect(conditionOf(stalled, 'Stalled')).toMatchObject({ status: 'True', reason: 'Conflict' });
    expect(conditionOf(stalled, 'Stalled')?.message).toContain('field manager "kubectl-edit"');
    expect(conditionOf(stalled, 'Ready')).toMatchObject({ status: 'False', reason: 'Conflict' });
    expect(getIn(await readExisting(cluster, config), ['data', 'COLOR'])).toBe('purple');
    // Stalled for this generation: the kit's pass leaves it, as the operator does, until the spec changes.
    expect(await reconcile(world)).toEqual([]);

    // forceConflicts: kreconcile takes the field over and converges; the other manager owns nothing left.
    await respec(world, spec('blue', { forceConflicts: true }));
    await reconcileUntilQuiet(world);
    expectReady(await readApplication(cluster, ref));
    const forced = await readExisting(cluster, config);
    expect(getIn(forced, ['data'])).toEqual({ LOG_LEVEL: 'info', COLOR: 'blue' });
    expect(managersOf(forced)).not.toContain('kubectl-edit/Update');
  });
});
