/** Contract: server defaulting a naive controller would fight (Deployment, Service, Secret). */
import * as O from 'fp-ts/lib/Option.js';
import { expect, it } from 'vitest';
import { getIn, type JsonValue } from '../../core/json/json.js';
import { deployment } from './contract-crud.js';
import { expectError, failure, must, unique, type ContractEnv } from './contract-support.js';

const at = (value: JsonValue, ...path: Array<string | number>): JsonValue | undefined => getIn(value, path);

export const defaultingContract = (env: () => ContractEnv): void => {
  it('Deployment: replicas, strategy, history, deadline and pod template defaults', async () => {
    const { cluster, namespace } = env();
    const created = await must(
      cluster.create(deployment(namespace, unique('web'), ['nginx:1.25', 'busybox', 'redis:latest'])),
    );
    expect(at(created, 'spec', 'replicas')).toBe(1);
    expect(at(created, 'spec', 'strategy')).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    expect(at(created, 'spec', 'revisionHistoryLimit')).toBe(10);
    expect(at(created, 'spec', 'progressDeadlineSeconds')).toBe(600);
    const pod = at(created, 'spec', 'template', 'spec') ?? null;
    expect(at(pod, 'restartPolicy')).toBe('Always');
    expect(at(pod, 'dnsPolicy')).toBe('ClusterFirst');
    expect(at(pod, 'schedulerName')).toBe('default-scheduler');
    expect(at(pod, 'terminationGracePeriodSeconds')).toBe(30);
    expect(at(pod, 'securityContext')).toEqual({});
    expect([0, 1, 2].map((i) => at(pod, 'containers', i, 'imagePullPolicy'))).toEqual([
      'IfNotPresent',
      'Always',
      'Always',
    ]);
    expect(at(pod, 'containers', 0, 'terminationMessagePath')).toBe('/dev/termination-log');
    expect(at(pod, 'containers', 0, 'terminationMessagePolicy')).toBe('File');
    expect(at(pod, 'containers', 0, 'resources')).toEqual({});
    expect(at(pod, 'containers', 0, 'ports', 0, 'protocol')).toBe('TCP');
  });

  it('Deployment: an explicit value is kept; an invalid selector answers Invalid (422)', async () => {
    const { cluster, namespace } = env();
    const base = deployment(namespace, unique('web'));
    const created = await must(cluster.create({ ...base, spec: { ...(base.spec as object), replicas: 3 } }));
    expect(at(created, 'spec', 'replicas')).toBe(3);
    const mismatched = deployment(namespace, unique('web'));
    expectError(
      await failure(
        cluster.create({
          ...mismatched,
          spec: { ...(mismatched.spec as object), selector: { matchLabels: { app: 'other' } } },
        }),
      ),
      'Invalid',
      422,
    );
  });

  it('Service: cluster IP allocated, type, affinity, port protocol and targetPort; the IP carries over on update', async () => {
    const { cluster, namespace } = env();
    const name = unique('svc');
    const ref = { apiVersion: 'v1', kind: 'Service', namespace, name };
    const created = await must(
      cluster.create({
        ...ref,
        metadata: { name, namespace },
        spec: { selector: { app: 'x' }, ports: [{ port: 8080 }] },
      }),
    );
    const ip = at(created, 'spec', 'clusterIP');
    expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(at(created, 'spec', 'clusterIPs')).toEqual([ip]);
    expect(at(created, 'spec', 'type')).toBe('ClusterIP');
    expect(at(created, 'spec', 'sessionAffinity')).toBe('None');
    expect(at(created, 'spec', 'ports', 0, 'protocol')).toBe('TCP');
    expect(at(created, 'spec', 'ports', 0, 'targetPort')).toBe(8080);
    expect(at(created, 'spec', 'ipFamilies')).toContain('IPv4');
    expect(at(created, 'spec', 'internalTrafficPolicy')).toBe('Cluster');
    const updated = await must(
      cluster.update({ ...created, spec: { selector: { app: 'y' }, ports: [{ port: 8080 }] } }),
    );
    expect(at(updated, 'spec', 'clusterIP')).toBe(ip);
    const other = ip === '10.0.0.250' ? '10.0.0.251' : '10.0.0.250';
    expectError(
      await failure(
        cluster.update({ ...updated, spec: { ...(updated.spec as object), clusterIP: other, clusterIPs: [other] } }),
      ),
      'Invalid',
      422,
    );
    expect(await must(cluster.get(ref))).toEqual(O.some(updated));
  });

  it('Service: NodePort gets node ports from 30000-32767 that carry over on update', async () => {
    const { cluster, namespace } = env();
    const name = unique('np');
    const created = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace },
        spec: { type: 'NodePort', selector: { app: 'x' }, ports: [{ port: 80 }] },
      }),
    );
    const nodePort = at(created, 'spec', 'ports', 0, 'nodePort');
    expect(typeof nodePort === 'number' && nodePort >= 30000 && nodePort <= 32767).toBe(true);
    expect(at(created, 'spec', 'externalTrafficPolicy')).toBe('Cluster');
    const updated = await must(
      cluster.update({ ...created, spec: { type: 'NodePort', selector: { app: 'y' }, ports: [{ port: 80 }] } }),
    );
    expect(at(updated, 'spec', 'ports', 0, 'nodePort')).toBe(nodePort);
  });

  it('Service: becoming ExternalName drops the cluster IP fields; node ports go with the NodePort type', async () => {
    const { cluster, namespace } = env();
    const name = unique('svc');
    const ref = { apiVersion: 'v1', kind: 'Service', namespace, name };
    await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace },
        spec: { type: 'NodePort', ports: [{ port: 80 }] },
      }),
    );
    const plain = await must(cluster.patch(ref, { type: 'merge', body: { spec: { type: 'ClusterIP' } } }));
    expect(at(plain, 'spec', 'ports', 0, 'nodePort')).toBeUndefined();
    expect(at(plain, 'spec', 'externalTrafficPolicy')).toBeUndefined();
    const external = await must(
      cluster.patch(ref, { type: 'merge', body: { spec: { type: 'ExternalName', externalName: 'db.example.com' } } }),
    );
    expect(
      ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy', 'internalTrafficPolicy'].map((key) =>
        at(external, 'spec', key),
      ),
    ).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('Service: a headless Service keeps clusterIP None', async () => {
    const { cluster, namespace } = env();
    const name = unique('headless');
    const created = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace },
        spec: { clusterIP: 'None', selector: { app: 'x' }, ports: [{ port: 80 }] },
      }),
    );
    expect(at(created, 'spec', 'clusterIP')).toBe('None');
  });

  it('Secret: type Opaque, and stringData is folded into data (base64) and not stored', async () => {
    const { cluster, namespace } = env();
    const created = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: unique('secret'), namespace },
        data: { a: 'YQ==' },
        stringData: { b: 'bee' },
      }),
    );
    expect(created.type).toBe('Opaque');
    expect(created.data).toEqual({ a: 'YQ==', b: Buffer.from('bee').toString('base64') });
    expect(created.stringData).toBeUndefined();
  });

  it('StatefulSet and DaemonSet: update strategies, history and replicas', async () => {
    const { cluster, namespace } = env();
    const template = (app: string) => ({
      metadata: { labels: { app } },
      spec: { containers: [{ name: 'c', image: 'app:1' }] },
    });
    const sts = await must(
      cluster.create({
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: unique('db'), namespace },
        spec: { selector: { matchLabels: { app: 'db' } }, serviceName: 'db', template: template('db') },
      }),
    );
    expect(at(sts, 'spec', 'replicas')).toBe(1);
    expect(at(sts, 'spec', 'podManagementPolicy')).toBe('OrderedReady');
    expect(at(sts, 'spec', 'updateStrategy')).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    expect(at(sts, 'spec', 'revisionHistoryLimit')).toBe(10);
    expect(at(sts, 'spec', 'persistentVolumeClaimRetentionPolicy')).toEqual({
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
    });
    const ds = await must(
      cluster.create({
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: unique('agent'), namespace },
        spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent') },
      }),
    );
    expect(at(ds, 'spec', 'updateStrategy')).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    expect(at(ds, 'spec', 'revisionHistoryLimit')).toBe(10);
  });

  it('Job: the server generates selector and pod labels from the Job UID and defaults completions', async () => {
    const { cluster, namespace } = env();
    const name = unique('job');
    const job = await must(
      cluster.create({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name, namespace },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'app:1' }] } } },
      }),
    );
    const uid = job.metadata.uid ?? '';
    expect(at(job, 'spec', 'selector')).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    expect(at(job, 'spec', 'template', 'metadata', 'labels')).toEqual({
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': name,
      'controller-uid': uid,
      'job-name': name,
    });
    expect([
      at(job, 'spec', 'completions'),
      at(job, 'spec', 'parallelism'),
      at(job, 'spec', 'backoffLimit'),
      at(job, 'spec', 'completionMode'),
    ]).toEqual([1, 1, 6, 'NonIndexed']);
  });
};
