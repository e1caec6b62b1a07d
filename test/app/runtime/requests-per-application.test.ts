/**
 * What a cold operator sends the API server per new Application (issue 26 item 5), counted on the
 * memory cluster: the floor for N children is N + 2 writes (the finalizer, the creates, one status
 * write) plus one aggregated Event. The kinds about to be created ride on the finalizer's patch
 * (no status write of their own); a child not ready when the creates are answered but ready within
 * the first-status grace costs nothing more (the progress status is held: docs/behaviour.md §5);
 * without the grace it costs one more status write (Ready=False WaitingForReadiness, then Ready=True).
 */
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import { converged } from '../../../app/reconcile/reconcile-application.js';
import { Controller } from '../../../app/runtime/controller.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type Cluster } from '../../../core/internal.js';
import { applicationObjects } from '../../../bench/fleet-objects.js';

const APPLICATIONS = 12;
const NAMESPACE = 'fleet';

/**
 * Every call of `cluster` (the runtime's one way to the API server) as `verb Kind`, per Application where it names one.
 */
const counting = (cluster: MemoryCluster, calls: string[]): Cluster => {
  const note =
    <A extends unknown[], R>(verb: string, describe: (...args: A) => string, call: (...args: A) => R) =>
    (...args: A): R => {
      calls.push(`${verb} ${describe(...args)}`);
      return call(...args);
    };
  return {
    get: note('get', (ref) => ref.kind, cluster.get),
    list: note('list', (query) => query.kind, cluster.list),
    watch: note('watch', (query) => query.kind, cluster.watch),
    scopeOf: note('discovery', (_apiVersion, kind) => kind, cluster.scopeOf),
    create: note('create', (object) => object.kind, cluster.create),
    update: note('update', (object) => object.kind, cluster.update),
    patch: note('patch', (ref) => ref.kind, cluster.patch),
    delete: note('delete', (ref) => ref.kind, cluster.delete),
    updateStatus: note('updateStatus', (object) => object.kind, cluster.updateStatus),
    patchStatus: note('patchStatus', (ref) => ref.kind, cluster.patchStatus),
  };
};

/** A cold operator converging APPLICATIONS new Applications of the fleet benchmark's 4 children: the calls it made. */
const coldStart = async (
  readiness: 'existence' | 'kstatus',
  progressStatusAfterMs?: number,
): Promise<ReadonlyArray<string>> => {
  const clock = new ManualClock();
  const server = createMemoryCluster({ clock, seed: 7, workloads: true });
  await server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })();
  for (let i = 0; i < APPLICATIONS; i++)
    await server.create({
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      metadata: { name: `app-${i}`, namespace: NAMESPACE },
      spec: { manifest: applicationObjects('flux', i, NAMESPACE) },
    })();
  const calls: string[] = [];
  const ready = new Set<string>();
  const controller = new Controller({
    cluster: counting(server, calls),
    clock,
    random: () => 0.5,
    workers: 4,
    resyncMs: 0,
    namespace: NAMESPACE,
    planOptions: { readiness },
    ...(progressStatusAfterMs === undefined ? {} : { progressStatusAfterMs }),
    onReconciled: (key, result) => {
      if (converged(result)) ready.add(key);
    },
  });
  await controller.start();
  for (let t = 0; t < 60_000 && ready.size < APPLICATIONS; t += 100) {
    await flushMicrotasks();
    await clock.advance(100);
  }
  // A little longer: anything sent after the last Ready counts too.
  for (let t = 0; t < 5_000; t += 100) {
    await flushMicrotasks();
    await clock.advance(100);
  }
  await controller.stop(0);
  expect(ready.size).toBe(APPLICATIONS);
  return calls;
};

const perApplication = (calls: ReadonlyArray<string>, call: string): number =>
  calls.filter((c) => c === call).length / APPLICATIONS;

describe('requests per new Application from a cold operator', () => {
  it('at the floor when every child is ready once created: finalizer, 4 creates, one status write, one Event', async () => {
    const calls = await coldStart('existence');
    expect(perApplication(calls, 'patch Application')).toBe(1);
    expect(perApplication(calls, 'patchStatus Application')).toBe(1);
    for (const kind of ['Deployment', 'Service', 'ServiceAccount', 'ConfigMap'])
      expect(perApplication(calls, `create ${kind}`)).toBe(1);
    expect(perApplication(calls, 'create Event')).toBe(1);
    // Start-up reads are per kind, not per Application: a list and a watch for each of the 5 kinds.
    const perKind = calls.filter((c) => /^(list|watch|get|discovery) /.test(c));
    expect(perKind.length).toBeLessThanOrEqual(10);
    expect(calls.length).toBe(APPLICATIONS * 7 + perKind.length);
  });

  it('a Deployment not ready when created but ready within the grace: at the floor too', async () => {
    const calls = await coldStart('kstatus');
    expect(perApplication(calls, 'patch Application')).toBe(1);
    expect(perApplication(calls, 'patchStatus Application')).toBe(1);
    expect(perApplication(calls, 'create Event')).toBe(1);
    const perKind = calls.filter((c) => /^(list|watch|get|discovery) /.test(c));
    expect(calls.length).toBe(APPLICATIONS * 7 + perKind.length);
  });

  it('without the grace: one more status write (Ready=False, then Ready=True), nothing else', async () => {
    const calls = await coldStart('kstatus', 0);
    expect(perApplication(calls, 'patch Application')).toBe(1);
    expect(perApplication(calls, 'patchStatus Application')).toBe(2);
    expect(perApplication(calls, 'create Event')).toBe(1);
    const perKind = calls.filter((c) => /^(list|watch|get|discovery) /.test(c));
    expect(calls.length).toBe(APPLICATIONS * 8 + perKind.length);
  });
});
