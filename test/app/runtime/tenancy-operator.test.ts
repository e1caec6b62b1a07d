/**
 * Tenancy end to end through the operator on the memory cluster: a tenant's Application in team-a
 * cannot make the operator write to kube-system, create a ClusterRoleBinding, adopt a kube-system
 * object or read a foreign Secret through status; an admin policy team-a → team-a-db allows that one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { startOperator, type Operator } from '../../../app/runtime/operator.js';
import {
  base64Of,
  conditionOf,
  type Application,
  type ObjectRef,
  type Resource,
  type TenancyPolicy,
} from '../../../core/internal.js';
import { applicationOf } from '../hooks/support.js';
import { recordingGets } from './recording-gets.js';
import { runUntil } from '../../support/operator-clock.js';
import { withReadableStatus } from '../../../app/status/stored-status.js';

let operator: Operator | undefined;
afterEach(async () => {
  await operator?.stop(1_000);
  operator = undefined;
});

const configMap = (name: string, namespace?: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  data: { a: '1' },
});

const CANARY = 'kube-system-secret-canary-7f3a';

/** The attacks of issue 10, one Application each; every one also asks for a harmless ConfigMap in team-a. */
const ATTACKS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['cross-namespace', { manifest: [configMap('ok-1'), configMap('evil', 'kube-system')] }],
  [
    'cluster-binding',
    {
      manifest: [
        configMap('ok-2'),
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'tenant-is-admin' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'team-a' }],
        },
      ],
    },
  ],
  ['adopt-system', { adopt: true, manifest: [configMap('ok-3'), configMap('coredns', 'kube-system')] }],
  [
    'read-secret',
    {
      adopt: true,
      manifest: [
        configMap('ok-4'),
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap', namespace: 'kube-system' } },
      ],
      observerSchema: [
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap', namespace: null }, data: null },
      ],
    },
  ],
  ['database', { manifest: [configMap('ok-5'), configMap('db-settings', 'team-a-db')] }],
];

const setUp = async () => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, workloads: true });
  for (const name of ['team-a', 'team-a-db', 'kube-system'])
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })();
  await cluster.create(configMap('coredns', 'kube-system'))();
  await cluster.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'bootstrap', namespace: 'kube-system' },
    data: { token: base64Of(CANARY) },
  })();
  // Planted by someone who may write kube-system, claiming to belong to the tenant's Application: never pruned or
  // deleted for it.
  await cluster.create({
    ...configMap('planted', 'kube-system'),
    metadata: {
      name: 'planted',
      namespace: 'kube-system',
      annotations: { 'kreconcile.io/owner': 'team-a/cross-namespace' },
    },
  })();
  for (const [name, spec] of ATTACKS) await cluster.create(applicationOf('team-a', name, spec))();
  return { clock, cluster };
};

const outsideTeamA = (cluster: MemoryCluster): string =>
  JSON.stringify(
    cluster
      .objects()
      .filter((o) => o.metadata.namespace !== 'team-a')
      .map((o) => [o.kind, o.metadata.namespace, o.metadata.name, o.metadata.resourceVersion]),
  );

const applicationIn = (cluster: MemoryCluster, name: string): Application | undefined =>
  cluster.objects().find((o) => o.kind === 'Application' && o.metadata.name === name) as unknown as
    Application | undefined;

const stalledOf = (cluster: MemoryCluster, name: string) =>
  conditionOf(applicationIn(cluster, name)?.status?.conditions, 'Stalled');

const gets: ObjectRef[] = [];

/** Reads of children: not of Applications, nor the operator's start-up check of its admission policies. */
const childReads = (): ReadonlyArray<ObjectRef> =>
  gets.filter((ref) => ref.kind !== 'Application' && !ref.apiVersion.startsWith('admissionregistration.k8s.io/'));

/** `watchChildren: false`: children are read from the server (per object and per namespace), not from watch caches. */
const start = async (cluster: MemoryCluster, clock: ManualClock, tenancy?: TenancyPolicy, watchChildren = true) => {
  operator = await startOperator({
    cluster: recordingGets(cluster, gets),
    clock,
    random: () => 0.5,
    workers: 1,
    readiness: 'existence',
    watchChildren,
    ...(tenancy === undefined ? {} : { tenancy }),
  });
  await runUntil(clock, () =>
    ATTACKS.every(
      ([name]) =>
        stalledOf(cluster, name)?.status !== undefined &&
        applicationIn(cluster, name)?.metadata.finalizers !== undefined,
    ),
  );
};

