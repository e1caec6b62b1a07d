/**
 * Rollout impact against the real kube-apiserver and kube-controller-manager (issue 38): the
 * plan's prediction is checked against what the Deployment controller does. A pod-template change
 * is predicted to roll the Deployment, and a new ReplicaSet appears; a ConfigMap read through
 * `envFrom` is predicted never to reach the running pods, and no ReplicaSet appears. The plans come
 * from the library's fleet plan (core/fleet/plan-fleet.ts) over the objects read from the server.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { builtinScopes, planFleet, type Application, type FleetMember, type Resource } from '../../core/internal.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { startPrivateControlPlane, type PrivatePlane } from '../support/private-control-plane.js';

// The shared control plane runs no Deployment controller (it would add ReplicaSets and Pods under every
// other suite): this file starts one of its own.
describeWithApiServer('rollout impact on a real API server with the Deployment controller', () => {
  let plane: PrivatePlane | undefined;
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    plane = await startPrivateControlPlane(['deployment-controller', 'replicaset-controller']);
    cluster = connect(plane.env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-rollout-impact'));
  }, 120_000);
  afterAll(async () => {
    await cleanup?.();
    await plane?.stop();
  });

  const configMap = (mode: string): Resource => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings' },
    data: { MODE: mode },
  });
  const deployment = (image: string): Resource => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image, envFrom: [{ configMapRef: { name: 'settings' } }] }] },
      },
    },
  });
  const application = (mode: string, image: string): Application => ({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace, finalizers: ['kreconcile.io/cleanup'] },
    spec: { manifest: [configMap(mode), deployment(image)] },
  });

  const live = async (): Promise<ReadonlyArray<Resource>> => [
    ...(await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace }))).items,
    ...(await must(cluster.list({ apiVersion: 'apps/v1', kind: 'Deployment', namespace }))).items,
  ];
  const replicaSets = async (): Promise<ReadonlyArray<string>> =>
    (await must(cluster.list({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace }))).items.map(
      (rs) => rs.metadata.name,
    );

  /** The one member's plan, against what the server holds now. */
  const planned = async (mode: string, image: string): Promise<FleetMember> => {
    const fleet = planFleet({
      applications: [application(mode, image)],
      live: await live(),
      scopes: builtinScopes,
      now: new Date().toISOString(),
    });
    const [member] = fleet.members;
    if (member === undefined) throw new Error('no plan');
    return member;
  };

  /** Carries the plan's creates and patches out, as the executor would. */
  const carryOut = async (member: FleetMember): Promise<void> => {
    for (const action of member.plan.actions) {
      if (action.type === 'create')
        await must(cluster.create({ ...action.body, metadata: { ...action.body.metadata, namespace } }));
      if (action.type === 'patch') await must(cluster.patch(action.ref, { type: 'json', operations: action.patch }));
    }
  };

  const impactsOf = (member: FleetMember, kind: string) =>
    member.plan.actions.flatMap((action, index) => (action.ref.kind === kind ? (member.impacts[index] ?? []) : []));

  it('predicts what the Deployment controller does: a template change rolls, a config change read through envFrom does not', async () => {
    const first = await planned('a', 'registry.k8s.io/pause:3.10');
    expect(impactsOf(first, 'Deployment').map((i) => i.type)).toEqual(['start']);
    await carryOut(first);
    const initial = await eventually(async () => {
      const names = await replicaSets();
      expect(names).toHaveLength(1);
      return names;
    }, 60_000);

    // The ConfigMap changes: predicted never seen by the running pods, and indeed no new ReplicaSet.
    const config = await planned('b', 'registry.k8s.io/pause:3.10');
    expect(config.plan.actions.filter((a) => a.type === 'patch').map((a) => a.ref.kind)).toEqual(['ConfigMap']);
    expect(impactsOf(config, 'ConfigMap')).toEqual([
      expect.objectContaining({
        type: 'configStale',
        workloads: [expect.objectContaining({ kind: 'Deployment', name: 'web' })],
      }),
    ]);
    await carryOut(config);
    // The controller has seen the ConfigMap change (no generation change on the Deployment) and done nothing.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await replicaSets()).toEqual(initial);

    // The image changes: predicted to roll the Deployment's 2 pods, and a new ReplicaSet appears.
    const image = await planned('b', 'registry.k8s.io/pause:3.9');
    expect(impactsOf(image, 'Deployment')).toEqual([
      expect.objectContaining({
        type: 'rollout',
        pods: 2,
        message: expect.stringContaining('rolls 2 pods of apps/v1 Deployment'),
      }),
    ]);
    await carryOut(image);
    await eventually(async () => {
      const names = await replicaSets();
      expect(names).toHaveLength(2);
      expect(names).toEqual(expect.arrayContaining([...initial]));
    }, 60_000);
  }, 150_000);
});
