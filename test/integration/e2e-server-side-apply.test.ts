/**
 * `spec.applyMode: ServerSideApply` on a real API server (issue 13, item 3): the observed fields
 * are applied by field manager `kreconcile` and converge; a field another manager took over stalls
 * the Application `Conflict` naming that manager, until `spec.forceConflicts`; fields the observer
 * schema does not observe are never sent, so what others write there stays; a list whose names
 * another manager moved off the schema's positions is fixed by the positional JSON Patch. Also the measured fact
 * the executor relies on: an object created by `kreconcile` conflicts with `kreconcile`'s own apply.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { reconcileApplication, type ReconcileDeps } from '../../app/reconcile/reconcile-application.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  conflictingManagers,
  FIELD_MANAGER,
  getIn,
  type JsonObject,
  type ObjectRef,
  type Resource,
} from '../../core/internal.js';
import {
  applicationRef,
  conditionOf,
  expectReady,
  readApplication,
  readExisting,
  reconcileUntilQuiet,
} from '../support/e2e-application.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';

const configMap = (namespace: string, name: string, data: JsonObject): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

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

/**
 * A Deployment `name` with one container `api` whose name and image are observed at position 0, at most one container.
 */
const oneContainerSpec = (name: string, image: string): JsonObject => ({
  applyMode: 'ServerSideApply',
  manifest: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'api', image, imagePullPolicy: 'IfNotPresent' }] },
        },
      },
    },
  ],
  observerSchema: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        template: {
          spec: {
            containers: [
              { name: true, image: true },
              { observer_schema_list_min_length: 1, observer_schema_list_max_length: 1 },
            ],
          },
        },
      },
    },
  ],
});

const managersOf = (object: Resource): ReadonlyArray<string> =>
  ((object.metadata.managedFields ?? []) as ReadonlyArray<JsonObject>).map(
    (entry) => `${String(entry.manager)}/${String(entry.operation)}`,
  );

