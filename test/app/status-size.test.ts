/**
 * Sizes checked before anything is written (docs/decisions/0023-status-size.md), on the memory
 * server: a 15-object install with five large CRDs fits as one Application (its status stored
 * packed), one that cannot fit is refused before any child exists, an Application with a status
 * in the earlier form plans as before and is rewritten in the new one, and the memory server
 * refuses what kube-apiserver and etcd refuse.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { createMemoryCluster, ManualClock, type MemoryCluster } from '../../adapters/memory/index.js';
import { reconcileApplication, type ReconcileDeps } from '../../app/reconcile/reconcile-application.js';
import { readStoredStatus, storedStatus } from '../../app/status/stored-status.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  getIn,
  isJsonObject,
  type JsonObject,
  type Resource,
} from '../../core/internal.js';
import { largeInstall } from '../support/large-install.js';

const NS = 'rollouts';
const MIB = 1024 * 1024;

const applicationWith = (name: string, manifest: ReadonlyArray<Resource>): Resource => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  metadata: { name, namespace: NS },
  spec: { manifest: [...manifest] },
});

const depsFor = (cluster: MemoryCluster, clock: ManualClock): ReconcileDeps => ({
  cluster,
  scopes: builtinScopes,
  now: () => new Date(clock.now()).toISOString(),
  random: () => 0.5,
  // An install writes cluster-scoped kinds (CRDs, ClusterRoles): the admin's policy allows them here.
  planOptions: { tenancy: { clusterKinds: [{ from: NS, kinds: ['*'] }] } },
});

const appRef = (name: string) => ({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace: NS, name });

const stored = async (cluster: MemoryCluster, name: string): Promise<Resource> => {
  const got = await cluster.get(appRef(name))();
  if (E.isLeft(got) || got.right._tag === 'None') throw new Error(`Application ${name} is gone`);
  return got.right.value;
};

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** Reconciles until a plan has nothing to do (at most `rounds` times); the last result. */
const settle = async (deps: ReconcileDeps, name: string, rounds = 6) => {
  let result = await reconcileApplication(appRef(name), deps);
  for (let i = 1; i < rounds && result._tag === 'Done' && result.plan.actions.length > 0; i++)
    result = await reconcileApplication(appRef(name), deps);
  return result;
};

const children = (cluster: MemoryCluster): ReadonlyArray<Resource> =>
  cluster.objects().filter((object) => object.kind !== APPLICATION_KIND && object.kind !== 'Namespace');

const setUp = async (install: ReadonlyArray<Resource>, name: string) => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, seed: 3 });
  expect(E.isRight(await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })())).toBe(true);
  expect(E.isRight(await cluster.create(applicationWith(name, install))())).toBe(true);
  return { cluster, clock, deps: depsFor(cluster, clock) };
};

describe('an install with five large CRDs as one Application', () => {
  it('is created, becomes in sync, and its Application stays under etcd’s limit', async () => {
    const install = largeInstall(NS);
    expect(install).toHaveLength(15);
    const { cluster, deps } = await setUp(install, 'argo');
    const result = await settle(deps, 'argo');
    expect(result._tag).toBe('Done');
    if (result._tag !== 'Done') return;
    expect(result.plan.actions).toEqual([]);
    expect(children(cluster)).toHaveLength(15);
    const application = await stored(cluster, 'argo');
    const status = isJsonObject(application.status) ? application.status : {};
    const before = bytes(readStoredStatus(status)); // the earlier form: the three lists as they are
    const after = bytes(status);
    // Recorded in docs/decisions/0023-status-size.md.
    console.info(
      `large install: spec ${bytes(application.spec)} B; status before ${before} B (${(before / bytes(application.spec)).toFixed(2)}x the spec), after ${after} B`,
    );
    expect(before).toBeGreaterThan(2 * MIB); // what the 413s and etcd refusals came from
    expect(after).toBeLessThan(before / 5);
    expect(bytes(application)).toBeLessThan(1.5 * MIB);
  }, 120_000);

  it('reads back exactly the status the operator computed', async () => {
    const { cluster, deps } = await setUp(largeInstall(NS), 'exact');
    await settle(deps, 'exact');
    const written = (await stored(cluster, 'exact')).status;
    const readBack = readStoredStatus(isJsonObject(written) ? written : {});
    // Packing then reading back gives the same JSON, key order included: the plan reads exactly what it wrote.
    expect(JSON.stringify(readStoredStatus(storedStatus(readBack)))).toBe(JSON.stringify(readBack));
    expect(getIn(readBack, ['lastAppliedManifest'])).toHaveLength(15);
    expect(getIn(readBack, ['lastObservedManifest'])).toHaveLength(15);
  }, 120_000);

  it('an Application with its status in the earlier form plans no change and is rewritten in the new form', async () => {
    // Small enough for the earlier form to be stored at all (the full-size install's is 2.3 MB).
    const { cluster, deps } = await setUp(largeInstall(NS, 0.15), 'upgrade');
    await settle(deps, 'upgrade');
    const now = await stored(cluster, 'upgrade');
    const earlier = readStoredStatus(isJsonObject(now.status) ? now.status : {});
    // The status as an operator of the previous release stored it.
    const downgraded = await cluster.updateStatus({ ...now, status: earlier })();
    expect(E.isRight(downgraded)).toBe(true);
    const result = await reconcileApplication(appRef('upgrade'), deps);
    if (result._tag !== 'Done') return expect(result._tag).toBe('Done');
    expect(result.plan.actions).toEqual([]); // nothing re-created, nothing pruned
    // The next status change writes the new form.
    const withExtra = await stored(cluster, 'upgrade');
    const extra = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extra', namespace: NS }, data: { a: 'b' } };
    const spec = isJsonObject(withExtra.spec) ? withExtra.spec : {};
    const manifest = Array.isArray(spec['manifest']) ? spec['manifest'] : [];
    expect(E.isRight(await cluster.update({ ...withExtra, spec: { ...spec, manifest: [...manifest, extra] } })())).toBe(
      true,
    );
    await settle(deps, 'upgrade');
    expect(children(cluster)).toHaveLength(16);
    const rewritten = await stored(cluster, 'upgrade');
    expect(getIn(rewritten, ['status', 'manifests', 'encoding'])).toBe('deflate-base64');
    expect(getIn(rewritten, ['status', 'lastAppliedManifest'])).toBeUndefined();
  }, 120_000);
});

