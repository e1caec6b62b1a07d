/**
 * A CRD deleted and reinstalled under a running operator, on a real API server (issue 25, B and A):
 * while the CRD terminates, creates are refused with a 403 that says so (retried, never `Stalled
 * Forbidden`); once it is gone every Application naming the kind is `Stalled UnknownKind`; once it
 * is reinstalled they are Ready again within 5 s (discovery is asked again every second while an
 * Application waits for a kind, not at the Application's backoff). The same when the CRD is deleted
 * while the operator is paused (as by SIGSTOP: its timers, watch events and answers wait).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import type { ReconcileResult } from '../../app/reconcile/reconcile-application.js';
import { showClusterError, type Application, type Cluster, type Clock, type Resource } from '../../core/internal.js';
import { Replica } from '../app/runtime/replica.js';
import {
  applicationObject,
  applicationRef,
  conditionOf,
  expectReady,
  readApplication,
  readObject,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must, uniqueName } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const APPLICATIONS = 5;
/** Issue 25: every affected Application is Ready again within this of the reinstall. */
const READY_AFTER_REINSTALL_MS = 5_000;
/** "At once": the first watch of the kind that answers 404 makes its Applications plan again. */
const UNKNOWN_KIND_WITHIN_MS = 5_000;

const crdOf = (group: string): Resource => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
});

const crdRef = (group: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  name: `gadgets.${group}`,
});

