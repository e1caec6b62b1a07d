/**
 * The operator holds a brand-new Application's first progress status while its children become
 * ready (core/status/first-status.ts, docs/behaviour.md §5), on the memory cluster with a manual
 * clock: a rollout ready within the grace costs one status write (Ready=True); one that is not gets
 * `Ready=False WaitingForReadiness` when the grace ends, not before, also when another operator
 * process takes over during the hold (the grace counts from the children's creation, which the
 * cluster records); a grace of 0 writes it at once.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { settledStatus } from '../../../adapters/memory/controllers/workload-controllers.js';
import { Controller } from '../../../app/runtime/controller.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  conditionOf,
  type ApplicationStatus,
  type Cluster,
  type JsonValue,
  type ObjectRef,
  type Resource,
} from '../../../core/internal.js';
import { applicationObjects } from '../../../bench/fleet-objects.js';
import { runUntil } from '../../support/operator-clock.js';

const NAMESPACE = 'fleet';
const GRACE_MS = 5_000;

/** `cluster` with every status write of an Application kept, in order, with the clock's time it was sent at. */
const recordingStatusWrites = (
  cluster: MemoryCluster,
  clock: ManualClock,
  writes: Array<{ readonly name: string; readonly at: number; readonly value: JsonValue | undefined }>,
): Cluster => ({
  ...cluster,
  patchStatus: (ref, patch) => {
    const operation = patch.type === 'json' ? patch.operations[0] : undefined;
    if (ref.kind === APPLICATION_KIND && operation !== undefined)
      writes.push({ name: ref.name, at: clock.now(), value: 'value' in operation ? operation.value : undefined });
    return cluster.patchStatus(ref, patch);
  },
});

const readyOf = (value: JsonValue | undefined) =>
  conditionOf((value as ApplicationStatus | undefined)?.conditions, 'Ready');

type Fleet = {
  readonly clock: ManualClock;
  readonly server: MemoryCluster;
  readonly writes: Array<{ readonly name: string; readonly at: number; readonly value: JsonValue | undefined }>;
  readonly controller: Controller;
  readonly startedAt: number;
};

/** `count` new Applications of the fleet benchmark's 4 children, then a cold operator with `progressStatusAfterMs`. */
const fleet = async (options: {
  readonly count: number;
  readonly workloads: boolean;
  readonly progressStatusAfterMs?: number;
}): Promise<Fleet> => {
  const clock = new ManualClock();
  const server = createMemoryCluster({ clock, seed: 3, workloads: options.workloads });
  await server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })();
  for (let i = 0; i < options.count; i++)
    await server.create({
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      metadata: { name: `app-${i}`, namespace: NAMESPACE },
      spec: { manifest: applicationObjects('flux', i, NAMESPACE) },
    })();
  const writes: Fleet['writes'] = [];
  const controller = operatorOn(server, clock, writes, options.progressStatusAfterMs);
  const startedAt = clock.now();
  await controller.start();
  return { clock, server, writes, controller, startedAt };
};

/** An operator process on `server` (not started), its Applications' status writes recorded in `writes`. */
const operatorOn = (
  server: MemoryCluster,
  clock: ManualClock,
  writes: Fleet['writes'],
  progressStatusAfterMs: number | undefined,
): Controller =>
  new Controller({
    cluster: recordingStatusWrites(server, clock, writes),
    clock,
    random: () => 0.5,
    workers: 2,
    resyncMs: 0,
    namespace: NAMESPACE,
    planOptions: { readiness: 'kstatus' },
    ...(progressStatusAfterMs === undefined ? {} : { progressStatusAfterMs }),
  });

const storedReady = (server: MemoryCluster, name: string) =>
  conditionOf(
    (
      server.objects().find((o) => o.kind === APPLICATION_KIND && o.metadata.name === name)?.status as
        ApplicationStatus | undefined
    )?.conditions,
    'Ready',
  );

const deploymentOf = (server: MemoryCluster, name: string): Resource | undefined =>
  server.objects().find((o) => o.kind === 'Deployment' && o.metadata.name === name);

