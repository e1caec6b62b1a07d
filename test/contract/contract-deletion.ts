/**
 * Contract: finalizers and deletionTimestamp, ownerReference garbage collection, namespace termination, CRD removal.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { expect, it } from 'vitest';
import type { Resource } from '../../core/model/resource.js';
import type { Cluster } from '../../core/ports/cluster.js';
import {
  configMap,
  configMapRef,
  ensureServed,
  eventually,
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

const hold = 'contract.kreconcile.io/hold';

const gone = async (cluster: Cluster, ref: Parameters<Cluster['get']>[0]): Promise<void> => {
  await eventually(async () => expect(await must(cluster.get(ref))).toEqual(O.none));
};

const ownedBy = (namespace: string, name: string, owners: ReadonlyArray<Resource>, block = false): Resource => ({
  ...configMap(namespace, name),
  metadata: {
    name,
    namespace,
    ownerReferences: owners.map((owner) => ({
      apiVersion: owner.apiVersion,
      kind: owner.kind,
      name: owner.metadata.name,
      uid: owner.metadata.uid ?? '',
      ...(block ? { blockOwnerDeletion: true } : {}),
    })),
  },
});

export const deletionContract = (env: () => ContractEnv): void => {
  it('preconditions: a delete naming another resourceVersion or uid is refused (409) and deletes nothing; the current ones delete', async () => {
    const { cluster, namespace } = env();
    const name = unique('pre');
    const ref = configMapRef(namespace, name);
    const created = await must(cluster.create(configMap(namespace, name, { a: '1' })));
    const changed = await must(cluster.patch(ref, { type: 'merge', body: { data: { a: '2' } } }));
    const stale = await failure(
      cluster.delete(ref, { preconditions: { resourceVersion: created.metadata.resourceVersion ?? '' } }),
    );
    expectError(stale, 'Conflict', 409);
    expect(stale.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "${name}": the ResourceVersion in the precondition (${created.metadata.resourceVersion ?? ''}) does not match the ResourceVersion in record (${changed.metadata.resourceVersion ?? ''}). The object might have been modified`,
    );
    const otherUid = await failure(cluster.delete(ref, { preconditions: { uid: 'another-uid' } }));
    expectError(otherUid, 'Conflict', 409);
    expect(otherUid.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "${name}": the UID in the precondition (another-uid) does not match the UID in record (${created.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
    );
    expect(O.isSome(await must(cluster.get(ref)))).toBe(true);
    expect(
      await must(
        cluster.delete(ref, {
          preconditions: { resourceVersion: changed.metadata.resourceVersion ?? '', uid: created.metadata.uid ?? '' },
        }),
      ),
    ).toEqual(O.none);
  });

  it('finalizers: delete marks (deletionTimestamp, generation + 1) and keeps the object; removing the last finalizer deletes it', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    const ref = widgetRef(namespace, name);
    const created = await must(cluster.create(widget(namespace, name, { size: 1 }, { finalizers: [hold] })));
    const pending = await must(cluster.delete(ref));
    expect(O.isSome(pending)).toBe(true);
    const marked = await must(cluster.get(ref));
    const object = O.isSome(marked) ? marked.value : created;
    expect(object.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(object.metadata.finalizers).toEqual([hold]);
    expect(object.metadata.generation).toBe(2);
    expect(O.isSome(await must(cluster.delete(ref)))).toBe(true);
    expectError(
      await failure(
        cluster.update({
          ...object,
          metadata: { ...object.metadata, finalizers: [hold, 'contract.kreconcile.io/more'] },
        }),
      ),
      'Invalid',
      422,
    );
    await must(cluster.patch(ref, { type: 'merge', body: { metadata: { finalizers: null } } }));
    await gone(cluster, ref);
  });

  it('garbage collection: a dependent whose owner is deleted goes too (Background)', async (context) => {
    const { cluster, namespace, gc } = env();
    if (!gc) context.skip();
    const owner = await must(cluster.create(configMap(namespace, unique('owner'))));
    const dependent = await must(cluster.create(ownedBy(namespace, unique('dependent'), [owner])));
    expect(await must(cluster.delete(configMapRef(namespace, owner.metadata.name)))).toEqual(O.none);
    await gone(cluster, configMapRef(namespace, dependent.metadata.name));
  });

  it('garbage collection: Orphan keeps dependents and drops their reference', async (context) => {
    const { cluster, namespace, gc } = env();
    if (!gc) context.skip();
    const owner = await must(cluster.create(configMap(namespace, unique('owner'))));
    const dependent = await must(cluster.create(ownedBy(namespace, unique('dependent'), [owner])));
    const pending = await must(
      cluster.delete(configMapRef(namespace, owner.metadata.name), { propagationPolicy: 'Orphan' }),
    );
    expect(O.isSome(pending) && pending.value.metadata.finalizers).toEqual(['orphan']);
    await gone(cluster, configMapRef(namespace, owner.metadata.name));
    await eventually(async () => {
      const read = await must(cluster.get(configMapRef(namespace, dependent.metadata.name)));
      expect(O.isSome(read) && (read.value.metadata.ownerReferences ?? [])).toEqual([]);
    });
  });

  it('garbage collection: a dependent with another live owner stays, losing only the dangling reference', async (context) => {
    const { cluster, namespace, gc } = env();
    if (!gc) context.skip();
    const first = await must(cluster.create(configMap(namespace, unique('owner'))));
    const second = await must(cluster.create(configMap(namespace, unique('owner'))));
    const dependent = await must(cluster.create(ownedBy(namespace, unique('dependent'), [first, second])));
    await must(cluster.delete(configMapRef(namespace, first.metadata.name)));
    await eventually(async () => {
      const read = await must(cluster.get(configMapRef(namespace, dependent.metadata.name)));
      expect(O.isSome(read) && (read.value.metadata.ownerReferences ?? []).map((ref) => ref.uid)).toEqual([
        second.metadata.uid,
      ]);
    });
  });

  it('garbage collection: Foreground keeps the owner (deleting) until blocking dependents are gone', async (context) => {
    const { cluster, namespace, gc } = env();
    if (!gc) context.skip();
    const owner = await must(cluster.create(configMap(namespace, unique('owner'))));
    const dependent = await must(cluster.create(ownedBy(namespace, unique('dependent'), [owner], true)));
    const pending = await must(
      cluster.delete(configMapRef(namespace, owner.metadata.name), { propagationPolicy: 'Foreground' }),
    );
    expect(O.isSome(pending) && pending.value.metadata.finalizers).toContain('foregroundDeletion');
    await gone(cluster, configMapRef(namespace, dependent.metadata.name));
    await gone(cluster, configMapRef(namespace, owner.metadata.name));
  });

  it('storage protection: a claim is created with kubernetes.io/pvc-protection; deleted while no pod uses it, the protection controller releases it and it is gone', async (context) => {
    const { cluster, namespace, gc } = env();
    if (!gc) context.skip();
    const name = unique('claim');
    const ref = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name };
    const created = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name, namespace },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      }),
    );
    expect(created.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    // The delete answers with the claim still there, deleting; the controller removes the finalizer after.
    const pending = await must(cluster.delete(ref));
    expect(O.isSome(pending) && typeof pending.value.metadata.deletionTimestamp).toBe('string');
    await gone(cluster, ref);
  });

  it('namespace deletion: Terminating, no new content (403), contents deleted, then the namespace', async () => {
    const { cluster, gc } = env();
    const name = unique('kr-doomed');
    const nsRef = { apiVersion: 'v1', kind: 'Namespace', name };
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
    await must(cluster.create(configMap(name, 'content')));
    const held = await must(cluster.create(widget(name, 'held', { size: 1 }, { finalizers: [hold] })));
    await must(cluster.delete(nsRef));
    const terminating = await must(cluster.get(nsRef));
    expect(O.isSome(terminating) && (terminating.value.status as { phase?: string }).phase).toBe('Terminating');
    expectError(await failure(cluster.create(configMap(name, 'late'))), 'Forbidden', 403);
    if (!gc) {
      await must(
        cluster.patch(widgetRef(name, held.metadata.name), { type: 'merge', body: { metadata: { finalizers: null } } }),
      );
      return;
    }
    await gone(cluster, configMapRef(name, 'content'));
    await eventually(async () => {
      const read = await must(cluster.get(widgetRef(name, 'held')));
      expect(O.isSome(read) && typeof read.value.metadata.deletionTimestamp).toBe('string');
    });
    await must(cluster.patch(widgetRef(name, 'held'), { type: 'merge', body: { metadata: { finalizers: null } } }));
    await gone(cluster, nsRef);
  });

  it('deleting a CRD deletes its custom resources and the kind stops being served', async () => {
    const { cluster } = env();
    const suffix = letterSuffix('y');
    const crd = gadgetCrd(suffix);
    await ensureServed(cluster, crd);
    const apiVersion = 'contract.kreconcile.io/v1';
    const kind = `Gadget${suffix}`;
    const crdRef = { apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name };
    await eventually(async () => {
      const stored = await must(cluster.get(crdRef));
      const conditions = O.isSome(stored)
        ? ((stored.value.status as { conditions?: ReadonlyArray<{ type: string; status: string }> }).conditions ?? [])
        : [];
      expect(
        conditions
          .filter((c) => c.status === 'True')
          .map((c) => c.type)
          .sort(),
      ).toEqual(['Established', 'NamesAccepted']);
      expect(O.isSome(stored) && (stored.value.spec as { names: object }).names).toMatchObject({
        singular: `gadget${suffix}`,
        listKind: `${kind}List`,
      });
    });
    await must(cluster.create({ apiVersion, kind, metadata: { name: 'one' }, spec: {} }));
    await must(cluster.delete({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name }));
    await gone(cluster, { apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name });
    await eventually(async () => {
      const listed = await cluster.list({ apiVersion, kind })();
      expect(E.isLeft(listed) && listed.left._tag).toBe('UnknownKind');
    });
  });
};
