/**
 * A reconcile waits for the child caches it reads, bounded (issue 26): on a cluster whose child
 * lists answer late, a cold operator's first reconciles read from the caches once they are synced
 * and send no list or get of their own; a kind whose first list never answers holds back only the
 * Applications naming it, up to the bound; a kind whose list is forbidden holds back nobody.
 * Then a namespaced operator: its child watches carry the namespaces its Applications may write in.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { converged, type ReconcileResult } from '../../../app/reconcile/reconcile-application.js';
import { Controller, type ControllerOptions } from '../../../app/runtime/controller.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  conditionOf,
  type Cluster,
  type ClusterError,
  type ListQuery,
  type Resource,
} from '../../../core/internal.js';
import { runUntil } from '../../support/operator-clock.js';

const NAMESPACE = 'fleet';

const configMap = (name: string, namespace?: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  data: { a: '1' },
});
const service = (name: string): Resource => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { ports: [{ port: 80 }] },
});

/** Every read of a child kind: `verb Kind namespace` (`*` for every namespace). */
type Reads = Array<string>;

/**
 * `server` as the operator sees it: reads recorded; a child kind's list answered `delayOf(query, n)`
 * ms late (n: the how-manieth list of that kind), or refused with `refuse(query)`.
 */
const throughSlowLists = (
  server: MemoryCluster,
  clock: ManualClock,
  reads: Reads,
  delayOf: (query: ListQuery, n: number) => number,
  refuse: (query: ListQuery) => ClusterError | undefined = () => undefined,
): Cluster => {
  const lists = new Map<string, number>();
  const child = (query: { readonly kind: string }) => query.kind !== APPLICATION_KIND;
  return {
    ...server,
    get: (ref) => {
      if (child(ref)) reads.push(`get ${ref.kind} ${ref.namespace ?? '*'}`);
      return server.get(ref);
    },
    list: (query) => () => {
      if (!child(query)) return server.list(query)();
      reads.push(`list ${query.kind} ${query.namespace ?? '*'}`);
      const refused = refuse(query);
      if (refused !== undefined) return Promise.resolve(E.left(refused));
      const n = (lists.get(query.kind) ?? 0) + 1;
      lists.set(query.kind, n);
      const delay = delayOf(query, n);
      return new Promise((resolve) => {
        clock.setTimer(delay, () => void server.list(query)().then(resolve));
      });
    },
    watch: (query, sink) => {
      if (child(query)) reads.push(`watch ${query.kind} ${query.namespace ?? '*'}`);
      const refused = refuse(query);
      if (refused === undefined) return server.watch(query, sink);
      sink.closed(refused);
      return { stop: () => undefined };
    },
  };
};

const forbidden = (query: ListQuery): ClusterError => ({
  _tag: 'Forbidden',
  code: 403,
  message: `${query.kind.toLowerCase()}s is forbidden: cannot list resource at the cluster scope`,
});

const serverWith = async (
  clock: ManualClock,
  namespaces: ReadonlyArray<string>,
  applications: ReadonlyArray<{ readonly name: string; readonly manifest: ReadonlyArray<Resource> }>,
): Promise<MemoryCluster> => {
  const server = createMemoryCluster({ clock, seed: 3 });
  for (const name of namespaces) await server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })();
  for (const { name, manifest } of applications)
    await server.create({
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      metadata: { name, namespace: namespaces[0] ?? NAMESPACE },
      spec: { manifest: [...manifest] },
    })();
  return server;
};

/** A started controller on `cluster`: when each key was first reconciled, and which keys converged. */
const startController = async (
  cluster: Cluster,
  clock: ManualClock,
  options: Partial<ControllerOptions> = {},
): Promise<{
  readonly controller: Controller;
  readonly firstReconciledAt: Map<string, number>;
  readonly results: Map<string, ReconcileResult>;
  readonly ready: Set<string>;
}> => {
  const firstReconciledAt = new Map<string, number>();
  const results = new Map<string, ReconcileResult>();
  const ready = new Set<string>();
  const controller = new Controller({
    cluster,
    clock,
    random: () => 0.5,
    workers: 4,
    resyncMs: 0,
    namespace: NAMESPACE,
    events: false,
    ...options,
    planOptions: { readiness: 'existence', ...options.planOptions },
    onReconciled: (key, result) => {
      if (!firstReconciledAt.has(key)) firstReconciledAt.set(key, clock.now());
      results.set(key, result);
      if (converged(result)) ready.add(key);
    },
  });
  await controller.start();
  return { controller, firstReconciledAt, results, ready };
};

