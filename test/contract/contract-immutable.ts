/**
 * Contract: fields the API server refuses to change once set (422 Invalid naming the field), as
 * kreconcile's planner meets them: a Job's pod template, a Deployment's selector, a Service's
 * clusterIP. What the server answers is what the error policy classifies as ImmutableField.
 */
import * as O from 'fp-ts/lib/Option.js';
import { expect, it } from 'vitest';
import type { ClusterError } from '../../core/ports/errors.js';
import { expectError, failure, must, unique, type ContractEnv } from './contract-support.js';

const labels = { app: 'immutable' };

const job = (namespace: string, name: string, image: string) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image }] } } },
});

const deployment = (namespace: string, name: string, selector: Record<string, string>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    selector: { matchLabels: selector },
    template: { metadata: { labels: selector }, spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
  },
});

const service = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace },
  spec: { selector: labels, ports: [{ port: 80 }] },
});

/** The answer's shape: one FieldValueInvalid cause naming the field, the message naming kind, object and field. */
const expectUnchangeable = (
  error: ClusterError,
  qualifiedKind: string,
  name: string,
  field: string,
  text: string,
): void => {
  expectError(error, 'Invalid', 422);
  expect(error.message.startsWith(`${qualifiedKind} "${name}" is invalid: ${field}: Invalid value: `)).toBe(true);
  expect(error.message.endsWith(`: ${text}`)).toBe(true);
  expect(error.causes).toHaveLength(1);
  expect(error.causes?.[0]).toMatchObject({ field, reason: 'FieldValueInvalid' });
  expect(error.causes?.[0]?.message).toMatch(new RegExp(`^Invalid value: .*: ${text}$`));
};

export const immutableContract = (env: () => ContractEnv): void => {
  it("a Job's pod template: 422 Invalid, field spec.template is immutable; the Job is unchanged", async () => {
    const { cluster, namespace } = env();
    const name = unique('job');
    const ref = { apiVersion: 'batch/v1', kind: 'Job', namespace, name };
    const created = await must(cluster.create(job(namespace, name, 'busybox:1.36')));
    const refused = await failure(
      cluster.patch(ref, {
        type: 'json',
        operations: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'busybox:1.37' }],
      }),
    );
    expectUnchangeable(refused, 'Job.batch', name, 'spec.template', 'field is immutable');
    expect(await must(cluster.get(ref))).toEqual(O.some(created));
  });

  it("a Deployment's selector: 422 Invalid, field spec.selector is immutable", async () => {
    const { cluster, namespace } = env();
    const name = unique('deploy');
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name };
    const created = await must(cluster.create(deployment(namespace, name, labels)));
    const refused = await failure(
      cluster.patch(ref, {
        type: 'json',
        operations: [
          { op: 'replace', path: '/spec/selector/matchLabels', value: { app: 'other' } },
          { op: 'replace', path: '/spec/template/metadata/labels', value: { app: 'other' } },
        ],
      }),
    );
    expectUnchangeable(refused, 'Deployment.apps', name, 'spec.selector', 'field is immutable');
    expect(refused.message).toContain('Invalid value: {"matchLabels":{"app":"other"}}: field is immutable');
    expect(await must(cluster.get(ref))).toEqual(O.some(created));
    // Other fields still change.
    await must(cluster.patch(ref, { type: 'json', operations: [{ op: 'replace', path: '/spec/replicas', value: 3 }] }));
  });

  it("a Service's clusterIP: 422 Invalid, may not change once set", async () => {
    const { cluster, namespace } = env();
    const name = unique('svc');
    const ref = { apiVersion: 'v1', kind: 'Service', namespace, name };
    const created = await must(cluster.create(service(namespace, name)));
    const ip = String((created.spec as { clusterIP?: string }).clusterIP);
    const other = ip.endsWith('.77') ? ip.replace(/\.77$/, '.78') : ip.replace(/\.\d+$/, '.77');
    const refused = await failure(
      cluster.patch(ref, { type: 'json', operations: [{ op: 'replace', path: '/spec/clusterIP', value: other }] }),
    );
    expectUnchangeable(refused, 'Service', name, 'spec.clusterIPs[0]', 'may not change once set');
    expect(refused.message).toBe(
      `Service "${name}" is invalid: spec.clusterIPs[0]: Invalid value: ["${other}"]: may not change once set`,
    );
    expect(await must(cluster.get(ref))).toEqual(O.some(created));
  });
};
