/**
 * Crash safety of the intent on a real API server (docs/behaviour.md §5): a process dies after the
 * patch that adds the finalizer and names the kinds about to be created (annotation
 * `kreconcile.io/intent-kinds`) and after some creates, before any status write. The spec then
 * drops a created child's kind: the next process still finds that child through the annotation and
 * prunes it; or the Application is deleted: the next process deletes every child it created, itself
 * (not left to the garbage collector), and then releases the finalizer.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { intentKindsOf } from '../../app/reconcile/intent-kinds.js';
import { reconcileApplication, type ReconcileDeps } from '../../app/reconcile/reconcile-application.js';
import {
  FINALIZER,
  OWNER_ANNOTATION,
  builtinScopes,
  clusterError,
  type Cluster,
  type ObjectRef,
  type Resource,
} from '../../core/internal.js';
import {
  applicationObject,
  applicationRef,
  readExisting,
  readObject,
  reconcileUntilQuiet,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';

type ChildKind = 'ConfigMap' | 'Service' | 'Deployment';

/** The children of Application `app` of the given kinds (named after it: the tests share a namespace). */
const manifest = (app: string, kinds: ReadonlyArray<ChildKind>): ReadonlyArray<Resource> => {
  const labels = { 'app.kubernetes.io/name': app };
  const all: ReadonlyArray<Resource> = [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${app}-config`, labels }, data: { MODE: 'a' } },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `${app}-web`, labels },
      spec: { selector: labels, ports: [{ name: 'http', port: 80 }] },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: `${app}-web`, labels },
      spec: {
        replicas: 0,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
      },
    },
  ];
  return all.filter((resource) => kinds.some((kind) => kind === resource.kind));
};

const refOf = (object: Resource): ObjectRef => ({
  apiVersion: object.apiVersion,
  kind: object.kind,
  name: object.metadata.name,
  ...(object.metadata.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
});

/** `cluster` as a process that dies once it has created `creates` objects: no later write lands. */
const dyingAfter = (cluster: Cluster, creates: number): Cluster => {
  let created = 0;
  const died = (ref: ObjectRef) => async () =>
    E.left(clusterError('Unavailable', 'the process died', { code: 0, ref }));
  const dead = (): boolean => created >= creates;
  return {
    ...cluster,
    create: (object, options) =>
      dead()
        ? died(refOf(object))
        : async () => {
            const answer = await cluster.create(object, options)();
            if (E.isRight(answer)) created++;
            return answer;
          },
    update: (object, options) => (dead() ? died(refOf(object)) : cluster.update(object, options)),
    patch: (ref, patch, options) => (dead() ? died(ref) : cluster.patch(ref, patch, options)),
    delete: (ref, options) => (dead() ? died(ref) : cluster.delete(ref, options)),
    patchStatus: (ref, patch) => (dead() ? died(ref) : cluster.patchStatus(ref, patch)),
    updateStatus: (object) => (dead() ? died(refOf(object)) : cluster.updateStatus(object)),
  };
};

/** `cluster` with every delete it sends noted as `Kind/name`. */
const notingDeletes = (cluster: Cluster, deletes: string[]): Cluster => ({
  ...cluster,
  delete: (ref, options) => {
    deletes.push(`${ref.kind}/${ref.name}`);
    return cluster.delete(ref, options);
  },
});

describeWithApiServer('the intent on the finalizer patch, through a crash, on a real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-intent-crash'));
  });
  afterAll(async () => {
    await cleanup?.();
  });

  const depsWith = (writer: Cluster): ReconcileDeps => ({
    cluster: writer,
    scopes: builtinScopes,
    now: () => new Date().toISOString(),
    random: Math.random,
    // No deployment controller is needed: children count as ready once they exist.
    planOptions: { readiness: 'existence' },
  });

  const owned = async (name: string): Promise<ReadonlyArray<string>> => {
    const kinds = [
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'Service' },
      { apiVersion: 'apps/v1', kind: 'Deployment' },
    ];
    const lists = await Promise.all(kinds.map((kind) => must(cluster.list({ ...kind, namespace }))));
    return lists
      .flatMap((list) => list.items)
      .filter((object) => object.metadata.annotations?.[OWNER_ANNOTATION] === `${namespace}/${name}`)
      .filter((object) => object.metadata.deletionTimestamp === undefined)
      .map((object) => `${object.kind}/${object.metadata.name}`)
      .sort();
  };

  /** Creates the Application and lets a process die after its finalizer patch and two creates. */
  const crashedAfterTwoCreates = async (name: string): Promise<Resource> => {
    const ref = applicationRef(namespace, name);
    await must(
      cluster.create(applicationObject(namespace, name, manifest(name, ['ConfigMap', 'Service', 'Deployment']))),
    );
    const crashed = await reconcileApplication(ref, depsWith(dyingAfter(cluster, 2)));
    expect(crashed._tag).toBe('Failed');
    // Install order: the ConfigMap and the Service were created, the Deployment never was; no status landed.
    expect(await owned(name)).toEqual([`ConfigMap/${name}-config`, `Service/${name}-web`]);
    const stored = await readExisting(cluster, ref);
    expect(stored.status).toBeUndefined();
    expect(stored.metadata.finalizers).toEqual([FINALIZER]);
    expect(intentKindsOf(stored)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'Service' },
      { apiVersion: 'apps/v1', kind: 'Deployment' },
    ]);
    return stored;
  };

  it('the spec drops a created kind: the next process prunes that child (named only by the annotation)', async () => {
    const name = 'pruned';
    const stored = await crashedAfterTwoCreates(name);
    await must(cluster.update({ ...stored, spec: { manifest: manifest(name, ['ConfigMap', 'Deployment']) } }));
    const deletes: string[] = [];
    await reconcileUntilQuiet(applicationRef(namespace, name), depsWith(notingDeletes(cluster, deletes)));
    expect(deletes).toEqual([`Service/${name}-web`]);
    expect(await owned(name)).toEqual([`ConfigMap/${name}-config`, `Deployment/${name}-web`]);
  });

  it('the spec drops a created kind and the Application is deleted: the next process deletes every child itself', async () => {
    const name = 'deleted';
    const stored = await crashedAfterTwoCreates(name);
    await must(cluster.update({ ...stored, spec: { manifest: manifest(name, ['ConfigMap']) } }));
    await must(cluster.delete(refOf(stored)));
    const deletes: string[] = [];
    const ref = applicationRef(namespace, name);
    await eventually(async () => {
      await reconcileUntilQuiet(ref, depsWith(notingDeletes(cluster, deletes)));
      expect(await readObject(cluster, ref)).toBeUndefined();
    });
    expect([...new Set(deletes)].sort()).toEqual([`ConfigMap/${name}-config`, `Service/${name}-web`]);
    expect(await owned(name)).toEqual([]);
  });
});