describe('a reconcile waits for the child caches it reads, bounded', () => {
  it('child lists answering late: the first reconciles come after the caches synced and read nothing directly', async () => {
    const clock = new ManualClock(0);
    const applications = Array.from({ length: 8 }, (_, i) => ({
      name: `app-${i}`,
      manifest: [configMap(`config-${i}`), service(`web-${i}`)],
    }));
    const server = await serverWith(clock, [NAMESPACE], applications);
    const reads: Reads = [];
    const { controller, firstReconciledAt, ready } = await startController(
      throughSlowLists(server, clock, reads, () => 2_000),
      clock,
    );
    await runUntil(clock, () => ready.size === applications.length);
    await controller.stop(0);
    expect(ready.size).toBe(applications.length);
    // One list and one watch per kind (the informers'), in the operator's namespace; no get, no other list.
    expect(reads.sort()).toEqual([
      `list ConfigMap ${NAMESPACE}`,
      `list Service ${NAMESPACE}`,
      `watch ConfigMap ${NAMESPACE}`,
      `watch Service ${NAMESPACE}`,
    ]);
    for (const at of firstReconciledAt.values()) expect(at).toBeGreaterThanOrEqual(2_000);
  });

  it('a kind whose first list never answers holds back only the Applications naming it, up to the bound', async () => {
    const clock = new ManualClock(0);
    const server = await serverWith(
      clock,
      [NAMESPACE],
      [
        { name: 'stuck', manifest: [configMap('config')] },
        { name: 'free', manifest: [service('web')] },
      ],
    );
    const reads: Reads = [];
    // The informer's first ConfigMap list answers after 10 minutes; every later list (direct reads) at once.
    const slow = throughSlowLists(server, clock, reads, (query, n) =>
      query.kind === 'ConfigMap' && n === 1 ? 600_000 : 0,
    );
    const { controller, firstReconciledAt, ready } = await startController(slow, clock, { childCacheWaitMs: 3_000 });
    await runUntil(clock, () => ready.size === 2, 20_000);
    await controller.stop(0);
    expect(ready).toEqual(new Set([`${NAMESPACE}/stuck`, `${NAMESPACE}/free`]));
    expect(firstReconciledAt.get(`${NAMESPACE}/free`)).toBeLessThan(500);
    // Waited for its cache up to the bound, then read ConfigMaps directly (the cache still unsynced).
    expect(firstReconciledAt.get(`${NAMESPACE}/stuck`)).toBeGreaterThanOrEqual(3_000);
    expect(firstReconciledAt.get(`${NAMESPACE}/stuck`)).toBeLessThan(4_000);
    expect(reads.filter((read) => read.startsWith('list ConfigMap')).length).toBeGreaterThan(1);
    // A namespaced operator reads directly in its namespace too, never cluster-wide.
    expect(reads.filter((read) => read.endsWith(' *'))).toEqual([]);
  });

  it('a kind whose list is forbidden holds back nobody: its Applications fail at once, the others converge', async () => {
    const clock = new ManualClock(0);
    const server = await serverWith(
      clock,
      [NAMESPACE],
      [
        { name: 'denied', manifest: [configMap('config')] },
        { name: 'free', manifest: [service('web')] },
      ],
    );
    const reads: Reads = [];
    const denying = throughSlowLists(
      server,
      clock,
      reads,
      () => 100,
      (query) => (query.kind === 'ConfigMap' ? forbidden(query) : undefined),
    );
    const { controller, firstReconciledAt, results, ready } = await startController(denying, clock, {
      childCacheWaitMs: 60_000,
    });
    await runUntil(clock, () => ready.has(`${NAMESPACE}/free`) && results.has(`${NAMESPACE}/denied`), 5_000);
    await controller.stop(0);
    expect(ready.has(`${NAMESPACE}/free`)).toBe(true);
    // Read directly at once, refused: Stalled Forbidden (a refused read is reported, not retried blind).
    const denied = results.get(`${NAMESPACE}/denied`);
    const stalled = denied?._tag === 'Done' ? conditionOf(denied.status.conditions, 'Stalled') : undefined;
    expect(stalled?.reason).toBe('Forbidden');
    expect(firstReconciledAt.get(`${NAMESPACE}/denied`)).toBeLessThan(1_000);
  });
});

