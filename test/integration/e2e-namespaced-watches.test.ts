/**
 * A namespaced operator (`kreconcile run --watch-namespace team-a`) watching its children with child
 * rights bound in team-a only (`kreconcile rbac --tenant-namespace team-a`, a RoleBinding there),
 * under a ServiceAccount token on a real API server: its child watches list and watch in team-a,
 * not cluster-wide, so they sync under Role-only rights; the Application converges and drift is
 * corrected from the watch, long before any resync. With a policy destination it has no rights in,
 * that namespace's watch is refused: the kind is read directly, per namespace, and still converges.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import type { Resource } from '../../core/internal.js';
import { adminIdentity, installOperator } from '../support/api-identities.js';
import {
  applicationObject,
  applicationRef,
  expectOwnedBy,
  readExisting,
  waitForCondition,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespaces, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;

const configMap = (name: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { a: '1' },
});

describeWithApiServer('end to end: a namespaced operator watches its children with Role-only rights', (env) => {
  let admin: KubernetesCluster;
  let operator: Operator;
  let teamA: string;
  let cleanup: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    admin = connect(env);
    const fresh = await freshNamespaces(admin, ['kr-nsw-ops', 'kr-nsw-team-a']);
    cleanup = fresh.cleanup;
    const [ops, teamANs] = fresh.namespaces as [string, string];
    teamA = teamANs;
    const { cluster } = await installOperator(admin, adminIdentity(env.kubeconfigPath), {
      namespace: ops,
      name: 'kreconcile-nsw',
      tenantNamespaces: [teamA],
    });
    operator = await startOperator({
      cluster,
      clock: realClock,
      random: Math.random,
      namespace: teamA,
      readiness: 'existence',
      // No resync within the test: only the child watch can tell the operator about drift.
      resyncMs: 10 * 60_000,
    });
  });
  afterAll(async () => {
    await operator?.stop(10_000);
    await cleanup?.();
  });

  it('converges, its child watch synced in its namespace', async () => {
    await must(admin.create(applicationObject(teamA, 'web', [configMap('web-config')])));
    const app = await waitForCondition(admin, applicationRef(teamA, 'web'), 'Ready', { status: 'True' }, CONVERGE_MS);
    expectOwnedBy(
      await readExisting(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'web-config' }),
      app,
    );
    expect(operator.controller.watchedKinds).toEqual(['v1/ConfigMap']);
  });

  it('corrects drift from the watch, long before the resync', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'web-config' };
    await must(admin.patch(ref, { type: 'merge', body: { data: { a: 'drifted' } } }));
    await eventually(async () => expect((await readExisting(admin, ref)).data).toEqual({ a: '1' }), 10_000);
  });
});

describeWithApiServer('end to end: a namespaced operator refused the watch of a policy destination', (env) => {
  let admin: KubernetesCluster;
  let operator: Operator;
  let teamA: string;
  let cleanup: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    admin = connect(env);
    const fresh = await freshNamespaces(admin, ['kr-nsd-ops', 'kr-nsd-team-a', 'kr-nsd-other']);
    cleanup = fresh.cleanup;
    const [ops, teamANs, other] = fresh.namespaces as [string, string, string];
    teamA = teamANs;
    const { cluster } = await installOperator(admin, adminIdentity(env.kubeconfigPath), {
      namespace: ops,
      name: 'kreconcile-nsd',
      tenantNamespaces: [teamA],
    });
    operator = await startOperator({
      cluster,
      clock: realClock,
      random: Math.random,
      namespace: teamA,
      readiness: 'existence',
      // The admin policy lets team-a write to `other`; the operator's RBAC (bound in team-a only) does not.
      tenancy: { destinations: [{ from: teamA, to: [other] }] },
      // Waiting would not help here: the refused first list releases the reconcile at once.
      childCacheWaitMs: 60_000,
    });
  });
  afterAll(async () => {
    await operator?.stop(10_000);
    await cleanup?.();
  });

  it('converges within seconds, its children read directly in team-a', async () => {
    await must(admin.create(applicationObject(teamA, 'web', [configMap('web-config')])));
    const app = await waitForCondition(admin, applicationRef(teamA, 'web'), 'Ready', { status: 'True' }, 10_000);
    expectOwnedBy(
      await readExisting(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'web-config' }),
      app,
    );
  });
});
