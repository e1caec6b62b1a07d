/**
 * The executor in ServerSideApply mode, on the memory API server, whose conflicts are kube-apiserver's
 * (field ownership, adapters/memory/field-manager): a conflict naming `kreconcile` alone (its own
 * create, measured in test/integration/e2e-server-side-apply.test.ts) is taken over with `force`;
 * any other stops the plan.
 * A patch sent as JSON Patch because list names are off position is made as `kreconcile` too.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster } from '../../../adapters/memory/index.js';
import { executePlan } from '../../../app/executor/execute.js';
import {
  builtinScopes,
  clusterError,
  FIELD_MANAGER,
  getIn,
  plan,
  type Application,
  type ClusterWriter,
  type JsonObject,
  type Patch,
  type Resource,
} from '../../../core/internal.js';
import { must } from '../../support/kubernetes-env.js';

const configMap = (color: string, extra: object = {}): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'shop', ...extra },
  data: { COLOR: color, LOG_LEVEL: 'info' },
});

// No uid: no owner reference, which the memory API server's garbage collector would follow to a missing owner.
const application: Application = {
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'web', namespace: 'shop', finalizers: ['kreconcile.io/cleanup'] },
  spec: {
    applyMode: 'ServerSideApply',
    manifest: [configMap('blue')],
    observerSchema: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { COLOR: true } }],
  },
};

/**
 * The memory cluster with every patch recorded (its conflicts are its own: field ownership as kube-apiserver keeps it).
 */
const recording = (cluster: ClusterWriter) => {
  const sent: Patch[] = [];
  const writer: ClusterWriter = {
    ...cluster,
    create: (object, options) => cluster.create(object, options),
    update: (object, options) => cluster.update(object, options),
    delete: (ref, options) => cluster.delete(ref, options),
    patch: (ref, patch, options) => {
      sent.push(patch);
      return cluster.patch(ref, patch, options);
    },
  };
  return { writer, sent };
};

/** The ConfigMap created `red` by `creator` (an Update manager owning COLOR), then planned `blue`. */
const setup = async (creator: string) => {
  const cluster = createMemoryCluster({ clock: new ManualClock(), seed: 7 });
  await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }));
  await must(
    cluster.create(
      configMap('red', {
        labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
        annotations: { 'kreconcile.io/owner': 'shop/web' },
      }),
      { fieldManager: creator },
    ),
  );
  const live = E.getOrElseW(() => {
    throw new Error('no ConfigMap');
  })(await cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop' })()).items;
  return { cluster, planned: plan({ application, live, scopes: builtinScopes, now: '2026-01-01T00:00:00Z' }) };
};

describe('executor: server-side apply', () => {
  it('a conflict with kreconcile alone is applied again with force, as kreconcile', async () => {
    const { cluster, planned } = await setup(FIELD_MANAGER);
    const { writer, sent } = recording(cluster);
    const execution = await executePlan({ plan: planned, application, cluster: writer });
    expect(execution.failure).toBeUndefined();
    expect(
      sent.map((patch) =>
        patch.type === 'apply' ? [patch.type, patch.fieldManager, patch.force ?? false] : [patch.type],
      ),
    ).toEqual([
      ['apply', 'kreconcile', false],
      ['apply', 'kreconcile', true],
    ]);
    const stored = E.getOrElseW(() => undefined)(
      await cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' })(),
    );
    expect(stored !== undefined && stored._tag === 'Some' ? getIn(stored.value, ['data']) : undefined).toEqual({
      COLOR: 'blue',
      LOG_LEVEL: 'info',
    });
  });

  it('a conflict with another manager stops the plan, unforced, and the object keeps its value', async () => {
    const { cluster, planned } = await setup('kubectl-edit');
    const { writer, sent } = recording(cluster);
    const execution = await executePlan({ plan: planned, application, cluster: writer });
    expect(execution.failure?.error.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.COLOR',
    );
    expect(execution.failure?.error.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using v1', field: '.data.COLOR' },
    ]);
    expect(sent).toHaveLength(1);
    const stored = E.getOrElseW(() => undefined)(
      await cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' })(),
    );
    expect(stored !== undefined && stored._tag === 'Some' ? getIn(stored.value, ['data', 'COLOR']) : undefined).toBe(
      'red',
    );
  });
});

describe('executor: names off position in ServerSideApply mode', () => {
  const deployment = (containers: ReadonlyArray<object>, extra: object = {}): Resource =>
    ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop', ...extra },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
      },
    }) as Resource;
  const containersApp: Application = {
    ...application,
    spec: {
      applyMode: 'ServerSideApply',
      manifest: [
        deployment([
          { name: 'web', image: 'nginx:1.28' },
          { name: 'log', image: 'fluent-bit:3' },
        ]),
      ],
      observerSchema: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web' },
          spec: {
            template: {
              spec: {
                containers: [
                  { image: null },
                  { image: null },
                  { observer_schema_list_min_length: 2, observer_schema_list_max_length: 2 },
                ],
              },
            },
          },
        },
      ],
    },
  };

  it('swapped containers: the guarded JSON Patch is sent as field manager kreconcile, and the positions get the desired images', async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(), seed: 7 });
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }));
    const marks = {
      labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
      annotations: { 'kreconcile.io/owner': 'shop/web' },
    };
    await must(
      cluster.create(
        deployment(
          [
            { name: 'log', image: 'fluent-bit:3' },
            { name: 'web', image: 'nginx:1.27' },
          ],
          marks,
        ),
      ),
    );
    const live = E.getOrElseW(() => {
      throw new Error('no Deployment');
    })(await cluster.list({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop' })()).items;
    const planned = plan({ application: containersApp, live, scopes: builtinScopes, now: '2026-01-01T00:00:00Z' });
    const sent: Array<readonly [string, string | undefined]> = [];
    const writer: ClusterWriter = {
      ...cluster,
      patch: (ref, patch, options) => {
        sent.push([patch.type, options?.fieldManager]);
        return cluster.patch(ref, patch, options);
      },
    };
    const execution = await executePlan({ plan: planned, application: containersApp, cluster: writer });
    expect(execution.failure).toBeUndefined();
    expect(sent).toEqual([['json', FIELD_MANAGER]]);
    const stored = E.getOrElseW(() => undefined)(
      await cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' })(),
    );
    const containers = (
      stored !== undefined && stored._tag === 'Some'
        ? getIn(stored.value, ['spec', 'template', 'spec', 'containers'])
        : []
    ) as ReadonlyArray<JsonObject>;
    // The schema observes images by position (names are not observed): position 0 gets web's image.
    expect(containers.map((container) => [container.name, container.image])).toEqual([
      ['log', 'nginx:1.28'],
      ['web', 'fluent-bit:3'],
    ]);
  });
});
