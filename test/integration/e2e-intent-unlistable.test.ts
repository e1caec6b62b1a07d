/**
 * An `kreconcile.io/intent-kinds` annotation naming kinds the operator cannot list never blocks the
 * Application's deletion (issue 37), on a real API server: the operator runs as a ServiceAccount
 * that may not list Secrets; the Application's author adds Secrets and a kind no server serves to
 * the annotation, then deletes the Application. The operator deletes the children it can read,
 * removes its finalizer, and a Warning Event `IntentKindsSkipped` names the kinds left unread.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { getIn, type Resource } from '../../core/internal.js';
import {
  applicationObject,
  applicationRef,
  conditionOf,
  readApplication,
  readObject,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;

/** The operator's rights in the namespace: its own API, ConfigMaps and Events; no Secrets. */
const operatorRole = (namespace: string): ReadonlyArray<Resource> => [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'operator', namespace },
    rules: [
      {
        apiGroups: ['kreconcile.io'],
        resources: ['applications'],
        verbs: ['get', 'list', 'watch', 'patch', 'update'],
      },
      { apiGroups: ['kreconcile.io'], resources: ['applications/status'], verbs: ['get', 'patch', 'update'] },
      { apiGroups: ['kreconcile.io'], resources: ['applications/finalizers'], verbs: ['update'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ],
  }, // RBAC literal: rules are not in Resource's type
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'operator', namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'operator' },
    subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace }],
  }, // RBAC literal: roleRef and subjects are not in Resource's type
];

describeWithApiServer('end to end: an unlistable intent kind never blocks deletion (issue 37)', (env) => {
  let admin: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator | undefined;

  beforeAll(async () => {
    admin = connect(env);
    ({ namespace, cleanup } = await freshNamespace(admin, 'kr-intent'));
    for (const object of operatorRole(namespace)) await must(admin.create(object));
    operator = await startOperator({
      cluster: admin.impersonate({ namespace, name: 'operator' }),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace,
      readiness: 'existence',
    });
  });

  afterAll(async () => {
    await operator?.stop(10_000);
    await cleanup();
  });

  it('a forbidden kind and one not served, named only by the annotation: children deleted, finalizer removed, an Event names them', async () => {
    const ref = applicationRef(namespace, 'web');
    const settings: Resource = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
      data: { a: '1' },
    };
    await must(admin.create(applicationObject(namespace, 'web', [settings])));
    await eventually(async () => {
      expect(conditionOf(await readApplication(admin, ref), 'Ready')).toMatchObject({ status: 'True' });
    }, CONVERGE_MS);
    const intent = JSON.stringify([
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'Secret' },
      { apiVersion: 'nothing.example.com/v1', kind: 'Nothing' },
    ]);
    await must(
      admin.patch(ref, {
        type: 'merge',
        body: { metadata: { annotations: { 'kreconcile.io/intent-kinds': intent } } },
      }),
    );
    await must(admin.delete(ref));
    await eventually(async () => {
      expect(await readObject(admin, ref)).toBeUndefined();
      expect(
        await readObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' }),
      ).toBeUndefined();
    }, CONVERGE_MS);
    const events = await eventually(async () => {
      const found = (await must(admin.list({ apiVersion: 'v1', kind: 'Event', namespace }))).items.filter(
        (event) => getIn(event, ['reason']) === 'IntentKindsSkipped',
      );
      expect(found).toHaveLength(1);
      return found;
    }, CONVERGE_MS);
    expect(getIn(events[0], ['type'])).toBe('Warning');
    expect(getIn(events[0], ['involvedObject', 'name'])).toBe('web');
    const message = String(getIn(events[0], ['message']));
    expect(message).toContain('while deleting, kinds named only by kreconcile.io/intent-kinds were not read');
    expect(message).toContain('v1/Secret, nothing.example.com/v1/Nothing');
    expect(message).toContain(`system:serviceaccount:${namespace}:operator`);
    expect(message).toContain('children of those kinds, if any, are left in place');
  });
});
