/** Contract: the status subresource isolates status from the rest, both ways; CRD schemas prune and default. */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { expect, it } from 'vitest';
import type { Resource } from '../../core/model/resource.js';
import { deployment } from './contract-crud.js';
import {
  asNumber,
  ensureServed,
  expectError,
  failure,
  gadgetCrd,
  letterSuffix,
  must,
  unique,
  widget,
  widgetRef,
  type ContractEnv,
} from './contract-support.js';

export const statusContract = (env: () => ContractEnv): void => {
  it('create ignores status; schema defaults are applied and unknown top-level fields pruned', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    const created = await must(
      cluster.create({ ...widget(namespace, name, { size: 1 }), status: { phase: 'Forged' }, extra: 'pruned' }),
    );
    expect(created.status).toBeUndefined();
    expect(created.extra).toBeUndefined();
    expect(created.spec).toEqual({ size: 1, tier: 'standard' });
    expect(await must(cluster.get(widgetRef(namespace, name)))).toEqual(O.some(created));
  });

  it('a main-resource update ignores status changes', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    const created = await must(cluster.create(widget(namespace, name, { size: 1 })));
    const withStatus = await must(cluster.updateStatus({ ...created, status: { phase: 'Ready' } }));
    const updated = await must(
      cluster.update({ ...withStatus, spec: { size: 2, tier: 'gold' }, status: { phase: 'Hacked' } }),
    );
    expect(updated.spec).toEqual({ size: 2, tier: 'gold' });
    expect(updated.status).toEqual({ phase: 'Ready' });
    const statusOnly = await must(cluster.update({ ...updated, status: { phase: 'Hacked again' } }));
    expect(statusOnly.status).toEqual({ phase: 'Ready' });
    expect(statusOnly.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
  });

  it('a status write ignores everything but status, keeps generation, bumps resourceVersion', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    const created = await must(cluster.create(widget(namespace, name, { size: 1 }, { labels: { a: '1' } })));
    const written = await must(
      cluster.updateStatus({
        ...created,
        metadata: { ...created.metadata, labels: { a: 'changed' } },
        spec: { size: 99 },
        status: { phase: 'Ready', observedGeneration: 1 },
      }),
    );
    expect(written.spec).toEqual({ size: 1, tier: 'standard' });
    expect(written.metadata.labels).toEqual({ a: '1' });
    expect(written.status).toEqual({ phase: 'Ready', observedGeneration: 1 });
    expect(written.metadata.generation).toBe(1);
    expect(asNumber(written.metadata.resourceVersion)).toBeGreaterThan(asNumber(created.metadata.resourceVersion));
    const patched = await must(
      cluster.patchStatus(widgetRef(namespace, name), {
        type: 'merge',
        body: { spec: { size: 7 }, status: { phase: 'Done' } },
      }),
    );
    expect(patched.spec).toEqual({ size: 1, tier: 'standard' });
    expect(patched.status).toEqual({ phase: 'Done', observedGeneration: 1 });
    expectError(await failure(cluster.updateStatus({ ...created, status: { phase: 'stale' } })), 'Conflict', 409);
  });

  it('built-in status writes keep spec and generation but take metadata (a Deployment keeps its labels)', async () => {
    const { cluster, namespace } = env();
    const name = unique('web');
    const created = await must(
      cluster.create({ ...deployment(namespace, name), metadata: { name, namespace, labels: { a: '1' } } }),
    );
    const written = await must(
      cluster.updateStatus({
        ...created,
        metadata: { ...created.metadata, labels: { a: 'changed' }, annotations: { note: 'via-status' } },
        spec: { ...(created.spec as object), replicas: 9 },
        status: { observedGeneration: 1, replicas: 3 },
      }),
    );
    expect(written.metadata.labels).toEqual({ a: '1' });
    expect(written.metadata.annotations).toEqual({ note: 'via-status' });
    expect((written.spec as { replicas: number }).replicas).toBe(1);
    expect(written.metadata.generation).toBe(1);
    expect(written.status).toEqual({ observedGeneration: 1, replicas: 3 });
    const svcName = unique('svc');
    const svc = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: svcName, namespace, labels: { a: '1' } },
        spec: { ports: [{ port: 80 }] },
      }),
    );
    const svcWritten = await must(
      cluster.updateStatus({
        ...svc,
        metadata: { ...svc.metadata, labels: { a: 'changed' } },
        spec: { ports: [{ port: 81 }] },
      }),
    );
    expect(svcWritten.metadata.labels).toEqual({ a: 'changed' });
    expect(svcWritten.spec).toEqual(svc.spec);
  });

  it('without a status subresource, status is an ordinary field and /status is not found (cluster-scoped custom kind)', async () => {
    const { cluster } = env();
    const suffix = letterSuffix('x');
    const crd = gadgetCrd(suffix);
    await ensureServed(cluster, crd);
    const kind = `Gadget${suffix}`;
    const apiVersion = 'contract.kreconcile.io/v1';
    try {
      const name = unique('g');
      const created = await must(
        cluster.create({ apiVersion, kind, metadata: { name }, spec: { a: 1 }, status: { phase: 'Kept' } }),
      );
      expect(created.metadata.namespace).toBeUndefined();
      expect(created.status).toEqual({ phase: 'Kept' });
      const updated = await must(cluster.update({ ...created, status: { phase: 'Changed' } }));
      expect(updated.status).toEqual({ phase: 'Changed' });
      expect(updated.metadata.generation).toBe(2);
      expectError(await failure(cluster.updateStatus({ ...updated, status: { phase: 'x' } })), 'NotFound', 404);
    } finally {
      await deleteCrd(env, crd);
    }
  });
};

const deleteCrd = async (env: () => ContractEnv, crd: Resource): Promise<void> => {
  const result = await env().cluster.delete({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name })();
  if (E.isLeft(result) && result.left._tag !== 'NotFound') throw new Error(result.left.message);
};
