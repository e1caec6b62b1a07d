/**
 * Contract: `fieldValidation: Strict` (what the operator writes children with) refuses a field
 * the kind does not have, on create, update and patch, naming every such field as
 * kube-apiserver 1.36 does (400 BadRequest, `strict decoding error: unknown field "spec.replica"`),
 * for built-in kinds and custom resources (a field their schema prunes), and stores nothing. A
 * patch is decoded once applied, so it is a 422 Invalid on the field `patch` instead, and a
 * server-side apply of a built-in kind a 500 (`field not declared in schema`).
 */
import * as O from 'fp-ts/lib/Option.js';
import { expect, it } from 'vitest';
import type { Resource } from '../../core/model/resource.js';
import type { WriteOptions } from '../../core/ports/cluster.js';
import { expectError, failure, must, unique, widget, widgetRef, type ContractEnv } from './contract-support.js';

const STRICT: WriteOptions = { fieldValidation: 'Strict' };

const deployment = (namespace: string, name: string, spec: Record<string, unknown> = {}): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    ...spec,
  },
});

export const strictFieldsContract = (env: () => ContractEnv): void => {
  it('create refuses unknown fields of a built-in kind, naming each, and stores nothing', async () => {
    const { cluster, namespace } = env();
    const name = unique('strict');
    const error = await failure(cluster.create(deployment(namespace, name, { replica: 3 }), STRICT));
    expectError(error, 'BadRequest', 400);
    expect(error.message).toContain('strict decoding error: unknown field "spec.replica"');
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name };
    expect(O.isNone(await must(cluster.get(ref)))).toBe(true);
    await must(cluster.create(deployment(namespace, name), STRICT));
  });

  it('merge patch and update refuse unknown fields, the object stays as it was', async () => {
    const { cluster, namespace } = env();
    const name = unique('strict');
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name };
    const created = await must(cluster.create(deployment(namespace, name), STRICT));
    const patched = await failure(cluster.patch(ref, { type: 'merge', body: { spec: { replicaz: 2 } } }, STRICT));
    // A patch is decoded after it is applied: 422 on the field `patch`, the patched object in the message.
    expectError(patched, 'Invalid', 422);
    expect(patched.message).toMatch(/patch: Invalid value: .*: strict decoding error: unknown field "spec\.replicaz"$/);
    const updated = await failure(
      cluster.update({ ...created, metadata: { ...created.metadata, lables: { a: 'b' } } }, STRICT),
    );
    expectError(updated, 'BadRequest', 400);
    expect(updated.message).toContain('strict decoding error: unknown field "metadata.lables"');
    const stored = O.toUndefined(await must(cluster.get(ref)));
    expect(stored?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('server-side apply refuses an unknown field too', async () => {
    const { cluster, namespace } = env();
    const name = unique('strict');
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name };
    const error = await failure(
      cluster.patch(
        ref,
        { type: 'apply', fieldManager: 'contract', body: deployment(namespace, name, { replica: 3 }) },
        STRICT,
      ),
    );
    // The structured-merge-diff typing refuses it before any strict decoding: 500, as for a wrong type.
    expectError(error, 'Internal', 500);
    expect(error.message).toMatch(
      /^failed to create typed patch object \(.*\): \.spec\.replica: field not declared in schema$/,
    );
    expect(O.isNone(await must(cluster.get(ref)))).toBe(true);
  });

  it('a custom resource field its schema would prune is refused', async () => {
    const { cluster, namespace } = env();
    const name = unique('strict');
    const error = await failure(cluster.create({ ...widget(namespace, name, {}), specc: { a: 1 } }, STRICT));
    expectError(error, 'BadRequest', 400);
    expect(error.message).toContain('strict decoding error: unknown field "specc"');
    expect(O.isNone(await must(cluster.get(widgetRef(namespace, name))))).toBe(true);
  });
};
