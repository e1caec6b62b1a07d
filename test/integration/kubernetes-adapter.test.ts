/**
 * The Kubernetes adapter on a real kube-apiserver: what only a real server can show
 * (discovery of new CRDs, patch content types on custom resources, server-side apply, the
 * status subresource, watch resume) and a watch that outlives an apiserver restart.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesCluster, type KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { Informer } from '../../app/runtime/informer.js';
import { getIn } from '../../core/json/json.js';
import type { ObjectRef, Resource } from '../../core/model/resource.js';
import { findBinaries } from '../../tools/envtest/binaries.js';
import { startControlPlane, type ControlPlane } from '../../tools/envtest/control-plane.js';
import { installCrd } from '../../tools/envtest/install-crds.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must, uniqueName } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';
import { recordingSink } from '../support/recording-sink.js';
import { widgetGroup } from '../support/test-crds.js';

const widgetApi = `${widgetGroup}/v1`;

describeWithApiServer('Kubernetes adapter on a real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster));
  });
  afterAll(async () => {
    await cleanup();
  });

  const widget = (name: string, spec: Record<string, string | number> = { color: 'red' }): Resource => ({
    apiVersion: widgetApi,
    kind: 'Widget',
    metadata: { name, namespace },
    spec,
  });
  const widgetRef = (name: string): ObjectRef => ({ apiVersion: widgetApi, kind: 'Widget', namespace, name });
  const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = {}): Resource => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels },
    data,
  });

  describe('discovery', () => {
    it('finds a CRD installed after the adapter started, and reports unknown kinds as UnknownKind', async () => {
      const group = `${uniqueName('late')}.kreconcile.io`;
      const apiVersion = `${group}/v1`;
      const before = await cluster.scopeOf(apiVersion, 'Sprocket')();
      expect(E.isLeft(before) && before.left._tag).toBe('UnknownKind');
      const crd: Resource = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `sprockets.${group}` },
        spec: {
          group,
          scope: 'Cluster',
          names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      };
      // Installed through a second client: the adapter under test learns of it only by rediscovery.
      await installCrd(createKubernetesCluster({ kubeconfigPath: env.kubeconfigPath }), crd);
      try {
        expect(await must(cluster.scopeOf(apiVersion, 'Sprocket'))).toBe('Cluster');
        const created = await must(
          cluster.create({ apiVersion, kind: 'Sprocket', metadata: { name: 's1' }, spec: { teeth: 12 } }),
        );
        expect(created.metadata.namespace).toBeUndefined();
        const read = await must(cluster.get({ apiVersion, kind: 'Sprocket', name: 's1' }));
        expect(O.isSome(read) && getIn(read.value, ['spec', 'teeth'])).toBe(12);
      } finally {
        await cluster.delete({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name: crd.metadata.name,
        })();
      }
    });

    it('resolves core, grouped and custom kinds to their scope', async () => {
      expect(await must(cluster.scopeOf('v1', 'ConfigMap'))).toBe('Namespaced');
      expect(await must(cluster.scopeOf('v1', 'Namespace'))).toBe('Cluster');
      expect(await must(cluster.scopeOf('apps/v1', 'Deployment'))).toBe('Namespaced');
      expect(await must(cluster.scopeOf(widgetApi, 'Gizmo'))).toBe('Cluster');
      const missing = await cluster.scopeOf('v1', 'NoSuchKind')();
      expect(E.isLeft(missing) && missing.left._tag).toBe('UnknownKind');
    });
  });

  describe('patching a custom resource', () => {
    it('applies a JSON Patch (no strategic merge, no 415)', async () => {
      await must(cluster.create(widget('jp', { color: 'red', size: 2 })));
      const patched = await must(
        cluster.patch(widgetRef('jp'), {
          type: 'json',
          operations: [
            { op: 'test', path: '/spec/color', value: 'red' },
            { op: 'replace', path: '/spec/color', value: 'blue' },
            { op: 'add', path: '/metadata/labels', value: { 'app.kubernetes.io/name': 'x' } },
          ],
        }),
      );
      expect(getIn(patched, ['spec'])).toEqual({ color: 'blue', size: 2 });
      expect(patched.metadata.labels).toEqual({ 'app.kubernetes.io/name': 'x' });
    });

    it('rejects a JSON Patch whose test fails, changing nothing', async () => {
      const created = await must(cluster.create(widget('jp-test')));
      const failed = await cluster.patch(widgetRef('jp-test'), {
        type: 'json',
        operations: [
          { op: 'test', path: '/spec/color', value: 'green' },
          { op: 'replace', path: '/spec/color', value: 'blue' },
        ],
      })();
      // The real server answers 422 Invalid for a failed `test` (not 409 Conflict).
      expect(E.isLeft(failed) && [failed.left._tag, failed.left.code]).toEqual(['Invalid', 422]);
      const after = await must(cluster.get(widgetRef('jp-test')));
      expect(O.isSome(after) && after.value.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    });

    it('applies a merge patch, null deleting a key', async () => {
      await must(cluster.create(widget('mp', { color: 'red', size: 3 })));
      const patched = await must(
        cluster.patch(widgetRef('mp'), { type: 'merge', body: { spec: { color: null, tags: ['a'] } } }),
      );
      expect(getIn(patched, ['spec'])).toEqual({ size: 3, tags: ['a'] });
    });

    it('patches core kinds with both content types too', async () => {
      await must(cluster.create(configMap('cm-patch', { a: '1' })));
      await must(
        cluster.patch(
          { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'cm-patch' },
          { type: 'json', operations: [{ op: 'add', path: '/data/b', value: '2' }] },
        ),
      );
      const merged = await must(
        cluster.patch(
          { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'cm-patch' },
          { type: 'merge', body: { data: { a: null } } },
        ),
      );
      expect(getIn(merged, ['data'])).toEqual({ b: '2' });
    });
  });

  describe('server-side apply', () => {
    it('creates, then reports a field-manager conflict unless forced', async () => {
      const applied = await must(
        cluster.patch(widgetRef('ssa'), {
          type: 'apply',
          fieldManager: 'owner-a',
          body: widget('ssa', { color: 'red' }),
        }),
      );
      // Defaulting happens on apply too.
      expect(getIn(applied, ['spec'])).toEqual({ color: 'red', size: 1 });
      const conflict = await cluster.patch(widgetRef('ssa'), {
        type: 'apply',
        fieldManager: 'owner-b',
        body: widget('ssa', { color: 'blue' }),
      })();
      expect(E.isLeft(conflict) && conflict.left._tag).toBe('Conflict');
      expect(E.isLeft(conflict) && conflict.left.causes?.map((c) => c.reason)).toContain('FieldManagerConflict');
      const forced = await must(
        cluster.patch(widgetRef('ssa'), {
          type: 'apply',
          fieldManager: 'owner-b',
          force: true,
          body: widget('ssa', { color: 'blue' }),
        }),
      );
      expect(getIn(forced, ['spec', 'color'])).toBe('blue');
      const managers = getIn(forced, ['metadata', 'managedFields']);
      expect(JSON.stringify(managers)).toContain('owner-b');
    });
  });

  describe('status subresource', () => {
    it('writes status only through /status, without bumping generation', async () => {
      const created = await must(cluster.create(widget('st')));
      expect(created.metadata.generation).toBe(1);
      // A status in a main-resource write is ignored when the status subresource is enabled.
      const updated = await must(
        cluster.update({ ...created, spec: { color: 'green' }, status: { phase: 'Ignored' } }),
      );
      expect(getIn(updated, ['status'])).toBeUndefined();
      expect(updated.metadata.generation).toBe(2);
      const withStatus = await must(
        cluster.updateStatus({
          ...updated,
          spec: { color: 'ignored' },
          status: { phase: 'Ready', observedGeneration: 2 },
        }),
      );
      expect(getIn(withStatus, ['status'])).toEqual({ phase: 'Ready', observedGeneration: 2 });
      expect(getIn(withStatus, ['spec', 'color'])).toBe('green');
      expect(withStatus.metadata.generation).toBe(2);
      const merged = await must(
        cluster.patchStatus(widgetRef('st'), { type: 'merge', body: { status: { phase: 'Done' } } }),
      );
      expect(getIn(merged, ['status', 'phase'])).toBe('Done');
      const applied = await must(
        cluster.patchStatus(widgetRef('st'), {
          type: 'apply',
          fieldManager: 'status-owner',
          force: true,
          body: { ...widget('st', {}), status: { phase: 'Applied' } },
        }),
      );
      expect(getIn(applied, ['status', 'phase'])).toBe('Applied');
      expect(applied.metadata.generation).toBe(2);
    });
  });

  describe('errors as data', () => {
    it('maps the server answers onto tags, with causes', async () => {
      const created = await must(cluster.create(configMap('errs', { a: '1' })));
      const dup = await cluster.create(configMap('errs', {}))();
      expect(E.isLeft(dup) && [dup.left._tag, dup.left.code, dup.left.ref?.name]).toEqual([
        'AlreadyExists',
        409,
        'errs',
      ]);
      await must(cluster.update({ ...created, data: { a: '2' } }));
      const stale = await cluster.update({ ...created, data: { a: '3' } })();
      expect(E.isLeft(stale) && stale.left._tag).toBe('Conflict');
      const invalid = await cluster.create(widget('Bad_Name'))();
      expect(E.isLeft(invalid) && invalid.left._tag).toBe('Invalid');
      expect(E.isLeft(invalid) && invalid.left.causes?.some((c) => c.field === 'metadata.name')).toBe(true);
      const negative = await cluster.create(widget('negative', { size: -1 }))();
      expect(E.isLeft(negative) && negative.left.causes?.map((c) => c.field)).toEqual(['spec.size']);
      const missing = await cluster.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'nope' })();
      expect(E.isLeft(missing) && missing.left._tag).toBe('NotFound');
      expect(O.isNone(await must(cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'nope' })))).toBe(
        true,
      );
    });

    it('reports an unreachable server as Unavailable (code 0)', async () => {
      const config = cluster.kubeConfig.exportConfig();
      const dead = createKubernetesCluster({
        kubeconfigYaml: config.replace(/https:\/\/127\.0\.0\.1:\d+/g, 'https://127.0.0.1:1'),
      });
      const result = await dead.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'x' })();
      expect(E.isLeft(result) && [result.left._tag, result.left.code]).toEqual(['Unavailable', 0]);
    });
  });

  describe('configuration', () => {
    it('selects a context by name and refuses an unknown one', () => {
      expect(
        createKubernetesCluster({ kubeconfigPath: env.kubeconfigPath, context: cluster.kubeConfig.getCurrentContext() })
          .server,
      ).toBe(cluster.server);
      expect(() => createKubernetesCluster({ kubeconfigPath: env.kubeconfigPath, context: 'no-such-context' })).toThrow(
        /no context named no-such-context/,
      );
      expect(() => createKubernetesCluster({ kubeconfigPath: '/nonexistent/kubeconfig' })).toThrow(
        /cannot load kubeconfig/,
      );
    });
  });

  describe('delete', () => {
    it('returns the object while a finalizer holds it and none once it is gone', async () => {
      await must(
        cluster.create({
          ...widget('fin'),
          metadata: { name: 'fin', namespace, finalizers: ['test.kreconcile.io/hold'] },
        }),
      );
      const pending = await must(cluster.delete(widgetRef('fin')));
      expect(O.isSome(pending) && pending.value.metadata.deletionTimestamp).toBeTruthy();
      await must(
        cluster.patch(widgetRef('fin'), { type: 'json', operations: [{ op: 'remove', path: '/metadata/finalizers' }] }),
      );
      expect(O.isNone(await must(cluster.get(widgetRef('fin'))))).toBe(true);
      await must(cluster.create(widget('plain')));
      expect(O.isNone(await must(cluster.delete(widgetRef('plain'))))).toBe(true);
      await must(cluster.create(configMap('plain-cm', {})));
      expect(
        O.isNone(await must(cluster.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'plain-cm' }))),
      ).toBe(true);
    });

    it('reports a Terminating namespace as pending', async () => {
      const scratch = uniqueName('kr-ns');
      await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: scratch } }));
      await must(cluster.create({ ...configMap('inside', {}), metadata: { name: 'inside', namespace: scratch } }));
      const pending = await must(cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: scratch }));
      // The namespace lingers with spec.finalizers [kubernetes] until its contents are gone.
      expect(O.isSome(pending) && getIn(pending.value, ['status', 'phase'])).toBe('Terminating');
    });
  });

  describe('list and watch', () => {
    it('lists with a label selector, filling apiVersion/kind of items', async () => {
      await must(cluster.create(configMap('sel-a', {}, { pick: 'yes' })));
      await must(cluster.create(configMap('sel-b', {}, { pick: 'no' })));
      const list = await must(
        cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector: 'pick=yes' }),
      );
      expect(list.items.map((i) => [i.apiVersion, i.kind, i.metadata.name])).toEqual([['v1', 'ConfigMap', 'sel-a']]);
      expect(Number(list.resourceVersion)).toBeGreaterThan(0);
    });

    it('resumes from a resourceVersion: nothing before it, everything after it', async () => {
      const label = { stream: uniqueName('s') };
      const selector = `stream=${label.stream}`;
      await must(cluster.create(configMap('w-before', {}, label)));
      const start = await must(
        cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector: selector }),
      );
      const first = recordingSink();
      const handle = cluster.watch(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace,
          labelSelector: selector,
          resourceVersion: start.resourceVersion,
        },
        first,
      );
      await must(cluster.create(configMap('w-1', {}, label)));
      await eventually(() => expect(first.seen()).toEqual(['ADDED w-1']));
      handle.stop();
      handle.stop();
      const lastSeen = first.events.at(-1);
      const resumeFrom =
        lastSeen?.type === 'BOOKMARK' ? lastSeen.resourceVersion : lastSeen?.object.metadata.resourceVersion;
      await must(cluster.create(configMap('w-2', {}, label)));
      await must(cluster.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'w-1' }));
      const second = recordingSink();
      const resumed = cluster.watch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector: selector, resourceVersion: resumeFrom },
        second,
      );
      await eventually(() => expect(second.seen()).toEqual(['ADDED w-2', 'DELETED w-1']));
      resumed.stop();
      // The stopped stream stayed stopped: no events after stop, and no closed callback.
      expect(first.seen()).toEqual(['ADDED w-1']);
      expect([first.closes, second.closes]).toEqual([[], []]);
    });

    it("outlives the client's 30 s inactivity timeout without closing", async () => {
      const label = { stream: uniqueName('idle') };
      const start = await must(
        cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector: `stream=${label.stream}` }),
      );
      // A connection of its own whose watch requests are recorded (client-node authenticates every
      // request it sends), so the test waits for the reconnect itself instead of sleeping past it.
      const watching = connect(env);
      const watchRequests: Array<string | null> = [];
      const authenticate = watching.kubeConfig.applySecurityAuthentication.bind(watching.kubeConfig);
      watching.kubeConfig.applySecurityAuthentication = (context) => {
        const url = new URL(context.getUrl());
        if (
          url.searchParams.get('watch') === 'true' &&
          url.searchParams.get('labelSelector') === `stream=${label.stream}`
        )
          watchRequests.push(url.searchParams.get('resourceVersion'));
        return authenticate(context);
      };
      const sink = recordingSink();
      const handle = watching.watch(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace,
          labelSelector: `stream=${label.stream}`,
          resourceVersion: start.resourceVersion,
        },
        sink,
      );
      // client-node aborts a watch after 30 s without a byte; the source must reconnect silently,
      // resuming from the version it was given (nothing arrived in between).
      await eventually(() => expect(watchRequests).toHaveLength(2), 60_000, 250);
      expect(watchRequests).toEqual([start.resourceVersion, start.resourceVersion]);
      expect(sink.closes).toEqual([]);
      await must(cluster.create(configMap('after-idle', {}, label)));
      await eventually(() => expect(sink.seen()).toEqual(['ADDED after-idle']));
      handle.stop();
      expect(sink.closes).toEqual([]);
    }, 90_000);

    it('keeps streaming after a handler throws', async () => {
      const label = { stream: uniqueName('t') };
      const thrown: unknown[] = [];
      const watching = createKubernetesCluster(cluster.kubeConfig, {
        watch: { onHandlerError: (e) => thrown.push(e) },
      });
      const start = await must(
        watching.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector: `stream=${label.stream}` }),
      );
      const sink = recordingSink((event) => {
        if (event.type === 'ADDED' && event.object.metadata.name === 'boom') throw new Error('handler bug');
      });
      const handle = watching.watch(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace,
          labelSelector: `stream=${label.stream}`,
          resourceVersion: start.resourceVersion,
        },
        sink,
      );
      await must(cluster.create(configMap('boom', {}, label)));
      await must(cluster.create(configMap('after-boom', {}, label)));
      await eventually(() => expect(sink.seen()).toEqual(['ADDED boom', 'ADDED after-boom']));
      handle.stop();
      expect(thrown.map((e) => (e as Error).message)).toEqual(['handler bug']);
      expect(sink.closes).toEqual([]);
    });

    it('feeds the runtime informer: its cache converges on the cluster, deletes included', async () => {
      const label = { stream: uniqueName('r') };
      const selector = `stream=${label.stream}`;
      await must(cluster.create(configMap('r-1', { v: '1' }, label)));
      const seen: string[] = [];
      const informer = new Informer(
        cluster,
        { apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector: selector },
        {
          clock: realClock,
          onEvent: (e) => seen.push(`${e.type} ${e.object.metadata.name}`),
        },
      );
      try {
        await informer.start();
        expect(informer.list().map((i) => i.metadata.name)).toEqual(['r-1']);
        await must(cluster.create(configMap('r-2', {}, label)));
        await must(
          cluster.patch(
            { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'r-1' },
            { type: 'merge', body: { data: { v: '2' } } },
          ),
        );
        await must(cluster.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'r-2' }));
        await eventually(() =>
          expect(informer.list().map((i) => [i.metadata.name, getIn(i, ['data', 'v'])])).toEqual([['r-1', '2']]),
        );
        expect(seen).toEqual(['ADDED r-1', 'ADDED r-2', 'MODIFIED r-1', 'DELETED r-2']);
      } finally {
        informer.stop();
      }
    });
  });
});

describeWithApiServer('a watch across an API server restart', (env) => {
  // Restarting the shared apiserver would break suites running beside this one, so this test
  // starts a private control plane (no controller manager) that only it uses.
  let plane: ControlPlane | undefined;
  beforeAll(async () => {
    const lookup = findBinaries();
    if (env.existingCluster || !lookup.found) return;
    plane = await startControlPlane({ binaries: lookup.binaries, controllerManager: false });
  });
  afterAll(async () => {
    await plane?.stop();
  });

  it('misses nothing: the runtime informer relists or resumes, the raw watch resumes or says Gone', async ({
    skip,
  }) => {
    if (plane === undefined)
      return skip('restarting needs a control plane this run started (not KRECONCILE_USE_EXISTING_CLUSTER)');
    const cluster = createKubernetesCluster(
      { kubeconfigPath: plane.kubeconfigPath },
      { watch: { backoff: { initialMs: 100, maxMs: 1_000 } } },
    );
    const { namespace } = await freshNamespace(cluster);
    const ref = (name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
    const cm = (name: string, v: string): Resource => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace },
      data: { v },
    });
    for (const i of [0, 1, 2, 3, 4]) await must(cluster.create(cm(`cm-${i}`, 'initial')));

    const errors: string[] = [];
    const informer = new Informer(
      cluster,
      { apiVersion: 'v1', kind: 'ConfigMap', namespace },
      {
        clock: realClock,
        onEvent: () => undefined,
        onError: (e, phase) => errors.push(`${phase}:${e._tag}`),
        minRetryMs: 100,
        maxRetryMs: 1_000,
      },
    );
    void informer.start();
    const start = await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace }));
    const raw = recordingSink();
    const rawHandle = cluster.watch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace, resourceVersion: start.resourceVersion, allowBookmarks: true },
      raw,
    );
    try {
      await eventually(() => expect(informer.list()).toHaveLength(start.items.length));
      // Changes right before the restart: their events may or may not get out before the kill.
      await must(cluster.patch(ref('cm-0'), { type: 'merge', body: { data: { v: 'before-restart' } } }));
      await must(cluster.delete(ref('cm-1')));
      await plane.restartApiServer();
      // Changes after: only a resumed or relisted stream can see them.
      await must(cluster.create(cm('cm-5', 'after-restart')));
      await must(cluster.patch(ref('cm-2'), { type: 'merge', body: { data: { v: 'after-restart' } } }));
      await must(cluster.delete(ref('cm-3')));

      const truth = await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace }));
      const summary = (items: ReadonlyArray<Resource>) =>
        items
          .map((i) => `${i.metadata.name}=${String(getIn(i, ['data', 'v']))}@${i.metadata.resourceVersion ?? ''}`)
          .sort();
      await eventually(() => expect(summary(informer.list())).toEqual(summary(truth.items)), 60_000);
      // The private plane has no controller manager, so no kube-root-ca.crt joins the namespace.
      expect(summary(truth.items).map((s) => s.split('@')[0])).toEqual([
        'cm-0=before-restart',
        'cm-2=after-restart',
        'cm-4=initial',
        'cm-5=after-restart',
      ]);

      // The raw stream either resumed (and saw every change after the restart) or closed with Gone.
      await eventually(() => {
        const resumed = ['ADDED cm-5', 'MODIFIED cm-2', 'DELETED cm-3'].every((e) => raw.seen().includes(e));
        expect(resumed || raw.closes.some((e) => e?._tag === 'Gone')).toBe(true);
      }, 60_000);
      expect(raw.closes.filter((e) => e?._tag !== 'Gone')).toEqual([]);

      // A restarted apiserver's watch cache starts at the current revision: older versions are
      // Gone (410) even though etcd still has them (a fresh server replays them from etcd instead).
      const stale = recordingSink();
      const staleHandle = cluster.watch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace, resourceVersion: start.resourceVersion },
        stale,
      );
      await eventually(() => expect(stale.closes.map((e) => e?._tag)).toEqual(['Gone']));
      staleHandle.stop();
      expect(stale.seen()).toEqual([]);
      console.log(
        `[restart] raw watch ${raw.closes.length > 0 ? 'closed with Gone' : 'resumed'}; informer errors: ${errors.join(', ') || 'none'}`,
      );
    } finally {
      rawHandle.stop();
      informer.stop();
    }
  });

  it('stays stopped when stopped while reconnecting to a restarting apiserver', async ({ skip }) => {
    if (plane === undefined)
      return skip('restarting needs a control plane this run started (not KRECONCILE_USE_EXISTING_CLUSTER)');
    const cluster = createKubernetesCluster(
      { kubeconfigPath: plane.kubeconfigPath },
      { watch: { backoff: { initialMs: 50, maxMs: 200 } } },
    );
    const { namespace } = await freshNamespace(cluster);
    const start = await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace }));
    const sink = recordingSink();
    const handle = cluster.watch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace, resourceVersion: start.resourceVersion },
      sink,
    );
    const restarted = plane.restartApiServer();
    // Let it notice the drop and start retrying against the refused port, then stop it there.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    handle.stop();
    await restarted;
    await must(cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-stop', namespace } }));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect([sink.seen(), sink.closes]).toEqual([[], []]);
  });
});
