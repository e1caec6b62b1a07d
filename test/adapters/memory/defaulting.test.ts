/** Memory adapter: server defaulting of built-in kinds, allocation, and custom-resource schemas. */
import { describe, expect, it } from 'vitest';
import { getIn, type JsonValue } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { createMemoryCluster } from '../../../adapters/memory/index.js';
import { pullPolicyFor } from '../../../adapters/memory/defaulting/pod-spec.js';
import { failure, must } from './support.js';

const at = (value: JsonValue, ...path: Array<string | number>) => getIn(value, path);

const podTemplate = (labels: Record<string, string>, extra: Record<string, JsonValue> = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'c', image: 'app:1' }], ...extra },
});

describe('memory server defaulting', () => {
  it('image pull policy: Always for latest or untagged, IfNotPresent for tags and digests', () => {
    expect(
      ['nginx', 'nginx:latest', 'localhost:5000/nginx', 'nginx:1.25', 'reg.io:443/team/app:v2', 'nginx@sha256:abc'].map(
        pullPolicyFor,
      ),
    ).toEqual(['Always', 'Always', 'Always', 'IfNotPresent', 'IfNotPresent', 'IfNotPresent']);
  });

  it('found by the Go-types differential test: RC labels from its template, NetworkPolicy rule ports TCP, a StorageClass pointer to "" kept', async () => {
    const cluster = createMemoryCluster();
    const rc = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'ReplicationController',
        metadata: { name: 'rc', namespace: 'default' },
        spec: { replicas: 0, selector: { a: 'rc' }, template: podTemplate({ a: 'rc' }) },
      }),
    );
    expect(at(rc, 'metadata', 'labels')).toEqual({ a: 'rc' });
    const policy = await must(
      cluster.create({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'np', namespace: 'default' },
        spec: {
          podSelector: {},
          ingress: [{ ports: [{ port: 80 }] }],
          egress: [{ ports: [{ port: 53, protocol: 'UDP' }] }],
        },
      }),
    );
    expect(at(policy, 'spec', 'ingress', 0, 'ports', 0, 'protocol')).toBe('TCP');
    expect(at(policy, 'spec', 'egress', 0, 'ports', 0, 'protocol')).toBe('UDP');
    const storage = await must(
      cluster.create({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'sc' },
        provisioner: 'example.com/disk',
        reclaimPolicy: '',
      }),
    );
    expect(at(storage, 'reclaimPolicy')).toBe('');
    expect(at(storage, 'volumeBindingMode')).toBe('Immediate');
  });

  it('StatefulSet and DaemonSet update strategies and history', async () => {
    const cluster = createMemoryCluster();
    const sts = await must(
      cluster.create({
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace: 'default' },
        spec: {
          selector: { matchLabels: { a: 'db' } },
          template: podTemplate({ a: 'db' }),
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }],
        },
      }),
    );
    expect(at(sts, 'spec', 'updateStrategy')).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    expect(at(sts, 'spec', 'podManagementPolicy')).toBe('OrderedReady');
    expect(at(sts, 'spec', 'replicas')).toBe(1);
    expect(at(sts, 'spec', 'volumeClaimTemplates', 0, 'spec', 'volumeMode')).toBe('Filesystem');
    const ds = await must(
      cluster.create({
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'agent', namespace: 'default' },
        spec: { selector: { matchLabels: { a: 'agent' } }, template: podTemplate({ a: 'agent' }) },
      }),
    );
    expect(at(ds, 'spec', 'updateStrategy')).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    expect(at(ds, 'spec', 'revisionHistoryLimit')).toBe(10);
  });

  it('Job: generated selector and labels from its UID, completion defaults, restart policy validated', async () => {
    const cluster = createMemoryCluster();
    const job = await must(
      cluster.create({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'once', namespace: 'default' },
        spec: { template: podTemplate({}, { restartPolicy: 'Never' }) },
      }),
    );
    const uid = job.metadata.uid;
    expect(at(job, 'spec', 'selector')).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    expect(at(job, 'spec', 'template', 'metadata', 'labels', 'job-name')).toBe('once');
    expect([at(job, 'spec', 'completions'), at(job, 'spec', 'parallelism'), at(job, 'spec', 'backoffLimit')]).toEqual([
      1, 1, 6,
    ]);
    const queue = await must(
      cluster.create({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'queue', namespace: 'default' },
        spec: { parallelism: 3, template: podTemplate({}, { restartPolicy: 'OnFailure' }) },
      }),
    );
    expect(at(queue, 'spec', 'completions')).toBeUndefined();
    const invalid = await failure(
      cluster.create({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'bad', namespace: 'default' },
        spec: { template: podTemplate({}) },
      }),
    );
    expect(invalid.causes?.map((c) => c.field)).toEqual(['spec.template.spec.restartPolicy']);
  });

  it('Pod: spec defaults, service links, Pending status with a QoS class', async () => {
    const cluster = createMemoryCluster();
    const pod = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'default' },
        spec: { containers: [{ name: 'c', image: 'app', readinessProbe: { httpGet: { port: 80 } } }] },
      }),
    );
    expect(at(pod, 'spec', 'enableServiceLinks')).toBe(true);
    expect(at(pod, 'spec', 'containers', 0, 'readinessProbe')).toEqual({
      httpGet: { port: 80, path: '/', scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('NodePort Service: node ports allocated and carried over on update; released with the Service', async () => {
    const cluster = createMemoryCluster();
    const svc = (name: string): Resource => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'default' },
      spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 443, nodePort: 30443 }] },
    });
    const created = await must(cluster.create(svc('np')));
    expect([at(created, 'spec', 'ports', 0, 'nodePort'), at(created, 'spec', 'ports', 1, 'nodePort')]).toEqual([
      30000, 30443,
    ]);
    expect(at(created, 'spec', 'externalTrafficPolicy')).toBe('Cluster');
    const updated = await must(
      cluster.update({ ...created, spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 443 }] } }),
    );
    expect(at(updated, 'spec', 'ports')).toEqual(at(created, 'spec', 'ports'));
    expect(at(updated, 'spec', 'clusterIP')).toBe(at(created, 'spec', 'clusterIP'));
    expect((await failure(cluster.create(svc('clash'))))._tag).toBe('Invalid');
    await must(cluster.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'np' }));
    await must(cluster.create(svc('again')));
  });

  it('a dry run allocates nothing; with defaulting off objects are stored as written', async () => {
    const cluster = createMemoryCluster();
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', namespace: 'default' },
      spec: { ports: [{ port: 80 }] },
    };
    const dry = await must(cluster.create(service, { dryRun: true }));
    const real = await must(cluster.create(service));
    expect(at(real, 'spec', 'clusterIP')).toBe(at(dry, 'spec', 'clusterIP'));
    const plain = createMemoryCluster({ defaulting: false });
    const cm = await must(
      plain.create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', namespace: 'default' },
        spec: { selector: { matchLabels: { a: 'b' } }, template: podTemplate({ a: 'b' }) },
      }),
    );
    expect(at(cm, 'spec')).toEqual({ selector: { matchLabels: { a: 'b' } }, template: podTemplate({ a: 'b' }) });
  });

  it('custom resources: structural pruning and schema defaults, nested in existing objects only', async () => {
    const cluster = createMemoryCluster();
    await must(
      cluster.create({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'things.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { kind: 'Thing', plural: 'things' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: {
                      type: 'object',
                      properties: {
                        size: { type: 'integer', default: 3 },
                        inner: { type: 'object', properties: { mode: { type: 'string', default: 'fast' } } },
                        labels: { type: 'object', additionalProperties: { type: 'string' } },
                        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
                      },
                    },
                  },
                },
              },
            },
          ],
        },
      }),
    );
    const thing = await must(
      cluster.create({
        apiVersion: 'example.com/v1',
        kind: 'Thing',
        metadata: { name: 't', namespace: 'default', labels: { a: 'b' } },
        spec: { unknown: 1, labels: { x: 'y' }, items: [{ name: 'n', junk: true }] },
        status: { dropped: true },
      }),
    );
    expect(thing.spec).toEqual({ size: 3, labels: { x: 'y' }, items: [{ name: 'n' }] });
    expect(thing.status).toBeUndefined();
    expect(thing.metadata.labels).toEqual({ a: 'b' });
  });
});
