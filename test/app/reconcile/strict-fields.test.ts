/**
 * The operator writes children with strict field validation: on the in-memory API server, as on
 * kube-apiserver (test/integration/strict-fields.test.ts), a manifest field the kind does not
 * have stalls the Application `InvalidSpec` naming it, instead of being dropped and patched again
 * on every reconcile.
 */
import * as E from 'fp-ts/lib/Either.js';
import { expect, it } from 'vitest';
import { createMemoryCluster } from '../../../adapters/memory/index.js';
import { reconcileApplication, type ReconcileDeps } from '../../../app/reconcile/reconcile-application.js';
import { builtinScopes, type Resource } from '../../../core/internal.js';
import { applicationObject, applicationRef, conditionOf, readApplication } from '../../support/e2e-application.js';

it('a misspelt Deployment field stalls InvalidSpec naming it, and nothing of that kind is stored', async () => {
  const cluster = createMemoryCluster();
  expect(E.isRight(await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })())).toBe(
    true,
  );
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replica: 3,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    },
  } as Resource;
  expect(E.isRight(await cluster.create(applicationObject('shop', 'web', [deployment]))())).toBe(true);
  const deps: ReconcileDeps = {
    cluster,
    scopes: builtinScopes,
    now: () => '2026-03-02T12:00:00Z',
    random: () => 0.5,
    planOptions: { readiness: 'existence' },
  };
  const ref = applicationRef('shop', 'web');
  const result = await reconcileApplication(ref, deps);
  expect(result._tag === 'Failed' && result.terminal).toBe(true);
  const stalled = conditionOf(await readApplication(cluster, ref), 'Stalled');
  expect(stalled).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
  expect(stalled?.message).toContain('does not know the field spec.replica of this kind (strict field validation)');
  const stored = await cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' })();
  expect(E.isRight(stored) && stored.right._tag === 'None').toBe(true);
});