describe('a namespaced operator watches namespaced child kinds where its Applications may write', () => {
  const clusterRole = (name: string): Resource => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules: [],
  });

  it('its own namespace and the policy destinations per namespace, cluster-scoped kinds cluster-wide; a cross-namespace child is still pruned', async () => {
    const clock = new ManualClock(0);
    const team = 'team-a';
    const server = await serverWith(
      clock,
      [team, 'team-a-db', 'other'],
      [{ name: 'web', manifest: [configMap('here'), configMap('there', 'team-a-db'), clusterRole('team-a-reader')] }],
    );
    const reads: Reads = [];
    const { controller, ready } = await startController(
      throughSlowLists(server, clock, reads, () => 0),
      clock,
      {
        namespace: team,
        planOptions: {
          tenancy: {
            destinations: [{ from: team, to: ['team-a-db'] }],
            clusterKinds: [{ from: team, kinds: ['rbac.authorization.k8s.io/ClusterRole'] }],
          },
        },
      },
    );
    await runUntil(clock, () => ready.size === 1);
    expect(ready.size).toBe(1);
    expect([...new Set(reads)].sort()).toEqual([
      'list ClusterRole *',
      'list ConfigMap team-a',
      'list ConfigMap team-a-db',
      'watch ClusterRole *',
      'watch ConfigMap team-a',
      'watch ConfigMap team-a-db',
    ]);
    const created = await server.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a-db', name: 'there' })();
    expect(E.isRight(created) && created.right._tag === 'Some').toBe(true);
    // The child in team-a-db leaves the manifest: found in its namespace's cache and pruned.
    const application = await server.get({
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      namespace: team,
      name: 'web',
    })();
    if (E.isLeft(application) || application.right._tag === 'None') throw new Error('the Application is gone');
    await server.update({
      ...application.right.value,
      spec: { manifest: [configMap('here'), clusterRole('team-a-reader')] },
    })();
    await runUntil(clock, () => false, 3_000);
    const there = await server.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a-db', name: 'there' })();
    const pruned = E.isRight(there) && there.right._tag === 'None';
    await controller.stop(0);
    expect(pruned).toBe(true);
    expect(reads.filter((read) => read.endsWith(' *') && read.includes('ConfigMap'))).toEqual([]);
  });

  it('a destination "*" (or no namespace) watches every namespace at once', async () => {
    for (const options of [
      { namespace: 'team-a', planOptions: { tenancy: { destinations: [{ from: 'team-a', to: ['*'] }] } } },
      { namespace: undefined },
    ] as const) {
      const clock = new ManualClock(0);
      const server = await serverWith(clock, ['team-a'], [{ name: 'web', manifest: [configMap('here')] }]);
      const reads: Reads = [];
      const { namespace, ...rest } = options;
      const { controller, ready } = await startController(
        throughSlowLists(server, clock, reads, () => 0),
        clock,
        {
          ...rest,
          ...(namespace === undefined ? { namespace: '' } : { namespace }),
        },
      );
      await runUntil(clock, () => ready.size === 1);
      await controller.stop(0);
      expect(ready.size).toBe(1);
      expect([...new Set(reads)].sort()).toEqual(['list ConfigMap *', 'watch ConfigMap *']);
    }
  });
});
