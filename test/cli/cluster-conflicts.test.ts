/**
 * Plans against a cluster see what they will collide with (issue 36): `plan --kubeconfig` and
 * `snapshot` read, within `--policy`, the desired objects in other namespaces and cluster-scoped
 * ones, so an existing object that is not ours is the conflict the operator will report (NotOwned).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryCluster } from '../../adapters/memory/index.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type Resource } from '../../core/internal.js';
import { runCli, type RunOptions } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const application: Resource = {
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  metadata: { name: 'web', namespace: 'team-a' },
  spec: {
    manifest: [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken', namespace: 'team-b' }, data: { x: '2' } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'web-reader' }, rules: [] },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mine' }, data: { x: '2' } },
    ],
  },
};

const POLICY = [
  'destinations: [{from: team-a, to: [team-b]}]',
  'clusterKinds: [{from: team-a, kinds: [rbac.authorization.k8s.io/ClusterRole]}]',
].join('\n');

const setup = async (): Promise<RunOptions> => {
  const cluster = createMemoryCluster();
  const objects: ReadonlyArray<Resource> = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } },
    // Installed by someone else (kubectl): no owner mark.
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken', namespace: 'team-b' }, data: { x: '1' } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'web-reader' }, rules: [] },
  ];
  for (const object of objects) await cluster.create(object)();
  return {
    files: { 'app.json': JSON.stringify(application), 'policy.yaml': POLICY },
    connect: async () => cluster,
    connectWritable: async () => cluster,
  };
};

describe('plans see the cluster they write to', () => {
  it('shows objects in other namespaces and cluster-scoped ones that exist but are not owned as conflicts', async () => {
    const options = await setup();
    const planned = await runCli(
      ['plan', '-f', 'app.json', '--kubeconfig', 'kc', '--now', NOW, '--policy', 'policy.yaml'],
      options,
    );
    expect(planned.stdout).toContain(
      '! v1 ConfigMap team-b/taken: exists but is not managed by this Application; set spec.adopt: true to take it over',
    );
    expect(planned.stdout).toContain(
      '! rbac.authorization.k8s.io/v1 ClusterRole web-reader: exists but is not managed by this Application',
    );
    expect(planned.stdout).toContain('Plan: 1 to create, 0 to patch, 0 to delete, 2 conflicts.');
    expect(planned.code).toBe(0);
  });

  it('without the policy they are forbidden (never read), as the operator would say', async () => {
    const planned = await runCli(['plan', '-f', 'app.json', '--kubeconfig', 'kc', '--now', NOW], await setup());
    expect(planned.stdout).toContain('Plan: 0 to create, 0 to patch, 0 to delete, 2 forbidden.');
    expect(planned.code).toBe(1);
  });

  it('snapshot --policy records them, and a plan from the recording shows the same conflicts', async () => {
    const options = await setup();
    const recorded = await runCli(
      ['snapshot', '-f', 'app.json', '--kubeconfig', 'kc', '--policy', 'policy.yaml', '-o', 'json'],
      options,
    );
    expect(recorded).toMatchObject({ code: 0, stderr: '' });
    const items = (JSON.parse(recorded.stdout) as { items: Resource[] }).items;
    expect(items.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort()).toEqual([
      'ClusterRole /web-reader',
      'ConfigMap team-b/taken',
    ]);
    const offline = await runCli(
      ['plan', '-f', 'app.json', '--snapshot', 'live.json', '--now', NOW, '--policy', 'policy.yaml'],
      { files: { ...options.files, 'live.json': recorded.stdout } },
    );
    expect(offline.stdout).toContain('Plan: 1 to create, 0 to patch, 0 to delete, 2 conflicts.');
  });
});