describe('an Application that cannot fit', () => {
  it('is Stalled TooLarge before any child exists: size, limit and how to split', async () => {
    const { cluster, deps } = await setUp(largeInstall(NS, 1.45), 'huge');
    const result = await reconcileApplication(appRef('huge'), deps);
    expect(result._tag).toBe('Failed');
    expect(children(cluster)).toEqual([]);
    const conditions = getIn(await stored(cluster, 'huge'), ['status', 'conditions']);
    const stalled = Array.isArray(conditions)
      ? conditions.find((condition) => isJsonObject(condition) && condition['type'] === 'Stalled')
      : undefined;
    expect(stalled).toMatchObject({ status: 'True', reason: 'TooLarge' });
    const message = isJsonObject(stalled) ? String(stalled['message']) : '';
    expect(message).toMatch(/^Application rollouts\/huge would be \d+\.\d\d MiB stored \(spec /);
    expect(message).toContain(
      "over etcd's limit of 1.50 MiB (--max-request-bytes): split spec.manifest into several Applications",
    );
    // Retried: still nothing created, the same one condition.
    await reconcileApplication(appRef('huge'), deps);
    expect(children(cluster)).toEqual([]);
  }, 120_000);
});

describe('the memory server refuses what kube-apiserver and etcd refuse', () => {
  // A custom resource (an Application): no per-kind size validation stands before etcd's limit,
  // as a ConfigMap's 1 MiB data limit would.
  const configMap = (name: string, size: number): Resource => ({
    apiVersion: APPLICATION_API_VERSION,
    kind: APPLICATION_KIND,
    metadata: { name, namespace: 'default' },
    spec: { manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { blob: 'x'.repeat(size) } }] },
  });

  it('an object over etcd’s 1.5 MiB: 500 etcdserver: request is too large, nothing stored', async () => {
    const cluster = createMemoryCluster();
    const refused = await cluster.create(configMap('big', 1.6 * MIB))();
    expect(E.isLeft(refused) && refused.left).toMatchObject({
      _tag: 'Internal',
      code: 500,
      message: 'etcdserver: request is too large',
    });
    expect(cluster.objects().filter((o) => o.kind === APPLICATION_KIND)).toEqual([]);
    // Just under the limit it is stored; growing it past the limit by an update is refused too.
    const fits = await cluster.create(configMap('fits', 1.4 * MIB))();
    expect(E.isRight(fits)).toBe(true);
    const grown = await cluster.patch(
      { apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace: 'default', name: 'fits' },
      { type: 'merge', body: { spec: { more: 'y'.repeat(0.2 * MIB) } } },
    )();
    expect(E.isLeft(grown) && grown.left.message).toBe('etcdserver: request is too large');
  });

  it('a request body over 3 MiB: 413 Request entity too large', async () => {
    const cluster = createMemoryCluster();
    const refused = await cluster.create(configMap('huge', 3.1 * MIB))();
    expect(E.isLeft(refused) && refused.left).toMatchObject({
      code: 413,
      message: `Request entity too large: limit is ${3 * MIB}`,
    });
  });

  it('the limits are options', async () => {
    const cluster = createMemoryCluster({ maxObjectBytes: 8 * MIB, maxRequestBodyBytes: 8 * MIB });
    expect(E.isRight(await cluster.create(configMap('big', 3.1 * MIB))())).toBe(true);
  });
});

describe('Service cluster IPs', () => {
  const service = (name: string): Resource => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { ports: [{ port: 80 }] },
  });
  const ipOf = (object: JsonObject): unknown => getIn(object, ['spec', 'clusterIP']);

  it('come from 10.96.0.0/12 by default, lowest free first: 300 Services get 300 addresses', async () => {
    const cluster = createMemoryCluster();
    const ips: unknown[] = [];
    for (let i = 0; i < 300; i++) {
      const created = await cluster.create(service(`s${i}`))();
      if (E.isLeft(created)) throw new Error(created.left.message);
      ips.push(ipOf(created.right));
    }
    expect(new Set(ips).size).toBe(300);
    expect(ips[0]).toBe('10.96.0.2'); // 10.96.0.1 is the kubernetes Service's
    expect(ips[299]).toBe('10.96.1.45');
  });

  it('come from the configured range, and an address outside it is refused with the range', async () => {
    const cluster = createMemoryCluster({ serviceClusterIpRange: '172.20.0.0/16' });
    const created = await cluster.create(service('a'))();
    expect(E.isRight(created) && ipOf(created.right)).toBe('172.20.0.2');
    const outside = await cluster.create({
      ...service('b'),
      spec: { clusterIP: '10.96.0.9', ports: [{ port: 80 }] },
    })();
    expect(E.isLeft(outside) && outside.left.message).toContain('The range of valid IPs is 172.20.0.0/16');
  });
});