describeWithApiServer('server-side apply mode on the real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let deps: ReconcileDeps;

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-ssa'));
    // The test control plane runs no workload controllers: children count as ready once they exist.
    deps = {
      cluster,
      scopes: builtinScopes,
      now: () => new Date().toISOString(),
      random: Math.random,
      planOptions: { readiness: 'existence' },
    };
  });
  afterAll(async () => {
    await cleanup?.();
  });

  describe('the measured fact behind creating as kreconcile', () => {
    it("an object created by field manager kreconcile conflicts with kreconcile's own server-side apply of a changed value", async () => {
      const ref: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'self-conflict' };
      await must(cluster.create(configMap(namespace, 'self-conflict', { A: '1' }), { fieldManager: FIELD_MANAGER }));
      const same = await cluster.patch(ref, {
        type: 'apply',
        fieldManager: FIELD_MANAGER,
        body: configMap(namespace, 'self-conflict', { A: '1' }),
      })();
      expect(E.isRight(same)).toBe(true);
      const changed = await cluster.patch(ref, {
        type: 'apply',
        fieldManager: FIELD_MANAGER,
        body: configMap(namespace, 'self-conflict', { A: '2' }),
      })();
      expect(E.isLeft(changed) && changed.left._tag).toBe('Conflict');
      expect(E.isLeft(changed) ? conflictingManagers(changed.left) : []).toEqual([FIELD_MANAGER]);
    });
  });

  it('converges, stalls Conflict naming another manager, converges with forceConflicts, leaves non-observed fields alone', async () => {
    const ref = applicationRef(namespace, 'ssa');
    const config: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'web-config' };
    const deployment: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' };
    const respec = async (next: JsonObject): Promise<void> => {
      await must(cluster.patch(ref, { type: 'json', operations: [{ op: 'replace', path: '/spec', value: next }] }));
    };

    await must(
      cluster.create({
        apiVersion: APPLICATION_API_VERSION,
        kind: APPLICATION_KIND,
        metadata: { name: 'ssa', namespace },
        spec: spec('red'),
      }),
    );
    await reconcileUntilQuiet(ref, deps);
    expectReady(await readApplication(cluster, ref));
    expect(getIn(await readExisting(cluster, config), ['data'])).toEqual({ LOG_LEVEL: 'info', COLOR: 'red' });

    // A spec change is applied by kreconcile (its first apply takes the fields over from its own create).
    await respec(spec('blue'));
    const changed = await reconcileUntilQuiet(ref, deps);
    const sent = changed[0]?.plan.actions.find((action) => action.type === 'patch');
    expect(sent?.type === 'patch' && sent.serverSideApply?.body.data).toEqual({ COLOR: 'blue' });
    expectReady(await readApplication(cluster, ref));
    const applied = await readExisting(cluster, config);
    expect(getIn(applied, ['data'])).toEqual({ LOG_LEVEL: 'info', COLOR: 'blue' });
    expect(managersOf(applied)).toContain(`${FIELD_MANAGER}/Apply`);

    // Another manager writes a field kreconcile does not observe: it stays, through later applies.
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
    await respec(spec('green'));
    await reconcileUntilQuiet(ref, deps);
    expectReady(await readApplication(cluster, ref));
    expect(getIn(await readExisting(cluster, config), ['data'])).toEqual({ LOG_LEVEL: 'debug', COLOR: 'green' });
    expect(getIn(await readExisting(cluster, deployment), ['spec', 'template', 'spec', 'containers', 0, 'image'])).toBe(
      'nginx:1.28',
    );

    // Another manager takes an observed field: kreconcile's apply conflicts, the Application stalls naming it.
    await must(
      cluster.patch(config, { type: 'merge', body: { data: { COLOR: 'purple' } } }, { fieldManager: 'kubectl-edit' }),
    );
    const refused = await reconcileApplication(ref, deps);
    expect(refused._tag === 'Failed' && refused.terminal).toBe(true);
    const stalled = await readApplication(cluster, ref);
    expect(conditionOf(stalled, 'Stalled')).toMatchObject({ status: 'True', reason: 'Conflict' });
    expect(conditionOf(stalled, 'Stalled')?.message).toContain('field manager "kubectl-edit"');
    expect(conditionOf(stalled, 'Ready')).toMatchObject({ status: 'False', reason: 'Conflict' });
    expect(getIn(await readExisting(cluster, config), ['data', 'COLOR'])).toBe('purple');

    // forceConflicts: kreconcile takes the field over and converges; the non-observed value still stays.
    await respec(spec('green', { forceConflicts: true }));
    await reconcileUntilQuiet(ref, deps);
    expectReady(await readApplication(cluster, ref));
    const forced = await readExisting(cluster, config);
    expect(getIn(forced, ['data'])).toEqual({ LOG_LEVEL: 'debug', COLOR: 'green' });
    expect(JSON.stringify(forced.metadata.managedFields)).not.toContain('kubectl-edit');
  });

  it('lists: a container another manager injected beyond the observed maximum goes (guarded JSON Patch first), the named container is applied by name', async () => {
    const ref = applicationRef(namespace, 'ssa-lists');
    const deployment: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'api' };
    const listSpec = (image: string): JsonObject => oneContainerSpec('api', image);
    await must(
      cluster.create({
        apiVersion: APPLICATION_API_VERSION,
        kind: APPLICATION_KIND,
        metadata: { name: 'ssa-lists', namespace },
        spec: listSpec('nginx:1.27'),
      }),
    );
    await reconcileUntilQuiet(ref, deps);
    expectReady(await readApplication(cluster, ref));

    await must(
      cluster.patch(
        deployment,
        {
          type: 'json',
          operations: [
            { op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'sidecar', image: 'envoy:1.30' } },
          ],
        },
        { fieldManager: 'injector' },
      ),
    );
    await must(
      cluster.patch(ref, {
        type: 'json',
        operations: [{ op: 'replace', path: '/spec', value: listSpec('nginx:1.28') }],
      }),
    );
    const rounds = await reconcileUntilQuiet(ref, deps);
    const sent = rounds[0]?.plan.actions.find((action) => action.type === 'patch');
    expect(sent?.type === 'patch' && sent.serverSideApply?.body.spec).toEqual({
      template: { spec: { containers: [{ name: 'api', image: 'nginx:1.28' }] } },
    });
    expectReady(await readApplication(cluster, ref));
    const containers = getIn(await readExisting(cluster, deployment), [
      'spec',
      'template',
      'spec',
      'containers',
    ]) as ReadonlyArray<JsonObject>;
    expect(containers.map((container) => [container.name, container.image, container.imagePullPolicy])).toEqual([
      ['api', 'nginx:1.28', 'IfNotPresent'],
    ]);
  });

  it('lists: a container another manager inserted in front (names off position) is fixed by the positional JSON Patch as kreconcile; the next change is an apply again', async () => {
    const ref = applicationRef(namespace, 'ssa-shifted');
    const deployment: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'shifted' };
    const shiftedSpec = (image: string): JsonObject => oneContainerSpec('shifted', image);
    const containersNow = async () =>
      (
        getIn(await readExisting(cluster, deployment), [
          'spec',
          'template',
          'spec',
          'containers',
        ]) as ReadonlyArray<JsonObject>
      ).map((container) => [container.name, container.image]);
    await must(
      cluster.create({
        apiVersion: APPLICATION_API_VERSION,
        kind: APPLICATION_KIND,
        metadata: { name: 'ssa-shifted', namespace },
        spec: shiftedSpec('nginx:1.27'),
      }),
    );
    await reconcileUntilQuiet(ref, deps);

    // Position 0, which the schema observes, now holds another manager's container; ours is at 1.
    await must(
      cluster.patch(
        deployment,
        {
          type: 'json',
          operations: [
            { op: 'add', path: '/spec/template/spec/containers/0', value: { name: 'sidecar', image: 'envoy:1.30' } },
          ],
        },
        { fieldManager: 'injector' },
      ),
    );
    const fixed = await reconcileUntilQuiet(ref, deps);
    const sent = fixed[0]?.plan.actions.find((action) => action.type === 'patch');
    expect(sent?.type === 'patch' && sent.serverSideApply).toBeUndefined();
    expect(sent?.type === 'patch' && sent.positionalLists).toEqual(['spec.template.spec.containers']);
    expectReady(await readApplication(cluster, ref));
    expect(await containersNow()).toEqual([['api', 'nginx:1.27']]);

    // Names in place again: the next change is an apply; it conflicts only with kreconcile's own JSON Patch (made as
    // kreconcile), so it is forced, no Conflict stall.
    await must(
      cluster.patch(ref, {
        type: 'json',
        operations: [{ op: 'replace', path: '/spec', value: shiftedSpec('nginx:1.28') }],
      }),
    );
    const applied = await reconcileUntilQuiet(ref, deps);
    const next = applied[0]?.plan.actions.find((action) => action.type === 'patch');
    expect(next?.type === 'patch' && next.serverSideApply?.body.spec).toEqual({
      template: { spec: { containers: [{ name: 'api', image: 'nginx:1.28' }] } },
    });
    expectReady(await readApplication(cluster, ref));
    expect(await containersNow()).toEqual([['api', 'nginx:1.28']]);
  });
});
