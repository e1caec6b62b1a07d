/**
 * Guards hold against the garbage collector, on a real API server with kube-controller-manager's
 * garbage collector (issue 37, docs/decisions/0029). `kubectl delete --cascade=foreground` makes
 * the garbage collector delete an Application's dependents at once, before its operator plans
 * anything; with the ValidatingAdmissionPolicy `kreconcile rbac` prints, it may not: the operator
 * deletes the unguarded children, orphans those under `kreconcile.io/prune: disabled`, keeps a
 * PersistentVolumeClaim its guard policy protects (the Application waits, GuardDenied) until an
 * approver approves, and the foreground deletion then completes. Background cascades hold the same
 * way. A namespace without the policy shows what it prevents: the garbage collector deletes the
 * guarded claim there. The policies are bound to this test's namespace only.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { approvalsPolicy } from '../../app/manifests/approvals.js';
import { GARBAGE_COLLECTOR_USERS, garbageCollectionPolicy } from '../../app/manifests/garbage-collection.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { showClusterError, type GuardPolicy, type ObjectRef, type Resource } from '../../core/internal.js';
import { findKubectl } from '../../tools/envtest/binaries.js';
import { installScopedPolicy } from '../support/admission-policies.js';
import {
  WIDGET_API,
  applicationObject,
  applicationRef,
  conditionOf,
  readApplication,
  readObject,
} from '../support/e2e-application.js';
import { widgetGroup } from '../support/test-crds.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;
/** How long a protected child is watched after the cascade: the garbage collector retries refused deletes within it. */
const HOLD_MS = 5_000;

const GUARD: GuardPolicy = {
  rules: [{ name: 'keep-volumes', deny: { actions: ['delete', 'recreate'], kinds: ['PersistentVolumeClaim'] } }],
};

const configMap = (name: string, annotations: Record<string, string> = {}): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, annotations },
  data: { mode: 'a' },
});

const volume = (name: string) =>
  ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  }) as unknown as Resource; // a literal manifest: spec is not in Resource's type

const alice = (namespace: string): ReadonlyArray<Resource> => [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'application-author', namespace },
    rules: [{ apiGroups: ['kreconcile.io'], resources: ['applications'], verbs: ['get', 'list', 'delete'] }],
  }, // RBAC literal: rules are not in Resource's type
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'application-author', namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'application-author' },
    subjects: [{ kind: 'ServiceAccount', name: 'alice', namespace }],
  }, // RBAC literal: roleRef and subjects are not in Resource's type
];