describe('the operator under the default tenancy (own namespace only)', () => {
  it('every attack ends Stalled Forbidden naming the child and rule, and nothing outside team-a is written', async () => {
    const { clock, cluster } = await setUp();
    const before = outsideTeamA(cluster);
    await start(cluster, clock);
    for (const [name] of ATTACKS) {
      const stalled = stalledOf(cluster, name);
      expect(stalled, name).toMatchObject({ status: 'True', reason: 'Forbidden' });
    }
    expect(stalledOf(cluster, 'cross-namespace')?.message).toContain('v1 ConfigMap kube-system/evil (Destination:');
    expect(stalledOf(cluster, 'cluster-binding')?.message).toContain(
      'rbac.authorization.k8s.io/v1 ClusterRoleBinding tenant-is-admin (ClusterScoped:',
    );
    expect(stalledOf(cluster, 'adopt-system')?.message).toContain('v1 ConfigMap kube-system/coredns (Destination:');
    expect(stalledOf(cluster, 'database')?.message).toContain('v1 ConfigMap team-a-db/db-settings (Destination:');
    expect(outsideTeamA(cluster)).toBe(before);
    // Forbidden children are not even read (under least-privilege RBAC the operator could not).
    expect(childReads().filter((ref) => ref.namespace !== 'team-a')).toEqual([]);
    // Nothing else of a forbidden Application is written either, and nothing foreign reaches a status.
    expect(
      cluster
        .objects()
        .filter((o) => o.kind === 'ConfigMap' && o.metadata.namespace === 'team-a')
        .map((o) => o.metadata.name),
    ).toEqual([]);
    const statuses = JSON.stringify(
      cluster
        .objects()
        .filter((o) => o.kind === 'Application')
        .map((o) => withReadableStatus(o).status),
    );
    expect(statuses).not.toContain(base64Of(CANARY));
    expect(statuses).not.toContain(CANARY);
  });

  it('children read from the server, not from watch caches: every allowed child is read, no forbidden one', async () => {
    gets.length = 0;
    const { clock, cluster } = await setUp();
    const before = outsideTeamA(cluster);
    await start(cluster, clock, undefined, false);
    for (const [name] of ATTACKS)
      expect(stalledOf(cluster, name), name).toMatchObject({ status: 'True', reason: 'Forbidden' });
    expect(outsideTeamA(cluster)).toBe(before);
    const read = childReads().map((ref) => `${ref.kind} ${ref.namespace}/${ref.name}`);
    // Besides the children: each Application's inventory (decision 0028), in its own namespace only.
    const inventories = read.filter((line) => line.includes('/kreconcile-inventory.'));
    expect(inventories.length).toBeGreaterThan(0);
    for (const line of inventories) expect(line).toMatch(/^ConfigMap team-a\/kreconcile-inventory\./);
    const children = read.filter((line) => !inventories.includes(line));
    expect(new Set(children)).toEqual(new Set(ATTACKS.map((_, i) => `ConfigMap team-a/ok-${i + 1}`)));
  });

  it('deleting the Application leaves the planted kube-system object alone and removes the finalizer', async () => {
    const { clock, cluster } = await setUp();
    await start(cluster, clock);
    await cluster.delete({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      namespace: 'team-a',
      name: 'cross-namespace',
    })();
    await runUntil(clock, () => applicationIn(cluster, 'cross-namespace') === undefined);
    expect(applicationIn(cluster, 'cross-namespace')).toBeUndefined();
    expect(cluster.objects().some((o) => o.metadata.name === 'planted')).toBe(true);
  });
});

describe('the operator with an admin policy team-a → team-a-db', () => {
  it('creates the team-a-db child (and the rest of that Application); the other attacks stay forbidden', async () => {
    const { clock, cluster } = await setUp();
    await start(cluster, clock, { destinations: [{ from: 'team-a', to: ['team-a-db'] }] });
    await runUntil(
      clock,
      () => conditionOf(applicationIn(cluster, 'database')?.status?.conditions, 'Ready')?.status === 'True',
    );
    expect(conditionOf(applicationIn(cluster, 'database')?.status?.conditions, 'Ready')?.status).toBe('True');
    const created = cluster
      .objects()
      .filter((o) => o.kind === 'ConfigMap' && o.metadata.annotations?.['kreconcile.io/owner'] === 'team-a/database')
      .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(created.sort()).toEqual(['team-a-db/db-settings', 'team-a/ok-5']);
    for (const name of ['cross-namespace', 'cluster-binding', 'adopt-system', 'read-secret'])
      expect(stalledOf(cluster, name)?.reason, name).toBe('Forbidden');
  });
});
