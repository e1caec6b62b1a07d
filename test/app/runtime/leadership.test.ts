/**
 * Leadership between two operator replicas on the in-memory cluster, in virtual time: replicas whose
 * wall clocks disagree by minutes never lead together; a partitioned leader loses the lease and a
 * standby takes over; the old leader regains it later and reconciles with a fresh Controller; a
 * leader paused (as by SIGSTOP) past its lease writes nothing after it resumes.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type FaultProfile,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import { startOperator, type Operator } from '../../../app/runtime/operator.js';
import { getIn, type Resource } from '../../../core/internal.js';
import { appRef } from '../model/commands.js';
import { applicationOf, type AppSpec } from '../model/world.js';
import { Replica, timerContexts } from './replica.js';
import { concurrentWrites, recordingCluster, type Write } from './sharding-writes.js';

const run = async (clock: ManualClock, ms: number, step = 100, each?: () => void): Promise<void> => {
  for (let t = 0; t < ms; t += step) {
    await flushMicrotasks();
    await clock.advance(step);
    each?.();
  }
  await flushMicrotasks();
};

const start = (replica: Replica, identity: string): Promise<Operator> =>
  startOperator({
    cluster: replica.cluster,
    clock: replica.clock,
    random: () => 0.5,
    resyncMs: 60_000,
    stopDeadlineMs: 1_000,
    leaderElection: { namespace: 'default', name: 'kreconcile-leader', identity },
  });

const spec = (mode: string): AppSpec => ({
  namespace: 'default',
  name: 'shop',
  children: [
    { kind: 'ConfigMap', name: 'shop-config', data: { mode } },
    { kind: 'ConfigMap', name: 'shop-flags', data: { mode } },
    { kind: 'Service', name: 'shop-web', port: 80 },
  ],
});

const configMode = async (server: MemoryCluster): Promise<unknown> => {
  const got = await server.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'shop-config' })();
  return E.isRight(got) && O.isSome(got.right) ? getIn(got.right.value, ['data', 'mode']) : undefined;
};

const setSpec = async (server: MemoryCluster, mode: string): Promise<void> => {
  const current = await server.get(appRef('default', 'shop'))();
  if (E.isLeft(current) || O.isNone(current.right)) throw new Error('no Application');
  const updated = await server.update({
    ...current.right.value,
    spec: (applicationOf(spec(mode)) as unknown as { spec: Resource['spec'] }).spec,
  })();
  if (E.isLeft(updated)) throw new Error('update failed');
};

/**
 * SIGSTOPs `replica` right after it sends its first ConfigMap create (the create reaches the server; its answer waits).
 */
const pauseAfterFirstConfigMapCreate = (replica: Replica): void => {
  const create = replica.cluster.create;
  let paused = false;
  replica.cluster.create = (object, options) => {
    const task = create(object, options);
    if (paused || object.kind !== 'ConfigMap') return task;
    paused = true;
    return async () => {
      const pending = task();
      replica.pause();
      return pending;
    };
  };
};

/** ConfigMap creates take 1.9 s: within the fence margin, long enough to be on their way when a leader stops. */
const slowCreates: FaultProfile = {
  latency: [{ minMs: 1_900, maxMs: 1_900, kinds: ['ConfigMap'], verbs: ['create'] }],
};

/** A replica (0.5 s retry period) whose writes are recorded in `writes`. */
const startRecorded = (
  server: MemoryCluster,
  writes: Write[],
  identity: string,
  onLostLeadership?: () => void,
): Promise<Operator> =>
  startOperator({
    cluster: recordingCluster(server, identity, writes, () => server.clock.now()),
    clock: server.clock,
    random: () => 0.5,
    leaderElection: { namespace: 'default', name: 'kreconcile-leader', identity, retryPeriodMs: 500 },
    ...(onLostLeadership === undefined ? {} : { onLostLeadership }),
  });