describe('a new Application whose children become ready within the grace', () => {
  it('gets exactly one status write, Ready=True (the default grace)', async () => {
    const count = 6;
    const { clock, server, writes, controller } = await fleet({ count, workloads: true });
    const names = Array.from({ length: count }, (_, i) => `app-${i}`);
    await runUntil(clock, () => names.every((name) => storedReady(server, name)?.status === 'True'));
    // Anything a late requeue would write is sent within the grace.
    await runUntil(clock, () => false, GRACE_MS * 2);
    await controller.stop(0);
    for (const name of names) {
      const own = writes.filter((write) => write.name === name);
      expect(own.map((write) => readyOf(write.value)?.status)).toEqual(['True']);
    }
  });
});

describe('a new Application whose children are not ready within the grace', () => {
  it('gets Ready=False WaitingForReadiness when the grace ends, not before; Ready=True once the Deployment is', async () => {
    const { clock, server, writes, controller, startedAt } = await fleet({ count: 1, workloads: false });
    await runUntil(clock, () => writes.length > 0, 30_000);
    expect(writes).toHaveLength(1);
    const first = writes[0];
    expect(readyOf(first?.value)).toMatchObject({ status: 'False', reason: 'WaitingForReadiness' });
    // Counted from the children's creation (whole seconds, server time): after at most the grace,
    // after a second less at the least (the creation time's fraction is not recorded).
    const created = Date.parse(deploymentOf(server, 'app-0')?.metadata.creationTimestamp ?? '');
    expect(created).toBeGreaterThanOrEqual(startedAt - 1_000);
    expect(first?.at).toBeGreaterThanOrEqual(created + GRACE_MS);
    expect(first?.at).toBeLessThanOrEqual(startedAt + GRACE_MS + 200);
    // The Deployment's controller reports the rollout: Ready=True, the second and last write.
    const deployment = deploymentOf(server, 'app-0');
    const ref: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NAMESPACE, name: 'app-0' };
    const status =
      deployment === undefined ? undefined : settledStatus(deployment, new Date(clock.now()).toISOString());
    expect(status).toBeDefined();
    const reported = await server.patchStatus(ref, { type: 'merge', body: { status: status ?? {} } })();
    expect(E.isRight(reported)).toBe(true);
    await runUntil(clock, () => storedReady(server, 'app-0')?.status === 'True');
    await runUntil(clock, () => false, GRACE_MS * 2);
    await controller.stop(0);
    expect(writes.map((write) => readyOf(write.value)?.status)).toEqual(['False', 'True']);
  });

  it('with a grace of 0, gets WaitingForReadiness written at once (as before the grace existed)', async () => {
    const { clock, writes, controller, startedAt } = await fleet({
      count: 1,
      workloads: false,
      progressStatusAfterMs: 0,
    });
    await runUntil(clock, () => writes.length > 0, 30_000);
    await controller.stop(0);
    expect(readyOf(writes[0]?.value)).toMatchObject({ status: 'False', reason: 'WaitingForReadiness' });
    expect(writes[0]?.at).toBeLessThan(startedAt + 1_000);
  });

  it('an operator process started during the hold counts from the same creation, not from its own start', async () => {
    const { clock, server, writes, controller } = await fleet({ count: 1, workloads: false });
    await runUntil(clock, () => deploymentOf(server, 'app-0') !== undefined);
    const created = Date.parse(deploymentOf(server, 'app-0')?.metadata.creationTimestamp ?? '');
    // The first process dies 3 s into the hold (nothing written), a second one starts.
    await runUntil(clock, () => false, 3_000);
    expect(writes).toEqual([]);
    await controller.stop(0);
    const restartedAt = clock.now();
    const second = operatorOn(server, clock, writes, undefined);
    await second.start();
    await runUntil(clock, () => writes.length > 0, 30_000);
    await second.stop(0);
    expect(readyOf(writes[0]?.value)).toMatchObject({ status: 'False', reason: 'WaitingForReadiness' });
    expect(writes[0]?.at).toBeGreaterThanOrEqual(created + GRACE_MS);
    expect(writes[0]?.at).toBeLessThan(restartedAt + GRACE_MS);
  });
});
