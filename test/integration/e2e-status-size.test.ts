/**
 * Sizes on a real API server (docs/decisions/0023-status-size.md): what kube-apiserver and etcd
 * answer to objects over their limits (the memory server answers the same), a 15-object install
 * with five large CRDs reconciled as one Application, and an Application that cannot fit refused
 * before any child exists.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { createMemoryCluster } from '../../adapters/memory/index.js';
import { reconcileApplication, type ReconcileDeps } from '../../app/reconcile/reconcile-application.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  getIn,
  type Cluster,
  type ClusterError,
  type Resource,
} from '../../core/internal.js';
import { largeInstall } from '../support/large-install.js';
import { connect, describeWithApiServer, freshNamespace } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';
import { installCrds } from '../../tools/envtest/install-crds.js';
import { applicationCrd } from '../../app/manifests/crd.js';

const MIB = 1024 * 1024;

const applicationWith = (namespace: string, name: string, manifest: ReadonlyArray<Resource>): Resource => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  metadata: { name, namespace },
  spec: { manifest: [...manifest] },
});

const refusal = async (
  cluster: Cluster,
  object: Resource,
): Promise<Pick<ClusterError, '_tag' | 'code' | 'message'>> => {
  const result = await cluster.create(object)();
  if (E.isRight(result)) throw new Error(`${object.metadata.name} was stored`);
  return { _tag: result.left._tag, code: result.left.code, message: result.left.message };
};

describeWithApiServer('sizes on a real API server', (env) => {
  let admin: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  const created: Resource[] = [];

  beforeAll(async () => {
    admin = connect(env);
    ({ namespace, cleanup } = await freshNamespace(admin, 'kr-size'));
    // The Application CRD as this tree prints it (with status.manifests): the shared cluster may hold an
    // older one, which prunes the field (the operator then writes the earlier form, too large here).
    await installCrds(admin, [applicationCrd()]);
  }, 60_000);

  afterAll(async () => {
    // The install's cluster-scoped children (its CRDs and ClusterRole) are this run's own.
    for (const object of created)
      if (object.metadata.namespace === undefined)
        await admin.delete({ apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name })();
    await cleanup();
  });

  const depsFor = (): ReconcileDeps => ({
    cluster: admin,
    scopes: builtinScopes,
    now: () => new Date(realClock.now()).toISOString(),
    random: () => 0.5,
    planOptions: { tenancy: { clusterKinds: [{ from: namespace, kinds: ['*'] }] } },
  });

  const ref = (name: string) => ({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace, name });

  it('refuses an object over etcd’s limit and a body over 3 MiB as the memory server does', async () => {
    const blob = (name: string, size: number): Resource =>
      applicationWith(namespace, name, [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { blob: 'x'.repeat(size) } },
      ]);
    const memory = createMemoryCluster();
    await memory.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })();
    for (const [name, size] of [
      ['over-etcd', 1.6 * MIB],
      ['over-body', 3.1 * MIB],
    ] as const) {
      const real = await refusal(admin, blob(name, size));
      console.info(`real server, ${name}: ${real.code} ${real.message}`);
      expect(await refusal(memory, blob(name, size))).toEqual(real);
    }
  });

  it('reconciles a 15-object install with five large CRDs as one Application', async () => {
    const install = largeInstall(namespace);
    created.push(...install);
    expect(E.isRight(await admin.create(applicationWith(namespace, 'install', install))())).toBe(true);
    const deps = depsFor();
    let actions = -1;
    for (let round = 0; round < 8 && actions !== 0; round++) {
      const result = await reconcileApplication(ref('install'), deps);
      if (result._tag !== 'Done') throw new Error(`round ${round}: ${JSON.stringify(result).slice(0, 400)}`);
      actions = result.plan.actions.length;
    }
    expect(actions).toBe(0);
    for (const object of install) {
      const got = await admin.get({
        apiVersion: object.apiVersion,
        kind: object.kind,
        name: object.metadata.name,
        ...(object.metadata.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
      })();
      expect(E.isRight(got) && got.right._tag).toBe('Some');
    }
    const stored = await admin.get(ref('install'))();
    if (E.isLeft(stored) || stored.right._tag === 'None') throw new Error('the Application is gone');
    const application = stored.right.value;
    expect(getIn(application, ['status', 'manifests', 'encoding'])).toBe('deflate-base64');
    const bytes = Buffer.byteLength(JSON.stringify(application));
    console.info(`real server: the Application with its status is ${bytes} bytes`);
    expect(bytes).toBeLessThan(1.5 * MIB);
    // Another reconcile writes nothing: the status read back equals the one computed.
    const again = await reconcileApplication(ref('install'), deps);
    expect(again._tag === 'Done' && again.plan.actions).toEqual([]);
    expect(again._tag === 'Done' && again.statusWritten).toBe(false);
  }, 180_000);

  it('refuses an Application that cannot fit before any child exists', async () => {
    const install = largeInstall(`${namespace}-huge`, 1.45).map((object) =>
      object.metadata.namespace === undefined
        ? object
        : { ...object, metadata: { ...object.metadata, namespace, name: `huge-${object.metadata.name}` } },
    );
    expect(E.isRight(await admin.create(applicationWith(namespace, 'huge', install))())).toBe(true);
    const result = await reconcileApplication(ref('huge'), depsFor());
    expect(result._tag === 'Failed' && result.error.message).toMatch(/would be .* stored/);
    for (const object of install) {
      const got = await admin.get({
        apiVersion: object.apiVersion,
        kind: object.kind,
        name: object.metadata.name,
        ...(object.metadata.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
      })();
      expect(E.isRight(got) && got.right._tag).toBe('None');
    }
    const stored = await admin.get(ref('huge'))();
    const conditions =
      E.isRight(stored) && stored.right._tag === 'Some'
        ? getIn(stored.right.value, ['status', 'conditions'])
        : undefined;
    expect(JSON.stringify(conditions)).toMatch(
      /"reason":"TooLarge".*Application kr-size-[0-9a-f]+\/huge would be \d\.\d\d MiB stored .*over etcd's limit of 1\.50 MiB \(--max-request-bytes\): split spec\.manifest into several Applications/,
    );
  }, 120_000);
});