describeWithApiServer('a CRD deleted and reinstalled under a running operator', (env) => {
  let admin: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  const operators: Operator[] = [];
  const groups: string[] = [];

  beforeAll(async () => {
    admin = connect(env);
    ({ namespace, cleanup } = await freshNamespace(admin, 'kr-crd-life'));
  });
  afterAll(async () => {
    for (const operator of operators) await operator.stop(5_000);
    for (const group of groups) await admin.delete(crdRef(group))();
    await cleanup?.();
  });

  /** The operator, recording every reconcile that ended terminal on a 403. */
  const started = async (cluster: Cluster, clock: Clock, forbidden: string[]): Promise<Operator> => {
    const operator = await startOperator({
      cluster,
      clock,
      random: Math.random,
      namespace,
      readiness: 'existence',
      onReconciled: (key: string, result: ReconcileResult) => {
        if (result._tag === 'Failed' && result.terminal && result.error._tag === 'Forbidden')
          forbidden.push(`${key}: ${showClusterError(result.error)}`);
      },
    });
    operators.push(operator);
    return operator;
  };

  /** Creates the CRD and waits until discovery serves it; resolves with the time the create was answered. */
  const installCrd = async (group: string): Promise<number> => {
    await must(admin.create(crdOf(group)));
    const installedAt = Date.now();
    // Served once discovery lists it (Established); a fresh client each time (a client caches discovery).
    await eventually(
      async () => expect((await connect(env).scopeOf(`${group}/v1`, 'Gadget')())._tag).toBe('Right'),
      30_000,
    );
    return installedAt;
  };

  const deleteCrdAndWait = async (group: string): Promise<void> => {
    const deleted = await admin.delete(crdRef(group))();
    if (deleted._tag === 'Left' && deleted.left._tag !== 'NotFound') throw new Error(showClusterError(deleted.left));
    await eventually(async () => expect(await readObject(admin, crdRef(group))).toBeUndefined(), 60_000, 200);
  };

  /** Applications, each with one Gadget and one ConfigMap. */
  const createApplications = async (prefix: string, group: string): Promise<ReadonlyArray<string>> => {
    const names = Array.from({ length: APPLICATIONS }, (_, i) => `${prefix}-${i}`);
    for (const name of names)
      await must(
        admin.create(
          applicationObject(namespace, name, [
            { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: `${name}-gadget` }, spec: { size: 1 } },
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-config` }, data: { a: '1' } },
          ]),
        ),
      );
    return names;
  };

  const applications = (names: ReadonlyArray<string>): Promise<ReadonlyArray<Application>> =>
    Promise.all(names.map((name) => readApplication(admin, applicationRef(namespace, name))));

  const allReady = (names: ReadonlyArray<string>, timeoutMs: number) =>
    eventually(async () => {
      for (const application of await applications(names)) expectReady(application);
    }, timeoutMs);

  const allUnknownKind = (names: ReadonlyArray<string>, timeoutMs: number) =>
    eventually(async () => {
      for (const application of await applications(names))
        expect(conditionOf(application, 'Stalled')).toMatchObject({ status: 'True', reason: 'UnknownKind' });
    }, timeoutMs);

  /** Reads the Applications every 100 ms until stopped, keeping every `Stalled Forbidden` seen. */
  const watchForForbidden = (names: ReadonlyArray<string>): { stop(): Promise<ReadonlyArray<string>> } => {
    const seen: string[] = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        for (const application of await applications(names)) {
          const stalled = conditionOf(application, 'Stalled');
          if (stalled?.status === 'True' && stalled.reason === 'Forbidden')
            seen.push(`${application.metadata.name}: ${stalled.message}`);
        }
        await realClock.sleep(100);
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
        return seen;
      },
    };
  };

  it('deleted while the operator runs: retried while it terminates (never Stalled Forbidden), UnknownKind once gone, Ready within 5 s of the reinstall', async () => {
    const group = `${uniqueName('running')}.kreconcile.io`;
    groups.push(group);
    await installCrd(group);
    const forbidden: string[] = [];
    await started(connect(env), realClock, forbidden);
    const names = await createApplications('running', group);
    await allReady(names, 60_000);

    // A Gadget no Application owns, held by a finalizer: the CRD stays Terminating until it is let go,
    // and meanwhile every create of a Gadget is refused with the terminating-CRD 403.
    const held = { apiVersion: `${group}/v1`, kind: 'Gadget', namespace, name: 'held' };
    await must(
      admin.create({
        apiVersion: held.apiVersion,
        kind: held.kind,
        metadata: { name: held.name, namespace, finalizers: ['test.kreconcile.io/hold'] },
        spec: {},
      }),
    );
    const stalls = watchForForbidden(names);
    await must(admin.delete(crdRef(group)));
    // Their Gadgets deleted by the CRD's cleanup, the Applications create them again and are refused for now:
    // Reconciling with the server's reason, retried.
    await eventually(async () => {
      for (const application of await applications(names))
        expect(conditionOf(application, 'Reconciling')).toMatchObject({
          status: 'True',
          reason: 'CustomResourceDefinitionTerminating',
        });
    }, 15_000);
    expect(conditionOf((await applications(names))[0]!, 'Reconciling')?.message).toContain(
      'create not allowed while custom resource definition is terminating',
    );
    await must(admin.patch(held, { type: 'json', operations: [{ op: 'remove', path: '/metadata/finalizers' }] }));
    await deleteCrdAndWait(group);
    // The kind is gone: each Application says so (its Gadget create answered 404, discovery asked again).
    await allUnknownKind(names, UNKNOWN_KIND_WITHIN_MS);
    const stalledMessage = conditionOf((await applications(names))[0]!, 'Stalled')?.message;
    expect(stalledMessage).toContain('Gadget');

    const reinstalledAt = await installCrd(group);
    await allReady(names, READY_AFTER_REINSTALL_MS + 1_000);
    const readyAfterMs = Date.now() - reinstalledAt;
    process.stdout.write(
      `\nCRD reinstalled under a running operator: ${APPLICATIONS} Applications Ready ${readyAfterMs} ms later\n`,
    );
    expect(readyAfterMs).toBeLessThanOrEqual(READY_AFTER_REINSTALL_MS);
    expect(await stalls.stop()).toEqual([]);
    expect(forbidden).toEqual([]);
  });

  it('deleted while the operator is paused: Stalled UnknownKind after it resumes, Ready within 5 s of the reinstall', async () => {
    const group = `${uniqueName('paused')}.kreconcile.io`;
    groups.push(group);
    await installCrd(group);
    const forbidden: string[] = [];
    const replica = new Replica(realClock, connect(env));
    await started(replica.cluster, replica.clock, forbidden);
    const names = await createApplications('paused', group);
    await allReady(names, 60_000);

    replica.pause();
    await deleteCrdAndWait(group);
    replica.resume();
    await allUnknownKind(names, UNKNOWN_KIND_WITHIN_MS);

    const reinstalledAt = await installCrd(group);
    await allReady(names, READY_AFTER_REINSTALL_MS + 1_000);
    const readyAfterMs = Date.now() - reinstalledAt;
    process.stdout.write(
      `\nCRD deleted while paused, then reinstalled: Ready ${readyAfterMs} ms after the reinstall\n`,
    );
    expect(readyAfterMs).toBeLessThanOrEqual(READY_AFTER_REINSTALL_MS);
    expect(forbidden).toEqual([]);
  });
});
