/**
 * Real clients against the memory cluster's HTTP endpoint: client-node's generated APIs, its
 * dynamic KubernetesObjectApi (discovery), its Watch and informer, and kubectl.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
  makeInformer,
  setHeaderOptions,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryCluster, ManualClock } from '../../../../adapters/memory/index.js';
import { serveMemoryCluster, type ServedCluster } from '../../../../adapters/memory/http/index.js';
import { eventually } from '../../../support/eventually.js';

const open: ServedCluster[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

const served = async (...args: Parameters<typeof serveMemoryCluster>) => {
  const endpoint = await serveMemoryCluster(...args);
  open.push(endpoint);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(endpoint.kubeconfig);
  return { endpoint, kubeConfig };
};

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.toys.example' },
  spec: {
    group: 'toys.example',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

const thrown = async (promise: Promise<unknown>): Promise<ApiException<string>> => {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof ApiException)) throw new Error(`expected an ApiException, got ${String(outcome)}`);
  return outcome as ApiException<string>;
};

describe('client-node against the memory cluster over HTTP', () => {
  it('loads the kubeconfig (plain HTTP on loopback) and round-trips ConfigMaps through CoreV1Api', async () => {
    const memory = createMemoryCluster();
    const { kubeConfig } = await served(memory);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const body: V1ConfigMap = { metadata: { name: 'cm', labels: { app: 'x' } }, data: { a: '1' } };
    await core.createNamespacedConfigMap({ namespace: 'default', body });
    expect((await core.readNamespacedConfigMap({ namespace: 'default', name: 'cm' })).data).toEqual({ a: '1' });
    await core.patchNamespacedConfigMap(
      { namespace: 'default', name: 'cm', body: { data: { b: '2' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.patchNamespacedConfigMap({
      namespace: 'default',
      name: 'cm',
      body: [{ op: 'remove', path: '/data/a' }],
    });
    const listed = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'app=x' });
    expect(listed.items.map((o) => o.data)).toEqual([{ b: '2' }]);
    expect(memory.objects().find((o) => o.kind === 'ConfigMap')?.data).toEqual({ b: '2' });
    const missing = await thrown(core.readNamespacedConfigMap({ namespace: 'default', name: 'nope' }));
    expect(missing.code).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ kind: 'Status', reason: 'NotFound' });
    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'cm' });
    expect(memory.objects().filter((o) => o.kind === 'ConfigMap')).toEqual([]);
  });

  it('custom resources: CRD through ApiextensionsV1Api, server-side apply with force, status merge patch; SMP on the dynamic client answers 415', async () => {
    const memory = createMemoryCluster();
    const { kubeConfig } = await served(memory);
    // The typed API serialises its model: the schema flag goes by its model name (the JSON key would be dropped).
    const schema = { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } };
    await kubeConfig.makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({
      body: {
        ...widgetCrd,
        spec: { ...widgetCrd.spec, versions: widgetCrd.spec.versions.map((v) => ({ ...v, schema })) },
      },
    });
    await memory.settle();
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    const target = { group: 'toys.example', version: 'v1', namespace: 'default', plural: 'widgets', name: 'w' };
    await custom.patchNamespacedCustomObject(
      {
        ...target,
        fieldManager: 'test',
        force: true,
        body: {
          apiVersion: 'toys.example/v1',
          kind: 'Widget',
          metadata: { name: 'w', namespace: 'default' },
          spec: { size: 3 },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
    await custom.patchNamespacedCustomObjectStatus(
      { ...target, body: { status: { ready: true } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const read = (await custom.getNamespacedCustomObject(target)) as { spec: unknown; status: unknown };
    expect(read).toMatchObject({ spec: { size: 3 }, status: { ready: true } });
    const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    const viaDiscovery = await objects.read({
      apiVersion: 'toys.example/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
    });
    expect(viaDiscovery.metadata?.uid).toBe(memory.objects().find((o) => o.kind === 'Widget')?.metadata.uid);
    const smp = await thrown(
      objects.patch({
        apiVersion: 'toys.example/v1',
        kind: 'Widget',
        metadata: { name: 'w', namespace: 'default' },
        spec: { size: 4 },
      }),
    );
    expect(smp.code).toBe(415);
  });

  it("KubernetesObjectApi.patch's default (strategic merge) on a Deployment: containers and env merge by name", async () => {
    const memory = createMemoryCluster();
    const { kubeConfig } = await served(memory);
    const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    const metadata = { name: 'web', namespace: 'default' };
    await objects.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata,
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx:1.27',
                env: [
                  { name: 'MODE', value: 'slow' },
                  { name: 'KEEP', value: '1' },
                ],
              },
              { name: 'side', image: 'busybox:1.36' },
            ],
          },
        },
      },
    });
    // No PatchStrategy: client-node sends application/strategic-merge-patch+json, as most controllers do.
    const patched = await objects.patch({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata,
      spec: {
        template: {
          spec: { containers: [{ name: 'web', image: 'nginx:1.28', env: [{ name: 'MODE', value: 'fast' }] }] },
        },
      },
    });
    const containers = (patched as { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } })
      .spec.template.spec.containers;
    expect(containers.map((c) => [c.name, c.image])).toEqual([
      ['web', 'nginx:1.28'],
      ['side', 'busybox:1.36'],
    ]);
    expect(containers[0]?.env).toEqual([
      { name: 'MODE', value: 'fast' },
      { name: 'KEEP', value: '1' },
    ]);
  });

  it('Watch: events and bookmarks from a resourceVersion; an informer follows adds, updates and deletes', async () => {
    const clock = new ManualClock(0);
    const memory = createMemoryCluster({ clock, bookmarkIntervalMs: 60_000 });
    const { kubeConfig } = await served(memory);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    const seen: string[] = [];
    const controller = await new Watch(kubeConfig).watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
      (type, object: { metadata?: { name?: string } }) => {
        seen.push(type === 'BOOKMARK' ? type : `${type}:${object.metadata?.name}`);
      },
      () => undefined,
    );
    const informer = makeInformer(kubeConfig, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    const informed: string[] = [];
    informer.on('add', (o) => informed.push(`add:${o.metadata?.name}`));
    informer.on('update', (o) => informed.push(`update:${o.metadata?.name}`));
    informer.on('delete', (o) => informed.push(`delete:${o.metadata?.name}`));
    await informer.start();
    try {
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'a' } } });
      await core.replaceNamespacedConfigMap({
        namespace: 'default',
        name: 'a',
        body: { metadata: { name: 'a' }, data: { x: '1' } },
      });
      await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'a' });
      await eventually(() => expect(seen).toEqual(['ADDED:a', 'MODIFIED:a', 'DELETED:a']), 5_000, 10);
      await clock.advance(60_000);
      await eventually(() => expect(seen.at(-1)).toBe('BOOKMARK'), 5_000, 10);
      await eventually(() => expect(informed).toEqual(['add:a', 'update:a', 'delete:a']), 5_000, 10);
    } finally {
      controller.abort();
      await informer.stop();
    }
  });
});

describe('client-node informer across an API-server restart', () => {
  it('the dropped connection is an informer error; restarted on it (as client-node advises), it relists and keeps following', async () => {
    const memory = createMemoryCluster();
    const { kubeConfig } = await served(memory);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const informer = makeInformer(kubeConfig, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    const connects: number[] = [];
    const errors: unknown[] = [];
    informer.on('connect', () => connects.push(connects.length));
    // client-node's informer stops on a watch error; its documented remedy is to start it again
    informer.on('error', (error: unknown) => {
      errors.push(error);
      setTimeout(() => void informer.start(), 10);
    });
    await informer.start();
    try {
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'before' } } });
      await eventually(
        () => expect(informer.list('default').map((o) => o.metadata?.name)).toEqual(['before']),
        5_000,
        10,
      );
      memory.restart();
      await eventually(() => expect(connects.length).toBeGreaterThan(1), 10_000, 10);
      expect(errors.length).toBeGreaterThan(0);
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'after' } } });
      await eventually(
        () =>
          expect(
            informer
              .list('default')
              .map((o) => o.metadata?.name)
              .sort(),
          ).toEqual(['after', 'before']),
        10_000,
        10,
      );
    } finally {
      await informer.stop();
    }
  }, 30_000);
});

// kubectl is an optional tool here: without it the case shows as skipped, naming why.
const kubectlMissing = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).error !== undefined;

describe('kubectl against the memory cluster over HTTP (no authentication: client-go sends no token over plain HTTP)', () => {
  it.skipIf(kubectlMissing)(
    `server-side apply, get, delete and api-resources${kubectlMissing ? ' (SKIPPED: kubectl is not on PATH)' : ''}`,
    async () => {
      const memory = createMemoryCluster();
      const directory = await mkdtemp(join(tmpdir(), 'kr-kubectl-'));
      const { endpoint } = await served(memory, { auth: 'none', kubeconfigPath: join(directory, 'kubeconfig') });
      const manifest = join(directory, 'cm.yaml');
      await writeFile(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-kubectl\ndata:\n  a: "1"\n');
      // Asynchronous: the endpoint runs in this process's event loop.
      const kubectl = async (...args: string[]): Promise<string> =>
        (
          await promisify(execFile)('kubectl', ['--kubeconfig', endpoint.kubeConfigPath ?? '', ...args], {
            encoding: 'utf8',
            timeout: 30_000,
          })
        ).stdout;
      // No /openapi documents: kubectl's client-side schema validation must be off.
      await kubectl('apply', '--server-side', '--validate=false', '-f', manifest);
      expect(memory.objects().find((o) => o.metadata.name === 'from-kubectl')?.data).toEqual({ a: '1' });
      expect(await kubectl('get', 'cm', 'from-kubectl', '-o', 'jsonpath={.data.a}')).toBe('1');
      expect(await kubectl('api-resources', '--api-group=apps', '-o', 'name')).toContain('deployments.apps');
      await kubectl('delete', 'configmap', 'from-kubectl');
      expect(memory.objects().filter((o) => o.metadata.name === 'from-kubectl')).toEqual([]);
    },
    60_000,
  );
});
