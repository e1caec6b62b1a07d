/**
 * `kreconcile snapshot` over a (fake, read-only) cluster, and the promise it exists for: a plan
 * from the recording equals the plan against the cluster itself.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { clusterError, OWNER_ANNOTATION, type Resource } from '../../core/internal.js';
import { documentsOf, snapshotObjects } from './support/examples.js';
import { fakeCluster } from './support/fake-cluster.js';
import { linesOf, runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const WEBAPP = 'examples/webapp/app.yaml';

/** The removed-from-spec cluster of the webapp, plus objects the snapshot must leave out. */
const webappCluster = (): ReadonlyArray<Resource> => {
  const objects = snapshotObjects('examples/webapp/snapshots/removed-from-spec.yaml');
  const stranger = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kube-root-ca.crt', namespace: 'shop' },
    data: { 'ca.crt': '...' },
  };
  const neighbour = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'blog-config',
      namespace: 'shop',
      labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
      annotations: { [OWNER_ANNOTATION]: 'shop/blog' },
    },
  };
  return [...objects, stranger, neighbour] as ReadonlyArray<Resource>;
};

const names = (items: ReadonlyArray<Resource>): ReadonlyArray<string> =>
  items.map((o) => `${o.kind}/${o.metadata.name}`);

describe('kreconcile snapshot', () => {
  it('records the Application, its desired resources and the objects it owns, nothing else', async () => {
    const cluster = fakeCluster(webappCluster());
    const result = await runCli(['snapshot', '-f', WEBAPP, '--context', 'prod'], { connect: async () => cluster });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const list = parse(result.stdout) as { apiVersion: string; kind: string; items: Resource[] };
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(names(list.items)).toEqual([
      'Application/web',
      'ConfigMap/web-config',
      'Deployment/web',
      'Service/web',
      'Ingress/web',
      'PodDisruptionBudget/web',
    ]);
  });

  it('reads the kinds the live Application recorded in kreconcile.io/intent-kinds before any status write', async () => {
    // A process created the PodDisruptionBudget (removed from the spec since) and died before its status write:
    // only the annotation its finalizer patch carried names the kind.
    const objects = webappCluster().map((object) =>
      object.kind === 'Application'
        ? {
            ...object,
            metadata: {
              ...object.metadata,
              annotations: {
                'kreconcile.io/intent-kinds': JSON.stringify([
                  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
                ]),
              },
            },
            status: {},
          }
        : object,
    );
    const recorded = async (applicationObjects: ReadonlyArray<Resource>) =>
      names(
        (
          parse(
            (await runCli(['snapshot', '-f', WEBAPP], { connect: async () => fakeCluster(applicationObjects) })).stdout,
          ) as { items: Resource[] }
        ).items,
      );
    expect(await recorded(objects)).toContain('PodDisruptionBudget/web');
    const withoutIntent = objects.map((object) =>
      object.kind === 'Application' ? { ...object, metadata: { ...object.metadata, annotations: {} } } : object,
    );
    expect(await recorded(withoutIntent)).not.toContain('PodDisruptionBudget/web');
  });

  it('only reads: get and list calls, with the ownership label selector', async () => {
    const cluster = fakeCluster(webappCluster());
    await runCli(['snapshot', '-f', WEBAPP], { connect: async () => cluster });
    expect(cluster.calls.every((call) => call.startsWith('get ') || call.startsWith('list '))).toBe(true);
    expect(cluster.calls).toContain('list policy/v1 PodDisruptionBudget app.kubernetes.io/managed-by=kreconcile');
  });

  it('prints JSON with -o json', async () => {
    const result = await runCli(['snapshot', '-f', WEBAPP, '-o', 'json'], {
      connect: async () => fakeCluster(webappCluster()),
    });
    expect((JSON.parse(result.stdout) as { items: unknown[] }).items).toHaveLength(6);
  });

  it('a plan from the recording equals the plan against the cluster, and against the original recording', async () => {
    const connect = async () => fakeCluster(webappCluster());
    const recorded = await runCli(['snapshot', '-f', WEBAPP], { connect });
    const fromRecording = await runCli(['plan', '-f', WEBAPP, '--snapshot', '-', '--now', NOW], {
      stdin: recorded.stdout,
    });
    const live = await runCli(['plan', '-f', WEBAPP, '--context', 'prod', '--now', NOW], { connect });
    const original = await runCli([
      'plan',
      '-f',
      WEBAPP,
      '--snapshot',
      'examples/webapp/snapshots/removed-from-spec.yaml',
      '--now',
      NOW,
    ]);
    expect(fromRecording.stdout).toContain('- policy/v1 PodDisruptionBudget shop/web (removed from spec)');
    // The same plan; only the first line, the basis, differs.
    const body = (stdout: string): string => stdout.slice(stdout.indexOf('\n\n'));
    expect(live.stdout).toMatch(
      /^Planned against the live cluster \(read-only\) of the default kubeconfig, context prod\.\n/,
    );
    expect(body(live.stdout)).toBe(body(fromRecording.stdout));
    expect(body(original.stdout)).toBe(body(fromRecording.stdout));
  });

  it('the live JSON plan names the cluster it was computed against', async () => {
    const live = await runCli(
      ['plan', '-f', WEBAPP, '--kubeconfig', '/etc/kube/config', '--context', 'prod', '--now', NOW, '-o', 'json'],
      { connect: async () => fakeCluster(webappCluster()) },
    );
    expect((JSON.parse(live.stdout) as { metadata: unknown }).metadata).toEqual({
      now: NOW,
      cluster: { type: 'Live', kubeconfigPath: '/etc/kube/config', context: 'prod' },
    });
  });

  it('records the CRDs of custom kinds, so the offline plan needs no -f crds.yaml', async () => {
    const objects = [
      ...documentsOf('examples/song-artist/crds.yaml'),
      ...snapshotObjects('examples/song-artist/snapshots/in-sync.yaml'),
    ];
    const recorded = await runCli(['snapshot', '-f', 'examples/song-artist/app.yaml'], {
      connect: async () => fakeCluster(objects),
    });
    expect(recorded.code).toBe(0);
    const items = (parse(recorded.stdout) as { items: Resource[] }).items;
    expect(names(items)).toEqual([
      'CustomResourceDefinition/songs.music.example.com',
      'CustomResourceDefinition/artists.music.example.com',
      'Application/jukebox',
      'Song/purple-haze',
      'Artist/jimi-hendrix',
    ]);
    const plan = await runCli(['plan', '-f', 'examples/song-artist/app.yaml', '--snapshot', '-', '--now', NOW], {
      stdin: recorded.stdout,
    });
    expect(plan.stdout).toContain('No changes: 2 resources match the desired state.');
  });

  it('skips kinds the cluster does not serve (the plan then reports them)', async () => {
    const recorded = await runCli(['snapshot', '-f', 'examples/song-artist/app.yaml'], {
      connect: async () => fakeCluster([]),
    });
    expect(recorded.code).toBe(0);
    expect((parse(recorded.stdout) as { items: Resource[] }).items).toEqual([]);
    const plan = await runCli(['plan', '-f', 'examples/song-artist/app.yaml', '--snapshot', '-'], {
      stdin: recorded.stdout,
    });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('stalled (UnknownKind)');
  });

  it('an API failure is one line and exit 1', async () => {
    const forbidden = clusterError(
      'Forbidden',
      'deployments.apps is forbidden: User "ci" cannot list resource "deployments" in API group "apps" at the cluster scope',
      { code: 403 },
    );
    const result = await runCli(['snapshot', '-f', WEBAPP], {
      connect: async () => fakeCluster(webappCluster(), { failures: { Deployment: forbidden } }),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(linesOf(result.stderr)).toEqual([
      'error: Forbidden (403): deployments.apps is forbidden: User "ci" cannot list resource "deployments" in API group "apps" at the cluster scope: the snapshot needs get and list on these objects (read-only); use an account that has them',
    ]);
  });

  it('needs -f', async () => {
    const result = await runCli(['snapshot']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: name the Applications to record with -f app.yaml (see kreconcile snapshot --help)\n',
    );
  });
});
