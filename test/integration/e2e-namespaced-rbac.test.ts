/**
 * The operator with its own child rights bound per tenant namespace (`kreconcile rbac
 * --tenant-namespace team-a`, which makes `deploy` add `--no-watch-children`), under a
 * ServiceAccount token on a real API server: children in team-a converge without cluster-wide
 * watches; a child elsewhere is refused by the API server and reported, nothing written there.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { runFlagsFor } from '../../app/manifests/rbac.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import type { Resource } from '../../core/internal.js';
import { adminIdentity, installOperator } from '../support/api-identities.js';
import {
  applicationObject,
  applicationRef,
  conditionOf,
  expectOwnedBy,
  readExisting,
  readObject,
  waitForCondition,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespaces, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;

const configMap = (name: string, namespace?: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  data: { a: '1' },
});

describeWithApiServer('end to end: operator rights bound per tenant namespace', (env) => {
  let admin: KubernetesCluster;
  let operator: Operator;
  let teamA: string;
  let other: string;
  let cleanup: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    admin = connect(env);
    const adminId = adminIdentity(env.kubeconfigPath);
    const fresh = await freshNamespaces(admin, ['kr-nsr-ops', 'kr-nsr-team-a', 'kr-nsr-other']);
    cleanup = fresh.cleanup;
    const [ops, teamANs, otherNs] = fresh.namespaces as [string, string, string];
    teamA = teamANs;
    other = otherNs;
    const rbac = { namespace: ops, name: 'kreconcile-nsr', tenantNamespaces: [teamA] };
    expect(runFlagsFor(rbac)).toEqual(['--no-watch-children']);
    const { cluster } = await installOperator(admin, adminId, rbac);
    // Without child watches, drift is found at each resync: a short one here.
    // The admin policy lets team-a write to `other`; the operator's RBAC (bound in team-a only) does not.
    operator = await startOperator({
      cluster,
      clock: realClock,
      random: Math.random,
      namespace: teamA,
      readiness: 'existence',
      watchChildren: false,
      resyncMs: 2_000,
      tenancy: { destinations: [{ from: teamA, to: [other] }] },
    });
  });
  afterAll(async () => {
    await operator?.stop(10_000);
    await cleanup?.();
  });

  it('converges children in the tenant namespace without watching children cluster-wide', async () => {
    await must(admin.create(applicationObject(teamA, 'web', [configMap('web-config')])));
    const app = await waitForCondition(admin, applicationRef(teamA, 'web'), 'Ready', { status: 'True' }, CONVERGE_MS);
    expectOwnedBy(
      await readExisting(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'web-config' }),
      app,
    );
    expect(operator.controller.watchedKinds).toEqual([]);
  });

  it('corrects drift of an observed field at the next resync (no watch tells it sooner)', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'web-config' };
    await must(admin.patch(ref, { type: 'merge', body: { data: { a: 'drifted' } } }));
    await eventually(async () => expect((await readExisting(admin, ref)).data).toEqual({ a: '1' }), CONVERGE_MS);
  });

  it('a child outside the bound namespaces, though the admin policy allows it, is refused by the API server and reported; nothing is written there', async () => {
    await must(admin.create(applicationObject(teamA, 'elsewhere', [configMap('planted', other)])));
    const app = await waitForCondition(
      admin,
      applicationRef(teamA, 'elsewhere'),
      'Stalled',
      { status: 'True', reason: 'Forbidden' },
      CONVERGE_MS,
    );
    // The list or the get of the child may be refused first (reads run concurrently): either names the kind.
    expect(conditionOf(app, 'Stalled')?.message).toMatch(
      /^Forbidden: the operator may not read what this Application manages: configmaps( "[^"]+")? is forbidden/,
    );
    expect(
      await readObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: other, name: 'planted' }),
    ).toBeUndefined();
  });
});
