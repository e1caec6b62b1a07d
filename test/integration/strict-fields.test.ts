/**
 * On a real API server (issue 20, item 2): the committed schemas of the built-in kinds are what
 * this kube-apiserver serves (tools/openapi regenerates them), and a manifest field the kind does
 * not have stalls the Application `InvalidSpec` naming the field, on create and on a guarded
 * patch alike (writes are strict: without it the server drops the field and the plan patches it
 * again on every reconcile).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { builtinSchemas } from '../../adapters/schemas/builtin-schemas.js';
import { reconcileApplication, type ReconcileDeps } from '../../app/reconcile/reconcile-application.js';
import { builtinScopes, type Resource } from '../../core/internal.js';
import { readServedSchemas } from '../../tools/openapi/served.js';
import {
  applicationObject,
  applicationRef,
  conditionOf,
  expectReady,
  readApplication,
  readExisting,
  reconcileUntilQuiet,
} from '../support/e2e-application.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';

const deployment = (spec: Record<string, unknown>): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
    ...spec,
  },
});

describeWithApiServer('strict fields and the committed schemas on a real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let deps: ReconcileDeps;

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-strict'));
    deps = {
      cluster,
      scopes: builtinScopes,
      now: () => new Date().toISOString(),
      random: Math.random,
      planOptions: { readiness: 'existence' },
    };
  });
  afterAll(async () => {
    await cleanup?.();
  });

  it('schemas/kubernetes-1.36.json is what this kube-apiserver serves (else: npm run schemas:update)', async () => {
    const served = await readServedSchemas(env.kubeconfigPath);
    const committed = builtinSchemas();
    expect(served.kubernetesVersion).toBe(committed.kubernetesVersion);
    expect(served.kinds).toEqual(committed.kinds);
    expect(served.schemas).toEqual(committed.schemas);
  }, 60_000);

  it('an unknown field stalls InvalidSpec naming it, on create and on a guarded patch, without looping', async () => {
    const created = applicationRef(namespace, 'typo-create');
    await must(cluster.create(applicationObject(namespace, 'typo-create', [deployment({ replica: 3 })])));
    const refused = await reconcileApplication(created, deps);
    expect(refused._tag === 'Failed' && refused.terminal).toBe(true);
    const stalled = await readApplication(cluster, created);
    expect(conditionOf(stalled, 'Stalled')).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
    expect(conditionOf(stalled, 'Stalled')?.message).toContain('does not know the field spec.replica');

    const patched = applicationRef(namespace, 'typo-patch');
    await must(
      cluster.create(
        applicationObject(namespace, 'typo-patch', [{ ...deployment({ replicas: 1 }), metadata: { name: 'api' } }]),
      ),
    );
    await reconcileUntilQuiet(patched, deps);
    expectReady(await readApplication(cluster, patched));
    await must(
      cluster.patch(patched, {
        type: 'merge',
        body: {
          spec: {
            manifest: [
              { ...deployment({ replicas: 1, paused: false, minReadySecondz: 5 }), metadata: { name: 'api' } },
            ],
          },
        },
      }),
    );
    const refusedPatch = await reconcileApplication(patched, deps);
    expect(refusedPatch._tag === 'Failed' && refusedPatch.terminal).toBe(true);
    const stalledPatch = await readApplication(cluster, patched);
    expect(conditionOf(stalledPatch, 'Stalled')).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
    expect(conditionOf(stalledPatch, 'Stalled')?.message).toContain('spec.minReadySecondz');
    const api = await readExisting(cluster, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'api' });
    expect(api.spec).not.toHaveProperty('minReadySecondz');
  }, 60_000);
});
