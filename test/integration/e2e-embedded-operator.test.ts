/**
 * examples/embedded-operator on a real API server: the Greeting CRD installed, the operator built on
 * `startEmbeddedOperator` creates the ConfigMap and Deployment, writes Ready and observedGeneration
 * through the status subresource beside the author's own status field, corrects drift, reports a bad
 * spec as Stalled InvalidSpec, and prunes on delete.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import type { Operator } from '../../app/runtime/index.js';
import { conditionOf, FINALIZER, type ApplicationStatus, type ObjectRef, type Resource } from '../../core/internal.js';
import { GREETING, startGreetingOperator } from '../../examples/embedded-operator/controller.js';
import { installCrd } from '../../tools/envtest/install-crds.js';
import { readExisting, readObject } from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;

describeWithApiServer('end to end: the embedded Greeting operator on a real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator;

  beforeAll(async () => {
    cluster = connect(env);
    await installCrd(
      cluster,
      parse(readFileSync(new URL('../../examples/embedded-operator/crd.yaml', import.meta.url), 'utf8')) as Resource,
    );
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-e2e-embedded'));
    // No kubelet runs Pods here: children count as ready once they exist.
    operator = await startGreetingOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      namespace,
      readiness: 'existence',
    });
  });
  afterAll(async () => {
    await operator?.stop(10_000);
    await cleanup?.();
  });

  const greetingRef = (name: string): ObjectRef => ({ ...GREETING, namespace, name });
  const childRef = (kind: 'ConfigMap' | 'Deployment', name: string): ObjectRef => ({
    apiVersion: kind === 'ConfigMap' ? 'v1' : 'apps/v1',
    kind,
    namespace,
    name: `${name}-greeting`,
  });
  const statusOf = async (name: string): Promise<ApplicationStatus & { greeted?: number }> =>
    ((await readExisting(cluster, greetingRef(name))).status ?? {}) as ApplicationStatus & { greeted?: number };

  it("creates, converges Ready, keeps the author's status, corrects drift and prunes on delete", async () => {
    await must(
      cluster.create({
        ...GREETING,
        metadata: { name: 'hello', namespace },
        spec: { message: 'hi', replicas: 2 },
      }),
    );
    await eventually(
      async () => expect(conditionOf((await statusOf('hello')).conditions, 'Ready')?.status).toBe('True'),
      CONVERGE_MS,
    );
    const primary = await readExisting(cluster, greetingRef('hello'));
    expect(primary.metadata.finalizers).toContain(FINALIZER);
    expect((await statusOf('hello')).observedGeneration).toBe(primary.metadata.generation);
    const configMap = await readExisting(cluster, childRef('ConfigMap', 'hello'));
    expect(configMap.data).toEqual({ message: 'hi' });
    expect(configMap.metadata.annotations?.['kreconcile.io/owner']).toBe(
      `Greeting.example.kreconcile.io:${namespace}/hello`,
    );
    expect(configMap.metadata.ownerReferences?.[0]).toMatchObject({
      apiVersion: GREETING.apiVersion,
      kind: 'Greeting',
      name: 'hello',
      uid: primary.metadata.uid,
      controller: true,
    });
    expect(((await readExisting(cluster, childRef('Deployment', 'hello'))).spec as { replicas: number }).replicas).toBe(
      2,
    );

    await must(cluster.patchStatus(greetingRef('hello'), { type: 'merge', body: { status: { greeted: 3 } } }));
    await must(
      cluster.patch(childRef('ConfigMap', 'hello'), { type: 'merge', body: { data: { message: 'tampered' } } }),
    );
    await must(cluster.patch(greetingRef('hello'), { type: 'merge', body: { spec: { replicas: 3 } } }));
    await eventually(async () => {
      expect((await readExisting(cluster, childRef('ConfigMap', 'hello'))).data).toEqual({ message: 'hi' });
      expect(
        ((await readExisting(cluster, childRef('Deployment', 'hello'))).spec as { replicas: number }).replicas,
      ).toBe(3);
      const status = await statusOf('hello');
      expect(status.observedGeneration).toBe((await readExisting(cluster, greetingRef('hello'))).metadata.generation);
      expect(conditionOf(status.conditions, 'Ready')?.status).toBe('True');
    }, CONVERGE_MS);
    expect((await statusOf('hello')).greeted).toBe(3);

    await must(cluster.delete(greetingRef('hello')));
    await eventually(async () => {
      expect(await readObject(cluster, greetingRef('hello'))).toBeUndefined();
      expect(await readObject(cluster, childRef('ConfigMap', 'hello'))).toBeUndefined();
      expect(await readObject(cluster, childRef('Deployment', 'hello'))).toBeUndefined();
    }, CONVERGE_MS);
  });

  it('reports a spec the Greeting codec rejects as Stalled InvalidSpec and creates nothing', async () => {
    // The CRD's schema admits it (replicas is an integer ≥ 0 there too): the reconciler's spec codec refuses a missing
    // message.
    await must(cluster.create({ ...GREETING, metadata: { name: 'bad', namespace }, spec: { replicas: 1 } }));
    await eventually(async () => {
      const stalled = conditionOf((await statusOf('bad')).conditions, 'Stalled');
      expect(stalled).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
      expect(stalled?.message).toContain('spec.message: expected string, got nothing');
    }, CONVERGE_MS);
    expect(await readObject(cluster, childRef('ConfigMap', 'bad'))).toBeUndefined();
  });
});
