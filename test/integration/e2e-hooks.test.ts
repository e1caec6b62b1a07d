/**
 * End to end on a real API server, driven by the running operator (issue 7): the `complete` hook
 * (Secret and env entries, a wrong token refused and changing nothing, the right one deleting the
 * Application and its children through the finalizer) and an Application defined only by a CSAR
 * served from a loopback HTTP server reconciling to the same children as the inline manifest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { getIn, type ObjectRef, type Resource } from '../../core/internal.js';
import { body, LOOPBACK_ALLOWED, serve, type Loopback } from '../app/tosca/loopback.js';
import { WEB_CSAR, WEB_MANIFEST } from '../app/tosca/templates.js';
import {
  applicationRef,
  expectOwnedBy,
  expectReady,
  readApplication,
  readExisting,
  readObject,
  reconcileLog,
  type ReconcileLog,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;
/** What the Secrets name as the callback base (the operator Service); the test calls the listener directly. */
const CALLBACK_URL = 'http://kreconcile.kreconcile-system.svc:8080';

const applicationOf = (namespace: string, name: string, spec: Record<string, unknown>): Resource =>
  ({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace },
    spec,
  }) as unknown as Resource;

const call = async (url: string, token?: string): Promise<{ status: number; body: Record<string, unknown> }> => {
  const response = await fetch(url, {
    method: 'POST',
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const tokenIn = (secret: Resource, key: string): string => {
  const value = (secret.data as Record<string, string> | undefined)?.[key];
  if (value === undefined) throw new Error(`no ${key} in the hook Secret`);
  return Buffer.from(value, 'base64').toString('utf8');
};

type Container = { readonly name: string; readonly env?: ReadonlyArray<unknown> };

describeWithApiServer('end to end: hooks and CSAR on a real API server', (env) => {
  let cluster: KubernetesCluster;

  beforeAll(() => {
    cluster = connect(env);
  });

  const waitReady = (ref: ObjectRef) =>
    eventually(async () => {
      const application = await readApplication(cluster, ref);
      expectReady(application);
      return application;
    }, CONVERGE_MS);

  describe('the complete hook', () => {
    let namespace: string;
    let cleanup: () => Promise<void>;
    let operator: Operator;
    let log: ReconcileLog;
    const name = 'batch';
    let appRef: ObjectRef;
    let secretRef: ObjectRef;
    let deploymentRef: ObjectRef;
    let configRef: ObjectRef;
    const url = (hook: string) =>
      `http://127.0.0.1:${operator.callbackAddress?.port}/v1/namespaces/${namespace}/applications/${name}/${hook}`;

    const manifest = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'worker-config' }, data: { MODE: 'batch' } },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'worker' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'worker' } },
          template: {
            metadata: { labels: { app: 'worker' } },
            spec: {
              initContainers: [{ name: 'migrate', image: 'busybox:1.36' }],
              containers: [
                {
                  name: 'worker',
                  image: 'busybox:1.36',
                  env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'worker-config', key: 'MODE' } } }],
                },
              ],
            },
          },
        },
      },
    ];

    beforeAll(async () => {
      ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-e2e-hooks'));
      appRef = applicationRef(namespace, name);
      secretRef = { apiVersion: 'v1', kind: 'Secret', namespace, name: `${name}.${namespace}.kreconcile-hooks` };
      deploymentRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'worker' };
      configRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'worker-config' };
      log = reconcileLog();
      operator = await startOperator({
        cluster: connect(env),
        clock: realClock,
        random: Math.random,
        workers: 2,
        namespace,
        readiness: 'existence',
        onReconciled: log.onReconciled,
        hooks: { callbackUrl: CALLBACK_URL, listen: { host: '127.0.0.1', port: 0 } },
      });
      expect(operator.callbackAddress?.port).toBeGreaterThan(0);
    });
    afterAll(async () => {
      await operator?.stop(10_000);
      await cleanup?.();
    });

    it('creates the hook Secret (owned by the Application) and the env entries; the token is not in status', async () => {
      await must(cluster.create(applicationOf(namespace, name, { manifest, hooks: ['complete'] })));
      const application = await waitReady(appRef);

      const secret = await readExisting(cluster, secretRef);
      expectOwnedBy(secret, application);
      const token = tokenIn(secret, 'complete-token');
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(tokenIn(secret, 'complete-url')).toBe(
        `${CALLBACK_URL}/v1/namespaces/${namespace}/applications/${name}/complete`,
      );

      const deployment = await readExisting(cluster, deploymentRef);
      expectOwnedBy(deployment, application);
      const pod = getIn(deployment, ['spec', 'template', 'spec']) as {
        containers: Container[];
        initContainers: Container[];
      };
      const ref = (envName: string, key: string) => ({
        name: envName,
        valueFrom: { secretKeyRef: { name: secretRef.name, key } },
      });
      expect(pod.containers[0]?.env).toEqual([
        { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'worker-config', key: 'MODE' } } },
        ref('KRECONCILE_COMPLETE_TOKEN', 'complete-token'),
        ref('KRECONCILE_COMPLETE_URL', 'complete-url'),
      ]);
      expect(pod.initContainers[0]?.env).toEqual([
        ref('KRECONCILE_COMPLETE_TOKEN', 'complete-token'),
        ref('KRECONCILE_COMPLETE_URL', 'complete-url'),
      ]);

      const stored = JSON.stringify(await readApplication(cluster, appRef));
      expect(stored).not.toContain(token);
      expect(stored).not.toContain(Buffer.from(token).toString('base64'));
      expect(log.failuresFor(`${namespace}/${name}`)).toEqual([]);
    });

    it('a call with a wrong token, or none, is refused (401) and changes nothing', async () => {
      const before = await Promise.all(
        [appRef, secretRef, deploymentRef, configRef].map((ref) => readExisting(cluster, ref)),
      );
      expect(await call(url('complete'), 'not-the-token')).toEqual({ status: 401, body: { error: 'unauthorized' } });
      expect((await call(url('complete'))).status).toBe(401);

      const after = await Promise.all(
        [appRef, secretRef, deploymentRef, configRef].map((ref) => readExisting(cluster, ref)),
      );
      for (const [index, object] of after.entries()) {
        expect(object.metadata.resourceVersion, `${object.kind} ${object.metadata.name}`).toBe(
          before[index]?.metadata.resourceVersion,
        );
      }
      expect(after[0]?.metadata.deletionTimestamp).toBeUndefined();
    });

    it('with the right token (read from the live Secret) the Application is deleted, and its children through the finalizer', async () => {
      const token = tokenIn(await readExisting(cluster, secretRef), 'complete-token');
      expect(await call(url('complete'), token)).toEqual({
        status: 202,
        body: { accepted: 'complete', deleting: true },
      });
      await eventually(async () => expect(await readObject(cluster, appRef)).toBeUndefined(), CONVERGE_MS);
      await eventually(async () => {
        for (const ref of [deploymentRef, configRef, secretRef])
          expect(await readObject(cluster, ref), `${ref.kind} ${ref.name}`).toBeUndefined();
      }, CONVERGE_MS);
      expect(log.failuresFor(`${namespace}/${name}`)).toEqual([]);
    });
  });

  describe('an Application defined only by a CSAR', () => {
    const name = 'web';
    let server: Loopback;
    const spaces: Array<{
      readonly namespace: string;
      cleanup(): Promise<void>;
      operator: Operator;
      log: ReconcileLog;
    }> = [];

    const reconciled = async (prefix: string, spec: Record<string, unknown>) => {
      const { namespace, cleanup } = await freshNamespace(cluster, prefix);
      const log = reconcileLog();
      const operator = await startOperator({
        cluster: connect(env),
        clock: realClock,
        random: Math.random,
        workers: 2,
        namespace,
        readiness: 'existence',
        onReconciled: log.onReconciled,
        tosca: LOOPBACK_ALLOWED,
      });
      spaces.push({ namespace, cleanup, operator, log });
      await must(cluster.create(applicationOf(namespace, name, spec)));
      const application = await waitReady(applicationRef(namespace, name));
      expect(log.failuresFor(`${namespace}/${name}`)).toEqual([]);
      return { namespace, application };
    };

    /** The children as comparable data: kind, name, ownership, and the fields the manifest sets. */
    const childrenOf = async (namespace: string): Promise<ReadonlyArray<unknown>> => {
      const owned = (object: Resource) =>
        object.metadata.annotations?.['kreconcile.io/owner'] === `${namespace}/${name}`;
      const configMaps = (await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace }))).items.filter(
        owned,
      );
      const deployments = (
        await must(cluster.list({ apiVersion: 'apps/v1', kind: 'Deployment', namespace }))
      ).items.filter(owned);
      return [...configMaps, ...deployments]
        .map((object) => ({
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name,
          labels: object.metadata.labels,
          owners: (object.metadata.ownerReferences ?? []).map(({ uid: _uid, ...rest }) => rest),
          ...(object.kind === 'ConfigMap' ? { data: getIn(object, ['data']) } : {}),
          ...(object.kind === 'Deployment'
            ? {
                replicas: getIn(object, ['spec', 'replicas']),
                selector: getIn(object, ['spec', 'selector']),
                podLabels: getIn(object, ['spec', 'template', 'metadata', 'labels']),
                containers: (
                  getIn(object, ['spec', 'template', 'spec', 'containers']) as Array<{ name: string; image: string }>
                ).map((c) => ({ name: c.name, image: c.image })),
              }
            : {}),
        }))
        .sort((a, b) => `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`));
    };

    beforeAll(async () => {
      server = await serve({ '/web.csar': body(WEB_CSAR(), 'application/zip') });
    });
    afterAll(async () => {
      for (const { operator } of spaces) await operator.stop(10_000);
      for (const { cleanup } of spaces) await cleanup();
      await server?.close();
    });

    it('reconciles to the same children (kinds, names, observed fields) as the equivalent inline manifest', async () => {
      const fromManifest = await reconciled('kr-e2e-manifest', { manifest: WEB_MANIFEST });
      const fromCsar = await reconciled('kr-e2e-csar', { csar: server.url('/web.csar'), toscaInputs: { replicas: 3 } });
      expect(server.hits.get('/web.csar')).toBeGreaterThan(0);

      const expected = await childrenOf(fromManifest.namespace);
      expect(expected).toHaveLength(2);
      expect(expected).toMatchObject([
        { kind: 'ConfigMap', name: 'web-config', data: { GREETING: 'hello, nginx:1.27' } },
        { kind: 'Deployment', name: 'web', replicas: 3, containers: [{ name: 'web', image: 'nginx:1.27' }] },
      ]);
      expect(await childrenOf(fromCsar.namespace)).toEqual(expected);
      expect(fromCsar.application.status?.mangledObserverSchema).toEqual(
        fromManifest.application.status?.mangledObserverSchema,
      );
      // The translation never writes spec.
      expect(fromCsar.application.spec).toEqual({ csar: server.url('/web.csar'), toscaInputs: { replicas: 3 } });
    });
  });
});
