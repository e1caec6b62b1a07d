/** Contract: metadata rules — which kinds keep a generation and what bumps it, unknown fields, label validation. */
import * as O from 'fp-ts/lib/Option.js';
import { expect, it } from 'vitest';
import { deployment } from './contract-crud.js';
import {
  configMap,
  configMapRef,
  expectError,
  failure,
  must,
  unique,
  widget,
  widgetRef,
  type ContractEnv,
} from './contract-support.js';

export const metadataContract = (env: () => ContractEnv): void => {
  it('ConfigMaps keep no generation; a Deployment bumps it for spec and annotation changes, not for labels', async () => {
    const { cluster, namespace } = env();
    const cm = await must(cluster.create(configMap(namespace, unique('cm'))));
    expect(cm.metadata.generation).toBeUndefined();
    const name = unique('web');
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name };
    const created = await must(cluster.create(deployment(namespace, name)));
    const labelled = await must(cluster.patch(ref, { type: 'merge', body: { metadata: { labels: { l: 'x' } } } }));
    const annotated = await must(
      cluster.patch(ref, { type: 'merge', body: { metadata: { annotations: { note: 'x' } } } }),
    );
    const scaled = await must(cluster.patch(ref, { type: 'merge', body: { spec: { replicas: 2 } } }));
    expect([created, labelled, annotated, scaled].map((d) => d.metadata.generation)).toEqual([1, 1, 2, 3]);
  });

  it('unknown metadata fields are dropped; uid and creationTimestamp sent on create are replaced', async () => {
    const { cluster, namespace } = env();
    const forged = {
      bogus: 'x',
      uid: '00000000-0000-0000-0000-000000000000',
      creationTimestamp: '2001-01-01T00:00:00Z',
      generation: 7,
    };
    const object = configMap(namespace, unique('cm'));
    const created = await must(cluster.create({ ...object, metadata: { ...object.metadata, ...forged } }));
    expect(created.metadata.bogus).toBeUndefined();
    expect(created.metadata.uid).not.toBe(forged.uid);
    expect(created.metadata.creationTimestamp).not.toBe(forged.creationTimestamp);
    // Verified on kube-apiserver 1.36: a kind that keeps no generation stores the one sent;
    // a kind that keeps one starts at 1 whatever was sent.
    expect(created.metadata.generation).toBe(7);
    const w = widget(namespace, unique('w'), { size: 1 });
    expect((await must(cluster.create({ ...w, metadata: { ...w.metadata, generation: 7 } }))).metadata.generation).toBe(
      1,
    );
  });

  it('a uid in an update is a precondition (another uid → Conflict 409); creationTimestamp is kept', async () => {
    const { cluster, namespace } = env();
    const created = await must(cluster.create(widget(namespace, unique('w'), { size: 1 })));
    expectError(
      await failure(
        cluster.update({ ...created, metadata: { ...created.metadata, uid: '00000000-0000-0000-0000-000000000000' } }),
      ),
      'Conflict',
      409,
    );
    const updated = await must(
      cluster.update({
        ...created,
        metadata: { ...created.metadata, creationTimestamp: '2001-01-01T00:00:00Z' },
        spec: { size: 2 },
      }),
    );
    expect(updated.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
  });

  it('invalid label keys and values answer Invalid (422)', async () => {
    const { cluster, namespace } = env();
    expectError(
      await failure(cluster.create(configMap(namespace, unique('cm'), {}, { 'bad key': 'x' }))),
      'Invalid',
      422,
    );
    expectError(
      await failure(cluster.create(configMap(namespace, unique('cm'), {}, { ok: 'bad value!' }))),
      'Invalid',
      422,
    );
    const name = unique('cm');
    await must(cluster.create(configMap(namespace, name)));
    expectError(
      await failure(
        cluster.patch(configMapRef(namespace, name), {
          type: 'merge',
          body: { metadata: { labels: { ok: 'x'.repeat(64) } } },
        }),
      ),
      'Invalid',
      422,
    );
  });

  it('a status write without status removes it (custom resource status strategy)', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    const created = await must(cluster.create(widget(namespace, name, { size: 1 })));
    const withStatus = await must(cluster.updateStatus({ ...created, status: { phase: 'Ready' } }));
    const { status: _dropped, ...withoutStatus } = withStatus;
    const cleared = await must(cluster.updateStatus(withoutStatus as typeof withStatus));
    expect(cleared.status).toBeUndefined();
    const read = await must(cluster.get(widgetRef(namespace, name)));
    expect(O.isSome(read) && read.value.status).toBeUndefined();
  });
};