describeWithApiServer('end to end: guards hold against the garbage collector (issue 37)', (env) => {
  const kubectl = findKubectl();
  let admin: KubernetesCluster;
  let guarded: string;
  let unguarded: string;
  const operators: Operator[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const names = {
    approvals: `kreconcile-approvals-${process.pid}-${Date.now()}`,
    garbageCollection: `kreconcile-garbage-collection-${process.pid}-${Date.now()}`,
  };

  const run = async (args: ReadonlyArray<string>): Promise<string> => {
    if (kubectl === undefined) throw new Error('no kubectl: set KUBECTL or build it with npm run k8s:build');
    const { stdout } = await promisify(execFile)(kubectl, [...args], {
      env: { ...process.env, KUBECONFIG: env.kubeconfigPath },
    });
    return stdout;
  };

  /** `kubectl delete --cascade=<cascade>` of an Application, as its author alice. */
  const cascade = (namespace: string, name: string, how: 'foreground' | 'background') =>
    run([
      'delete',
      'applications.kreconcile.io',
      name,
      '-n',
      namespace,
      `--cascade=${how}`,
      '--wait=false',
      `--as=system:serviceaccount:${namespace}:alice`,
    ]);

  const operatorFor = (namespace: string) =>
    startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace,
      readiness: 'existence',
      guard: GUARD,
      admissionPolicies: names,
    });

  beforeAll(async () => {
    admin = connect(env);
    const bound = await freshNamespace(admin, 'kr-gc');
    const open = await freshNamespace(admin, 'kr-gc-open');
    guarded = bound.namespace;
    unguarded = open.namespace;
    cleanups.push(
      () => bound.cleanup(),
      () => open.cleanup(),
    );
    for (const namespace of [guarded, unguarded])
      for (const object of alice(namespace)) await must(admin.create(object));
    // Here kube-controller-manager shares the admin's identity (no --use-service-account-credentials):
    // the garbage collector deletes as that user, so the policy names it beside the usual ones.
    const user = (await run(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).trim();
    const policy = garbageCollectionPolicy(names.garbageCollection, [user, ...GARBAGE_COLLECTOR_USERS]);
    cleanups.unshift(await installScopedPolicy(admin, policy, guarded));
    cleanups.unshift(await installScopedPolicy(admin, approvalsPolicy(names.approvals), guarded));
    for (const namespace of [guarded, unguarded]) operators.push(await operatorFor(namespace));
  });

  afterAll(async () => {
    for (const operator of operators) await operator.stop(10_000);
    for (const undo of cleanups) await undo();
  });

  const ref = (namespace: string, kind: string, name: string): ObjectRef => ({
    apiVersion: 'v1',
    kind,
    namespace,
    name,
  });

  /** Creates the Application and waits until each child exists with the Application as its owner. */
  const createWithChildren = async (namespace: string, name: string, manifest: ReadonlyArray<Resource>) => {
    await must(admin.create(applicationObject(namespace, name, manifest)));
    await eventually(async () => {
      for (const child of manifest) {
        const live = await readObject(admin, ref(namespace, child.kind, child.metadata.name));
        expect(live?.metadata.ownerReferences?.map((owner) => owner.name)).toEqual([name]);
      }
    }, CONVERGE_MS);
  };

  const isTerminatingOrGone = (object: Resource | undefined): boolean =>
    object === undefined || object.metadata.deletionTimestamp !== undefined;

  it('is loaded: a delete as the garbage collector sends it (its user, a uid precondition) is refused, naming why', async () => {
    await createWithChildren(guarded, 'probe', [configMap('probe')]);
    const probe = ref(guarded, 'ConfigMap', 'probe');
    // The policy takes a moment to load: until then a probe delete goes through and the operator recreates the child.
    await eventually(async () => {
      const live = await readObject(admin, probe);
      expect(live?.metadata.uid).toBeDefined();
      const refused = await admin.delete(probe, { preconditions: { uid: live!.metadata.uid! } })();
      expect(E.isLeft(refused) ? showClusterError(refused.left) : 'deleted').toContain(
        `the garbage collector may not delete configmaps ${guarded}/probe: kreconcile manages it (kreconcile.io/owner=${guarded}/probe)`,
      );
    }, CONVERGE_MS);
    expect(operators[0]?.admission).toEqual({ approvals: undefined, garbageCollection: undefined });
  });

  it("covers exactly the children of the owner their mark names: an embedder's primary's, not a ReplicaSet's, nor an unowned object", async () => {
    const owner = await must(
      admin.create({ apiVersion: WIDGET_API, kind: 'Widget', metadata: { name: 'w', namespace: guarded }, spec: {} }),
    );
    const deployment = await must(
      admin.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: guarded } }),
    );
    const child = async (name: string, mark: string, owners: ReadonlyArray<Resource>) =>
      must(
        admin.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name,
            namespace: guarded,
            annotations: { 'kreconcile.io/owner': mark },
            ownerReferences: owners.map((o) => ({
              apiVersion: o.apiVersion,
              kind: o.kind,
              name: o.metadata.name,
              uid: o.metadata.uid ?? '',
            })),
          },
        }),
      );
    /** A delete as the garbage collector sends it: its user (here the admin's), a uid precondition. */
    const asCollector = async (object: Resource) => {
      const target = ref(guarded, 'ConfigMap', object.metadata.name);
      const result = await admin.delete(target, { preconditions: { uid: object.metadata.uid ?? '' } })();
      return E.isLeft(result) ? showClusterError(result.left) : 'deleted';
    };
    // An embedder's primary (a Widget) marks its children `Kind.group:namespace/name`: refused.
    const primaryChild = await child('of-widget', `Widget.${widgetGroup}:${guarded}/w`, [owner]);
    expect(await asCollector(primaryChild)).toContain('the garbage collector may not delete configmaps');
    // A Deployment's ReplicaSet copies the Deployment's annotations (our mark naming the Application
    // "web") but is owned by the Deployment "web": the collector may delete it.
    const replicaSetLike = await child('of-web', `${guarded}/web`, [deployment]);
    expect(await asCollector(replicaSetLike)).toBe('deleted');
    // A marked object without owner references is never the collector's to delete: nothing refused.
    const unowned = await child('unowned', `${guarded}/web`, []);
    expect(await asCollector(unowned)).toBe('deleted');
  });

  for (const how of ['foreground', 'background'] as const) {
    it(`${how} cascade: the prune: disabled child survives, orphaned; the unguarded one goes; so does the Application`, async () => {
      const name = `kept-${how}`;
      await createWithChildren(guarded, name, [
        configMap(`plain-${how}`),
        configMap(`keeper-${how}`, { 'kreconcile.io/prune': 'disabled' }),
      ]);
      await cascade(guarded, name, how);
      await eventually(async () => {
        expect(await readObject(admin, applicationRef(guarded, name))).toBeUndefined();
        expect(await readObject(admin, ref(guarded, 'ConfigMap', `plain-${how}`))).toBeUndefined();
      }, CONVERGE_MS);
      const keeper = await readObject(admin, ref(guarded, 'ConfigMap', `keeper-${how}`));
      expect(keeper?.metadata.deletionTimestamp).toBeUndefined();
      expect(keeper?.metadata.ownerReferences).toBeUndefined();
      expect(keeper?.metadata.annotations?.['kreconcile.io/owner']).toBeUndefined();
    });

    it(`${how} cascade: the guarded claim survives, the Application waits GuardDenied; an approval lets the operator delete it`, async () => {
      const name = `volume-${how}`;
      const claim = ref(guarded, 'PersistentVolumeClaim', `data-${how}`);
      await createWithChildren(guarded, name, [configMap(`settings-${how}`), volume(`data-${how}`)]);
      await cascade(guarded, name, how);
      const denied = await eventually(async () => {
        const stalled = conditionOf(await readApplication(admin, applicationRef(guarded, name)), 'Stalled');
        expect(stalled).toMatchObject({ status: 'True', reason: 'GuardDenied' });
        return stalled!;
      }, CONVERGE_MS);
      expect(denied.message).toContain(
        `rule "keep-volumes" denies delete of v1 PersistentVolumeClaim ${claim.namespace}/${claim.name}`,
      );
      // Held: the garbage collector retries its refused deletes; the claim and the Application stay.
      await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
      expect((await readObject(admin, claim))?.metadata.deletionTimestamp).toBeUndefined();
      const waiting = await readApplication(admin, applicationRef(guarded, name));
      expect(waiting.metadata.deletionTimestamp).toBeDefined();
      if (how === 'foreground') expect(waiting.metadata.finalizers).toContain('foregroundDeletion');

      const digest = /approve=(sha256:[0-9a-f]{64})/.exec(denied.message)?.[1];
      await must(
        admin.patch(applicationRef(guarded, name), {
          type: 'merge',
          body: { metadata: { annotations: { 'kreconcile.io/approve': digest! } } },
        }),
      );
      await eventually(async () => {
        expect(await readObject(admin, claim)).toBeUndefined();
        expect(await readObject(admin, applicationRef(guarded, name))).toBeUndefined();
      }, CONVERGE_MS);
    });
  }

  it('without the policy (another namespace), a foreground cascade lets the garbage collector delete the guarded claim', async () => {
    const claim = ref(unguarded, 'PersistentVolumeClaim', 'data');
    await createWithChildren(unguarded, 'volume', [volume('data')]);
    expect(operators[1]?.admission).toEqual({ approvals: undefined, garbageCollection: undefined });
    await cascade(unguarded, 'volume', 'foreground');
    // The operator's plan is denied (it deletes nothing): only the garbage collector can have deleted it.
    await eventually(async () => expect(isTerminatingOrGone(await readObject(admin, claim))).toBe(true), CONVERGE_MS);
  });
});