describe('leader election between replicas', () => {
  it('survives minutes of clock skew, hands over on partition, and lets the old leader lead again later', async () => {
    const clock = new ManualClock();
    const server = createMemoryCluster({ clock, seed: 5, workloads: true });
    // A's wall clock is a minute behind, B's a minute and a half ahead: comparing renewTime with the
    // local clock would make B take A's lease at once.
    const a = new Replica(clock, server, -60_000);
    const b = new Replica(clock, server, 90_000);
    let together = 0;
    const watch = (): void => {
      if (operatorA.isLeader() && operatorB.isLeader()) together++;
    };
    const operatorA = await start(a, 'a');
    await run(clock, 3_000);
    expect(operatorA.isLeader()).toBe(true);
    const operatorB = await start(b, 'b');
    await server.create(applicationOf(spec('one')))();
    await run(clock, 60_000, 100, watch);
    expect(operatorB.isLeader()).toBe(false);
    expect(await configMode(server)).toBe('one');

    // A is cut off from the API server: it stops leading within the renew deadline, B takes over.
    a.partitioned = true;
    const cutAt = clock.now();
    let takeoverMs: number | undefined;
    await run(clock, 40_000, 100, () => {
      watch();
      if (takeoverMs === undefined && operatorB.isLeader()) takeoverMs = clock.now() - cutAt;
    });
    expect(operatorA.isLeader()).toBe(false);
    expect(operatorB.isLeader()).toBe(true);
    // Lease 15 s after B last saw A's renewal (at most one 2 s retry period before the cut), plus B's retry period.
    expect(takeoverMs).toBeGreaterThanOrEqual(13_000);
    expect(takeoverMs).toBeLessThanOrEqual(19_000);
    await setSpec(server, 'two');
    await run(clock, 10_000, 100, watch);
    expect(await configMode(server)).toBe('two');

    // A is back but B renews: A stays a standby. B stops (releases the lease): A leads again, with a fresh Controller.
    a.partitioned = false;
    await run(clock, 30_000, 100, watch);
    expect(operatorA.isLeader()).toBe(false);
    const firstTerm = operatorA.controller;
    await operatorB.stop(1_000);
    await run(clock, 5_000, 100, watch);
    expect(operatorA.isLeader()).toBe(true);
    expect(operatorA.controller).not.toBe(firstTerm);
    await setSpec(server, 'three');
    await run(clock, 10_000, 100, watch);
    expect(await configMode(server)).toBe('three');
    expect(operatorA.controller.reconcileCount).toBeGreaterThan(0);
    expect(together).toBe(0);
    await operatorA.stop(1_000);
    expect(clock.pending()).toBe(0);
  });

  it('a leader paused past its lease writes nothing after it resumes', async () => {
    const clock = new ManualClock();
    const server = createMemoryCluster({ clock, seed: 9, workloads: true });
    const a = new Replica(clock, server, 0);
    const b = new Replica(clock, server, 0);
    const operatorA = await start(a, 'a');
    await run(clock, 3_000);
    const operatorB = await start(b, 'b');
    await run(clock, 3_000);
    expect(operatorA.isLeader()).toBe(true);
    // A is stopped (SIGSTOP) right after sending its first create: the rest of the plan is still to do.
    pauseAfterFirstConfigMapCreate(a);
    await server.create(applicationOf(spec('one')))();
    await run(clock, 40_000);
    expect(a.paused).toBe(true);
    expect(operatorB.isLeader()).toBe(true);
    expect(await configMode(server)).toBe('one');
    const writesBefore = a.writes.length;
    // SIGCONT: A's timers, watch events and the answer it was waiting for arrive at once; it has not
    // renewed for 40 s, so the fence refuses every write it attempts.
    a.resume();
    await run(clock, 10_000);
    expect(a.writes.slice(writesBefore)).toEqual([]);
    expect(operatorA.isLeader()).toBe(false);
    await operatorA.stop(1_000);
    await operatorB.stop(1_000);
  });

  it('a term that lost the lease never writes again, even when this process leads again before that term has stopped', async () => {
    // Found by the operator model (writes for team/blog went a-1/term@1 → a-1/term@6 → a-1/term@1):
    // the old term's reconcile, still waiting on a slow create when the lease was lost and regained,
    // sent its stale status write beside the new term's reconcile.
    const clock = new ManualClock();
    const server = createMemoryCluster({ clock, seed: 4, workloads: true });
    const writes: Array<Write & { readonly term: number | undefined }> = [];
    const timers = timerContexts(clock);
    const cluster = recordingCluster(
      server,
      'a',
      [],
      () => clock.now(),
      (write) => {
        if (!write.object.startsWith('Lease/')) writes.push({ ...write, term: timers.current() });
      },
    );
    const operator = await timers.run(() =>
      startOperator({
        cluster,
        clock: timers.clock,
        random: () => 0.5,
        stopDeadlineMs: 5_000,
        leaderElection: { namespace: 'default', name: 'kreconcile-leader', identity: 'a' },
      }),
    );
    await run(clock, 3_000);
    const firstTerm = operator.controller;
    // The Lease cannot be renewed from now on, and creates take 14 s: the reconcile is still waiting
    // for its creates when leadership is lost at the renew deadline (nobody else takes it) …
    const verySlowCreates = {
      latency: [{ minMs: 14_000, maxMs: 14_000, kinds: ['ConfigMap'], verbs: ['create' as const] }],
    };
    server.setFaults({ ...verySlowCreates, errors: [{ rate: 1, tag: 'Internal', kinds: ['Lease'] }] });
    await server.create(
      applicationOf({
        namespace: 'default',
        name: 'shop',
        children: [
          { kind: 'ConfigMap', name: 'shop-config', data: { mode: 'a' } },
          { kind: 'ConfigMap', name: 'shop-flags', data: { mode: 'a' } },
        ],
      }),
    )();
    await run(clock, 11_500);
    expect(operator.isLeader()).toBe(false);
    // … and regained at the next renewal, while the old term's reconcile still waits for its creates.
    server.setFaults(verySlowCreates);
    await run(clock, 30_000);
    expect(operator.isLeader()).toBe(true);
    expect(operator.controller).not.toBe(firstTerm);
    const newTermStarted = writes.findIndex((w) => w.term !== writes[0]?.term);
    expect(newTermStarted).toBeGreaterThan(0);
    expect(
      writes
        .slice(newTermStarted)
        .filter((w) => w.term === writes[0]?.term)
        .map((w) => `${w.verb} ${w.object}`),
    ).toEqual([]);
    expect(await configMode(server)).toBe('a');
    await operator.stop(1_000);
  });

  it.each([
    ['leads again with a new term', false],
    ['exits (as `kreconcile run` does) and begins no term meanwhile', true],
  ])('a leader paused while a standby led and released the lease %s: the old term writes nothing', async (_, exits) => {
    // Found by the operator model (writes for team/blog went a-1/term@1 → b-2/term@12 → a-1/term@1): the
    // paused leader took the released lease back at its first tick after SIGCONT and counted it as a
    // renewal, so the term that planned before the pause was still in force and its retried reconcile wrote.
    const clock = new ManualClock();
    const server = createMemoryCluster({ clock, seed: 9, workloads: true });
    const writes: Array<Write & { readonly term: number | undefined }> = [];
    const a = new Replica(
      clock,
      recordingCluster(
        server,
        'a',
        [],
        () => clock.now(),
        (write) => {
          if (!write.object.startsWith('Lease/')) writes.push({ ...write, term: timers.current() });
        },
      ),
      0,
    );
    const timers = timerContexts(a.clock);
    let exited: Promise<boolean> | undefined;
    const operatorA: Operator = await timers.run(() =>
      startOperator({
        cluster: a.cluster,
        clock: timers.clock,
        random: () => 0.5,
        resyncMs: 60_000,
        stopDeadlineMs: 1_000,
        leaderElection: { namespace: 'default', name: 'kreconcile-leader', identity: 'a' },
        // As the CLI does: the stop begins a moment later (after its promise settles), not in the callback.
        ...(exits
          ? { onLostLeadership: () => void Promise.resolve().then(() => (exited = operatorA.stop(1_000))) }
          : {}),
      }),
    );
    await run(clock, 3_000);
    const operatorB = await start(new Replica(clock, server, 0), 'b');
    await run(clock, 3_000);
    const firstTerm = operatorA.controller;
    // A is stopped (SIGSTOP) right after sending its first create: the rest of its plan is still to do.
    pauseAfterFirstConfigMapCreate(a);
    await server.create(applicationOf(spec('one')))();
    await run(clock, 40_000);
    expect(operatorB.isLeader()).toBe(true);
    const oldTerm = writes[0]?.term;
    // B changes the world, then stops gracefully (releasing the lease) before A gets SIGCONT.
    await setSpec(server, 'two');
    await run(clock, 5_000);
    expect(await configMode(server)).toBe('two');
    await operatorB.stop(1_000);
    const resumedAt = writes.length;
    a.resume();
    await run(clock, 20_000);
    if (exits) {
      expect(exited).toBeDefined();
      expect(operatorA.controller).toBe(firstTerm);
    } else {
      expect(operatorA.isLeader()).toBe(true);
      expect(operatorA.controller).not.toBe(firstTerm);
    }
    expect(
      writes
        .slice(resumedAt)
        .filter((w) => w.term === oldTerm)
        .map((w) => `${w.verb} ${w.object}`),
    ).toEqual([]);
    expect(await configMode(server)).toBe('two');
    await operatorA.stop(1_000);
  });

  it('a leader that stops before its reconciles finished keeps the lease until it expires: its writes still in flight land before a standby takes over', async () => {
    const clock = new ManualClock();
    const server = createMemoryCluster({ clock, seed: 6, workloads: true });
    const writes: Write[] = [];
    const operatorA = await startRecorded(server, writes, 'a');
    await run(clock, 1_000);
    const operatorB = await startRecorded(server, writes, 'b');
    await run(clock, 1_000);
    expect(operatorA.isLeader()).toBe(true);
    // A stops while its create is on the way.
    server.setFaults(slowCreates);
    await server.create(applicationOf(spec('one')))();
    // (Its Lease was created at its start: only a child's create counts.)
    const childCreateSent = () =>
      writes.some((w) => w.replica === 'a' && w.verb === 'create' && !w.object.startsWith('Lease/'));
    for (let i = 0; i < 50 && !childCreateSent(); i++) await run(clock, 100);
    expect(childCreateSent()).toBe(true);
    expect(operatorA.controller.inFlight.size).toBe(1);
    const stopped = operatorA.stop(0);
    await run(clock, 30_000);
    expect(await stopped).toBe(false);
    expect(operatorB.isLeader()).toBe(true);
    expect(concurrentWrites(writes)).toEqual([]);
    expect(await configMode(server)).toBe('one');
    await operatorB.stop(1_000);
  });

  it('a leader that exits after losing the lease (as `kreconcile run` does) leads no new term meanwhile and releases the lease only once its writes have landed', async () => {
    const clock = new ManualClock();
    const server = createMemoryCluster({ clock, seed: 6, workloads: true });
    const writes: Write[] = [];
    let exited: Promise<boolean> | undefined;
    // The API server answers A's Lease calls again just as A gives up.
    const operatorA: Operator = await startRecorded(server, writes, 'a', () => {
      server.setFaults(slowCreates);
      exited = operatorA.stop(5_000);
    });
    await run(clock, 1_000);
    const operatorB = await startRecorded(server, writes, 'b');
    await run(clock, 1_000);
    expect(operatorA.isLeader()).toBe(true);
    // A's Lease calls fail until it gives up at the renew deadline, while its creates take 1.9 s.
    server.setFaults({
      ...slowCreates,
      errors: [{ rate: 1, tag: 'Internal' as const, kinds: ['Lease'], verbs: ['get' as const, 'update' as const] }],
    });
    // The Application comes a second before A gives up: its creates are on their way when it does.
    await run(clock, 9_500);
    await server.create(applicationOf(spec('one')))();
    await run(clock, 10_000);
    expect(exited).toBeDefined();
    await run(clock, 30_000);
    expect(operatorB.isLeader()).toBe(true);
    expect(concurrentWrites(writes)).toEqual([]);
    await operatorB.stop(1_000);
  });

  it('a stopped Controller refuses to start again, clearly', async () => {
    const clock = new ManualClock();
    const server = createMemoryCluster({ clock, seed: 2 });
    const controller = new Controller({ cluster: server, clock, random: () => 0.5, events: false });
    await controller.start();
    await controller.stop(0);
    await expect(controller.start()).rejects.toThrow(/create a new Controller/);
    expect(clock.pending()).toBe(0);
  });
});
