/**
 * End to end on a real API server, core + executor only (issue 4): `reconcileApplication` is
 * called directly, until a reconcile plans nothing, and the world is read back after each stage.
 * One Application with built-in kinds and a custom resource goes through its life: created,
 * drifted (observed and unobserved fields), a resource removed from its spec, deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import type { ReconcileDeps } from '../../app/reconcile/reconcile-application.js';
import { reconcileApplication } from '../../app/reconcile/reconcile-application.js';
import { builtinScopes, FINALIZER, getIn, type Application, type ObjectRef } from '../../core/internal.js';
import {
  actionLine,
  allActions,
  applicationObject,
  applicationRef,
  children,
  conditionOf,
  executedActions,
  expectOwnedBy,
  expectReady,
  expectReconciling,
  hasFinalizer,
  readApplication,
  readExisting,
  readObject,
  reconcileUntilQuiet,
  shopManifest,
  summarizeAction,
  writesOf,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';

describeWithApiServer('end to end: core + executor on a real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let deps: ReconcileDeps;
  let appRef: ObjectRef;
  let child: ReturnType<typeof children>;
  const name = 'shop';

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-e2e-reconcile'));
    deps = {
      cluster,
      scopes: builtinScopes,
      now: () => new Date().toISOString(),
      random: Math.random,
      // the test control plane runs no deployment controller: children count as ready once they exist
      planOptions: { readiness: 'existence' },
    };
    appRef = applicationRef(namespace, name);
    child = children(namespace);
  });
  afterAll(async () => {
    await cleanup?.();
  });

  const line = (type: string, ref: ObjectRef): string =>
    `${type} ${ref.apiVersion} ${ref.kind} ${ref.namespace}/${ref.name}`;

  describe('one Application through its life (each step builds on the previous one)', () => {
    it('creates every child, built-in and custom, with ownership marks and ownerReferences; then Ready', async () => {
      await must(cluster.create(applicationObject(namespace, name, shopManifest())));
      const rounds = await reconcileUntilQuiet(appRef, deps);

      // One acting reconcile (finalizer first, creations in install order, custom kinds last), then a no-op.
      expect(rounds).toHaveLength(2);
      expect(executedActions(rounds[0]!).map(actionLine)).toEqual([
        `addFinalizer kreconcile.io/v1alpha1 Application ${namespace}/${name}`,
        line('create', child.config),
        line('create', child.extra),
        line('create', child.service),
        line('create', child.deployment),
        line('create', child.widget),
      ]);
      expect(rounds[1]!.plan.actions).toEqual([]);

      // The acting reconcile planned again against its writes' answers: nothing more was needed, so
      // the one status it wrote already said Ready; the no-op after it wrote nothing.
      expect(rounds[0]!.verified).toBe(true);
      expectReady(rounds[0]!.after!);
      expect(rounds[1]!.statusWritten).toBe(false);
      const application = await readApplication(cluster, appRef);
      expect(application.metadata.finalizers).toEqual([FINALIZER]);
      expect(application.metadata.generation).toBe(1);
      expectReady(application);
      expect(conditionOf(application, 'Ready')?.message).toBe('5 resources match the desired state');

      for (const ref of Object.values(child)) expectOwnedBy(await readExisting(cluster, ref), application);
      const deployment = await readExisting(cluster, child.deployment);
      expect(getIn(deployment, ['spec', 'replicas'])).toBe(2);
      const widget = await readExisting(cluster, child.widget);
      expect(getIn(widget, ['spec'])).toEqual({ color: 'red', tags: ['a', 'b'], size: 1 });
      expect(getIn(await readExisting(cluster, child.config), ['data'])).toEqual({ LOG_LEVEL: 'info' });
      expect(getIn(await readExisting(cluster, child.service), ['spec', 'ports', 0, 'port'])).toBe(80);
    });

    it('patches drifted observed fields back with JSON Patches (custom resource included); unobserved changes stand', async () => {
      // Another actor: observed fields (replicas, the Widget's color) and unobserved ones (a new
      // annotation, server-defaulted fields: revisionHistoryLimit, the Widget's size).
      await must(
        cluster.patch(child.deployment, {
          type: 'merge',
          body: { metadata: { annotations: { team: 'payments' } }, spec: { replicas: 5, revisionHistoryLimit: 4 } },
        }),
      );
      await must(cluster.patch(child.widget, { type: 'merge', body: { spec: { color: 'blue', size: 7 } } }));

      const rounds = await reconcileUntilQuiet(appRef, deps);
      const acted = allActions(rounds).map(summarizeAction);
      expect(acted.map((action) => `${action.type} ${action.resource}`)).toEqual([
        line('patch', child.deployment),
        line('patch', child.widget),
      ]);
      // Observed fields only: nothing about the annotation, revisionHistoryLimit or size.
      expect(writesOf(acted[0]!.patch)).toEqual([{ op: 'replace', path: '/spec/replicas', value: 2 }]);
      expect(writesOf(acted[1]!.patch)).toEqual([{ op: 'replace', path: '/spec/color', value: 'red' }]);
      expect(rounds[0]!.verified).toBe(true);
      expectReady(await readApplication(cluster, appRef));

      const deployment = await readExisting(cluster, child.deployment);
      expect(getIn(deployment, ['spec', 'replicas'])).toBe(2);
      expect(deployment.metadata.annotations?.team).toBe('payments');
      expect(getIn(deployment, ['spec', 'revisionHistoryLimit'])).toBe(4);
      const widget = await readExisting(cluster, child.widget);
      expect(getIn(widget, ['spec'])).toEqual({ color: 'red', tags: ['a', 'b'], size: 7 });
    });

    it('deletes a resource removed from the spec, and only that one', async () => {
      const before = await readApplication(cluster, appRef);
      await must(
        cluster.patch(appRef, {
          type: 'json',
          operations: [{ op: 'replace', path: '/spec/manifest', value: shopManifest({ extra: false }) as never }],
        }),
      );
      const rounds = await reconcileUntilQuiet(appRef, deps);
      expect(allActions(rounds).map(summarizeAction)).toEqual([
        { type: 'delete', resource: `v1 ConfigMap ${namespace}/web-extra`, reason: 'RemovedFromSpec' },
      ]);
      expect(await readObject(cluster, child.extra)).toBeUndefined();
      for (const ref of [child.config, child.deployment, child.service, child.widget])
        expect(await readObject(cluster, ref)).toBeDefined();

      const application = await readApplication(cluster, appRef);
      expect(application.metadata.generation).toBe((before.metadata.generation ?? 0) + 1);
      expectReady(application);
      expect(conditionOf(application, 'Ready')?.message).toBe('4 resources match the desired state');
      expect(
        application.status?.lastObservedManifest
          ?.map((entry) => `${String(entry.kind)}/${String(getIn(entry, ['metadata', 'name']))}`)
          .sort(),
      ).toEqual(['ConfigMap/web-config', 'Deployment/web', 'Service/web', 'Widget/web-widget']);
    });

    it('a guarded patch raced by another actor is rejected whole (422), retried rather than stalled, and then converges', async () => {
      const image = ['spec', 'template', 'spec', 'containers', 0, 'image'] as const;
      const container = ['spec', 'template', 'spec', 'containers', 0, 'name'] as const;
      await must(
        cluster.patch(child.deployment, {
          type: 'json',
          operations: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:drifted' }],
        }),
      );
      // Between our plan and its patch, another actor renames the container the patch's `test` relies on.
      let raced = false;
      const racing: KubernetesCluster = {
        ...cluster,
        patch: (ref, patch, options) => async () => {
          if (!raced && ref.kind === 'Deployment') {
            raced = true;
            await must(
              cluster.patch(child.deployment, {
                type: 'json',
                operations: [{ op: 'replace', path: '/spec/template/spec/containers/0/name', value: 'web-renamed' }],
              }),
            );
          }
          return cluster.patch(ref, patch, options)();
        },
      };

      const failed = await reconcileApplication(appRef, { ...deps, cluster: racing });
      expect(raced).toBe(true);
      if (failed._tag !== 'Failed') throw new Error(`expected the raced patch to fail, got ${failed._tag}`);
      const sent = failed.execution?.failure?.action;
      expect(sent?.type === 'patch' && sent.patch).toEqual([
        { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'web' },
        {
          op: 'replace',
          path: '/spec/template/spec/containers/0/image',
          value: 'nginxinc/nginx-unprivileged:1.27-alpine',
        },
      ]);
      expect([failed.error._tag, failed.error.code]).toEqual(['Invalid', 422]);
      expect(failed.terminal).toBe(false);
      expect(failed.retryAfterMs).toBeGreaterThan(0);
      // Nothing half-applied; the Application is not Stalled.
      const between = await readExisting(cluster, child.deployment);
      expect([getIn(between, container), getIn(between, image)]).toEqual(['web-renamed', 'nginx:drifted']);
      expect(conditionOf(await readApplication(cluster, appRef), 'Stalled')?.status).toBe('False');

      // The retry plans against the object as it is now, and converges.
      const rounds = await reconcileUntilQuiet(appRef, deps);
      expect(allActions(rounds).map(actionLine)).toEqual([line('patch', child.deployment)]);
      const after = await readExisting(cluster, child.deployment);
      expect([getIn(after, container), getIn(after, image)]).toEqual([
        'web',
        'nginxinc/nginx-unprivileged:1.27-alpine',
      ]);
      expectReady(await readApplication(cluster, appRef));
    });

    it('deleting the Application deletes every child first, then removes the finalizer, and it disappears', async () => {
      const pending = await must(cluster.delete(appRef));
      expect(pending._tag).toBe('Some'); // kept by our finalizer

      const first = await reconcileApplication(appRef, deps);
      if (first._tag !== 'Done') throw new Error(`expected a reconcile, got ${first._tag}`);
      // Reverse install order: custom kinds first, ConfigMaps last.
      expect(executedActions(first).map(summarizeAction)).toEqual([
        {
          type: 'delete',
          resource: `test.kreconcile.io/v1 Widget ${namespace}/web-widget`,
          reason: 'ApplicationDeleted',
        },
        { type: 'delete', resource: `apps/v1 Deployment ${namespace}/web`, reason: 'ApplicationDeleted' },
        { type: 'delete', resource: `v1 Service ${namespace}/web`, reason: 'ApplicationDeleted' },
        { type: 'delete', resource: `v1 ConfigMap ${namespace}/web-config`, reason: 'ApplicationDeleted' },
      ]);
      // The children are gone while the Application still exists, held by the finalizer.
      for (const ref of Object.values(child))
        expect(await readObject(cluster, ref), `${ref.kind} ${ref.name}`).toBeUndefined();
      const deleting: Application = await readApplication(cluster, appRef);
      expect(deleting.metadata.deletionTimestamp).toBeDefined();
      expect(hasFinalizer(deleting)).toBe(true);
      expectReconciling(deleting);
      expect(conditionOf(deleting, 'Reconciling')?.reason).toBe('Deleting');

      const rest = await reconcileUntilQuiet(appRef, deps);
      expect(allActions(rest).map(actionLine)).toEqual([
        `removeFinalizer kreconcile.io/v1alpha1 Application ${namespace}/${name}`,
      ]);
      await eventually(async () => expect(await readObject(cluster, appRef)).toBeUndefined(), 10_000);
      expect(await reconcileApplication(appRef, deps)).toEqual({ _tag: 'Gone' });
    });
  });
});
