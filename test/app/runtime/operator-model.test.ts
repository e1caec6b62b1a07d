/**
 * Model-based test (fc.commands) of two operator processes with leader election on the in-memory
 * cluster, in virtual time: replicas whose wall clocks disagree (and get stepped) are paused past
 * their lease (SIGSTOP) and resumed, killed (SIGKILL) and restarted, stopped gracefully, cut off
 * from the API server; the API server restarts, watches expire (410 Gone) in the middle of a
 * reconcile, faults come and go; users create, change and delete Applications, some of them
 * malformed, and another actor edits children.
 *
 * Checked while it runs: no write reaches the API server from a process the Lease does not name
 * (the write fence); the writes for one Application never interleave between two leadership terms
 * (of two processes, or two terms of one), nor overlap in flight between processes; an older term
 * never writes once a newer one did; no reconcile of a key starts while it is in flight.
 * Checked once the faults stop: every well-formed Application converges, malformed ones are
 * `Stalled InvalidSpec` naming the path, nothing is orphaned, and no `HotLoop` without a competing
 * writer. Latencies stay within the fence margin (see MAX_LATENCY_MS).
 * Replay a failure with KRECONCILE_SEED=<seed> KRECONCILE_PATH=<first number of the path>.
 */
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  faultProfiles,
  flushMicrotasks,
  type FaultProfile,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import { intentKindsOf } from '../../../app/reconcile/intent-kinds.js';
import { Controller } from '../../../app/runtime/controller.js';
import { startOperator, type Operator } from '../../../app/runtime/operator.js';
import { drive } from '../../../app/testing/drive.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  OWNER_ANNOTATION,
  clusterError,
  getIn,
  type Cluster,
  type Resource,
} from '../../../core/internal.js';
import { jsonEqual, type JsonValue } from '../../../core/json/json.js';
import {
  CreateApp,
  DeleteApp,
  EditChild,
  UpdateApp,
  appRef,
  specArbitrary,
  truth,
  type Model,
} from '../model/commands.js';
import { APP_NAMES, NAMESPACES, applicationOf, childrenArbitrary, problems, type AppSpec } from '../model/world.js';
import { Replica, timerContexts } from './replica.js';
import { applicationOfWrite, concurrentWrites, recordingCluster, type Write } from './sharding-writes.js';
import { withReadableStatus } from '../../../app/status/stored-status.js';

type Slot = 'a' | 'b';
const SLOTS: ReadonlyArray<Slot> = ['a', 'b'];
const LEASE = { namespace: 'default', name: 'kreconcile-leader' };

/**
 * One operator process: its identity (new at every start, as client-go's `hostname_uuid`), its view of the world, every
 * Controller it ran.
 */
type OperatorProcess = {
  readonly id: string;
  readonly slot: Slot;
  readonly replica: Replica;
  readonly operator: Operator;
  readonly controllers: Controller[];
  stopped: boolean;
  /**
   * The async context a write was sent from: one per leadership term (its workers start from one elector tick); later
   * terms have larger numbers.
   */
  readonly context: () => number | undefined;
  /** The newest term that has written so far. */
  newestWriter: number;
};

type Real = {
  cluster: MemoryCluster;
  clock: ManualClock;
  seed: number;
  /** How often the processes try to acquire or renew the lease (lease 15 s, renew deadline 10 s, fence margin 2 s). */
  retryPeriodMs: number;
  /**
   * Processes exit when they lose the lease and are restarted, as `kreconcile run` does (else they keep campaigning, as
   * embedders' do).
   */
  exitOnLoss: boolean;
  /** The process in each slot now (the last one started there). */
  processes: Map<Slot, OperatorProcess>;
  /** Every process ever started. */
  all: OperatorProcess[];
  started: number;
  writes: Write[];
  /**
   * Per Application key: the leadership terms (of any process) that wrote for it, in the order their writes were sent
   * (runs of one collapsed).
   */
  writers: Map<string, string[]>;
  violations: string[];
  hotLoops: number;
  /** Expire every watch at the next write a reconcile sends. */
  expireAtNextWrite: boolean;
  /** SIGSTOP this process right after it sends its next write (mid-reconcile). */
  pauseAtNextWrite: OperatorProcess | undefined;
  /** Writes sent so far by any process (Leases aside). */
  sent: number;
};

/** A malformed spec, and the path its `Stalled InvalidSpec` message must name. */
type Malformed = { readonly spec: JsonValue; readonly path: string };
/**
 * Malformed Applications; `held`: the children one had when a user broke it (it holds them, and any others it owned, as
 * they are).
 */
type OperatorModel = Model & { malformed: Map<string, Malformed & { readonly held?: AppSpec['children'] }> };

const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'broken-config' }, data: { mode: 'a' } };
const MALFORMED: ReadonlyArray<Malformed> = [
  { spec: { manifest: [configMap], hooks: 'complete' }, path: 'spec.hooks' },
  { spec: { manifest: 'oops' }, path: 'spec.manifest' },
  { spec: { manifest: [{ apiVersion: 'v1', metadata: { name: 'broken-config' } }] }, path: 'spec.manifest[0].kind' },
  {
    spec: { manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }] },
    path: 'spec.manifest[0].metadata.name',
  },
  { spec: { manifest: [configMap], adopt: 'yes' }, path: 'spec.adopt' },
  { spec: { manifest: [] }, path: 'spec' },
  { spec: 'hello', path: 'spec' },
];
const BROKEN_NAMES = ['broken', 'mangled'];

/** The holder the stored Lease names right now ('' when released or not created). */
const leaseHolder = (cluster: MemoryCluster): string => {
  const lease = cluster
    .objects()
    .find((o) => o.kind === 'Lease' && o.metadata.namespace === LEASE.namespace && o.metadata.name === LEASE.name);
  const holder = getIn(lease ?? {}, ['spec', 'holderIdentity']);
  return typeof holder === 'string' ? holder : '';
};

/** Remembers the Controller of the process's current term (a new one starts each time it leads). */
const noteController = (op: OperatorProcess): void => {
  const current = op.operator.controller;
  if (!op.controllers.includes(current)) op.controllers.push(current);
};

/**
 * Checks one write as it is sent: the fence (the Lease names the sender), and that the writes for
 * one Application never go back to a term after another term (of this or another process) wrote
 * for it — within a term, the queue keeps reconciles of one key apart (`concurrentReconciles`).
 */
const checkWrite = (real: Real, op: OperatorProcess, write: Write): void => {
  if (write.object.startsWith('Lease/')) return;
  const holder = leaseHolder(real.cluster);
  if (holder !== op.id)
    real.violations.push(
      `${op.id} sent ${write.verb} ${write.object} at ${write.sentAt} while the Lease names ${holder || 'nobody'}`,
    );
  const key = applicationOfWrite(write);
  real.sent++;
  const context = op.context() ?? 0;
  if (context < op.newestWriter)
    real.violations.push(
      `${op.id}: term@${context} sent ${write.verb} ${write.object} at ${write.sentAt} after its newer term@${op.newestWriter} had written`,
    );
  op.newestWriter = Math.max(op.newestWriter, context);
  // Events name no Application key here; the checks above covered them.
  if (key === undefined) return;
  const term = `${op.id}/term@${context}`;
  const writers = real.writers.get(key) ?? [];
  if (writers.at(-1) !== term) {
    if (writers.includes(term))
      real.violations.push(
        `writes for ${key} interleave: ${[...writers.slice(-3), term].join(' → ')} (${write.verb} ${write.object} at ${write.sentAt})`,
      );
    real.writers.set(key, [...writers, term]);
  }
  if (real.expireAtNextWrite) {
    real.expireAtNextWrite = false;
    real.cluster.expireWatches();
  }
  if (real.pauseAtNextWrite === op) {
    real.pauseAtNextWrite = undefined;
    op.replica.pause();
  }
};

const seeded = (seed: number): (() => number) => {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
};

const startProcess = async (real: Real, slot: Slot, skewMs: number): Promise<void> => {
  const id = `${slot}-${++real.started}`;
  let self: OperatorProcess | undefined;
  const replica = new Replica(
    real.clock,
    recordingCluster(
      real.cluster,
      id,
      real.writes,
      () => real.clock.now(),
      (write) => {
        if (self !== undefined) checkWrite(real, self, write);
        else if (!write.object.startsWith('Lease/'))
          real.violations.push(`${id} sent ${write.verb} ${write.object} before it was started`);
      },
    ),
    skewMs,
  );
  const timers = timerContexts(replica.clock);
  const startedAt = real.clock.now();
  const operator = await timers.run(() =>
    startOperator({
      cluster: replica.cluster,
      clock: timers.clock,
      random: seeded(real.seed + real.started),
      workers: 2,
      resyncMs: 30_000,
      stopDeadlineMs: 5_000,
      // No admission-policy check: its reads would wait on this model's clock before the start returns,
      // and approvals are not modelled (guard-operator.test.ts covers the check).
      admissionPolicies: false,
      leaderElection: { ...LEASE, identity: id, retryPeriodMs: real.retryPeriodMs },
      ...(real.exitOnLoss
        ? {
            onLostLeadership: () => {
              void exitAndRestart(real, slot);
            },
          }
        : {}),
      // Like performance.now: starts at the process's start, runs on while it is stopped, ignores wall-clock steps.
      monotonic: () => real.clock.now() - startedAt,
      onReconciled: (_key, result) => {
        if (
          result._tag !== 'Gone' &&
          result.plan?.outcome._tag === 'RequeueAfter' &&
          result.plan.outcome.reason === 'HotLoop'
        )
          real.hotLoops++;
      },
    }),
  );
  self = { id, slot, replica, operator, controllers: [], stopped: false, context: timers.current, newestWriter: 0 };
  noteController(self);
  real.processes.set(slot, self);
  real.all.push(self);
};

/** Like `kreconcile run` after a lost lease: the operator stops (deadline 5 s), the process exits, the pod restarts. */
const exitAndRestart = async (real: Real, slot: Slot): Promise<void> => {
  const op = real.processes.get(slot);
  if (op === undefined || op.stopped || op.replica.killed) return;
  op.stopped = true;
  await op.operator.stop(5_000);
  op.replica.kill();
  if (real.processes.get(slot) === op) await startProcess(real, slot, op.replica.skewMs);
};

/** Lets watch events, timers and workers run for `ms` of clock time. */
const run = async (real: Real, ms: number, step = 100): Promise<void> => {
  for (let t = 0; t < ms; t += step) {
    await flushMicrotasks();
    await real.clock.advance(step);
    for (const op of real.processes.values()) if (!op.replica.killed) noteController(op);
  }
  await flushMicrotasks();
};

class Wait implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: OperatorModel, r: Real) {
    await run(r, this.ms);
  }
  toString = () => `wait ${this.ms} ms`;
}

const withExpiry = (profile: FaultProfile, expireRate: number): FaultProfile => ({
  ...profile,
  watch: { ...profile.watch, expireRate },
});
/**
 * Answers take up to 1.9 s, the Lease's among them. No fence can do without a bound on a write's
 * transit time: the leader's fence margin (2 s) is that bound, so no latency here exceeds it.
 */
const MAX_LATENCY_MS = 1_900;
const slow: FaultProfile = { ...faultProfiles.flaky, latency: [{ rate: 0.3, minMs: 200, maxMs: MAX_LATENCY_MS }] };
const PROFILES = {
  none: faultProfiles.none,
  flaky: withExpiry(faultProfiles.flaky, 0.01),
  chaos: withExpiry(faultProfiles.chaos, 0.03),
  slow,
} as const;

class SetFaults implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(readonly profile: keyof typeof PROFILES) {}
  check = () => true;
  async run(_m: OperatorModel, r: Real) {
    r.cluster.setFaults(PROFILES[this.profile]);
  }
  toString = () => `faults ${this.profile} (watch expiry included)`;
}

class RestartApiServer implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(readonly downtimeMs: number) {}
  check = () => true;
  async run(_m: OperatorModel, r: Real) {
    r.cluster.restart({ downtimeMs: this.downtimeMs });
  }
  toString = () => `restart API server (down ${this.downtimeMs} ms)`;
}

/** The user writes `spec` (creating the Application or changing it): a reconcile with writes follows. */
const putSpec = (m: OperatorModel, r: Real, spec: AppSpec): Promise<void> =>
  m.apps.has(`${spec.namespace}/${spec.name}`)
    ? new UpdateApp<Real>(spec.namespace, spec.name, spec.children).run(m, r)
    : new CreateApp<Real>(spec).run(m, r);

/** etcd compaction overtakes every watcher right as the reconcile that `spec` causes sends a write. */
class ExpireWatchesMidReconcile implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly spec: AppSpec,
    readonly ms: number,
  ) {}
  check = () => true;
  async run(m: OperatorModel, r: Real) {
    r.expireAtNextWrite = true;
    await putSpec(m, r, this.spec);
    await run(r, this.ms);
    r.expireAtNextWrite = false;
  }
  toString = () =>
    `put ${this.spec.namespace}/${this.spec.name} ${JSON.stringify(this.spec.children)}, expire watches at the next write (within ${this.ms} ms)`;
}

/**
 * The API server is overloaded while `spec` is reconciled: Lease calls are throttled (429) for `ms`
 * (the leader may miss its renew deadline and lead again right after) and other answers are slow.
 */
class Overload implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly spec: AppSpec,
    readonly ms: number,
  ) {}
  check = () => true;
  async run(m: OperatorModel, r: Real) {
    const before = r.cluster.faults;
    const overloaded: FaultProfile = {
      ...before,
      errors: [
        { rate: 1, tag: 'TooManyRequests', code: 429, retryAfterMs: 1_000, kinds: ['Lease'] },
        ...(before.errors ?? []),
      ],
      // Lease calls are answered at once (429s): leadership flips while the others' answers are slow.
      latency: [
        {
          rate: 0.7,
          minMs: 500,
          maxMs: MAX_LATENCY_MS,
          kinds: [APPLICATION_KIND, 'ConfigMap', 'Deployment', 'Service', 'Event'],
        },
      ],
    };
    r.cluster.setFaults(overloaded);
    await putSpec(m, r, this.spec);
    await run(r, this.ms);
    if (r.cluster.faults === overloaded) r.cluster.setFaults(before);
  }
  toString = () =>
    `put ${this.spec.namespace}/${this.spec.name} ${JSON.stringify(this.spec.children)} while the API server is overloaded for ${this.ms} ms (Leases throttled, other answers slow)`;
}

const leader = (r: Real): OperatorProcess | undefined =>
  SLOTS.flatMap((slot) => live(r, slot) ?? []).find((op) => op.operator.isLeader());

const live = (r: Real, slot: Slot): OperatorProcess | undefined => {
  const op = r.processes.get(slot);
  return op === undefined || op.replica.killed || op.stopped ? undefined : op;
};

/**
 * SIGSTOP for `ms`: the process runs nothing (its lease runs out meanwhile); the requests it already
 * sent go on. Then SIGCONT: its timers, watch events and answers arrive at once.
 */
class Pause implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly slot: Slot,
    readonly ms: number,
  ) {}
  check = () => true;
  async run(_m: OperatorModel, r: Real) {
    const op = live(r, this.slot);
    op?.replica.pause();
    await run(r, this.ms);
    op?.replica.resume();
  }
  toString = () => `pause ${this.slot} for ${this.ms} ms`;
}

/**
 * The leader is SIGSTOPped right after the first write of the reconcile that `spec` causes, for
 * `ms`; on SIGCONT the answer it waited for arrives before its timers, or after.
 */
class PauseLeaderMidReconcile implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly spec: AppSpec,
    readonly ms: number,
    readonly answersFirst: boolean,
  ) {}
  check = () => true;
  async run(m: OperatorModel, r: Real) {
    const op = leader(r);
    r.pauseAtNextWrite = op;
    await putSpec(m, r, this.spec);
    await run(r, this.ms);
    r.pauseAtNextWrite = undefined;
    op?.replica.resume(this.answersFirst);
  }
  toString = () =>
    `put ${this.spec.namespace}/${this.spec.name} ${JSON.stringify(this.spec.children)}, pause the leader at its next write for ${this.ms} ms (${this.answersFirst ? 'answers' : 'timers'} first on resume)`;
}

class Partition implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly slot: Slot,
    readonly ms: number,
  ) {}
  check = () => true;
  async run(_m: OperatorModel, r: Real) {
    const op = live(r, this.slot);
    if (op !== undefined) op.replica.partitioned = true;
    await run(r, this.ms);
    if (op !== undefined) op.replica.partitioned = false;
  }
  toString = () => `cut ${this.slot} off the API server for ${this.ms} ms`;
}

/** SIGKILL, then the pod restarts after `downMs`: a new process with a new identity, the lease not released. */
class Kill implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly slot: Slot,
    readonly downMs: number,
  ) {}
  check = () => true;
  async run(_m: OperatorModel, r: Real) {
    const op = r.processes.get(this.slot);
    if (op === undefined) return;
    op.replica.kill();
    await run(r, this.downMs);
    await startProcess(r, this.slot, op.replica.skewMs);
  }
  toString = () => `kill ${this.slot}, restart it after ${this.downMs} ms`;
}

/** SIGTERM: in-flight reconciles get `deadlineMs` to finish, the lease is released; then a new process starts. */
class Restart implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly slot: Slot,
    readonly deadlineMs: number,
  ) {}
  check = () => true;
  async run(_m: OperatorModel, r: Real) {
    const op = live(r, this.slot);
    if (op === undefined) return;
    op.stopped = true;
    await drive(r.clock, op.operator.stop(this.deadlineMs), 100);
    await startProcess(r, this.slot, op.replica.skewMs);
  }
  toString = () => `restart ${this.slot} gracefully (shutdown deadline ${this.deadlineMs} ms)`;
}

/**
 * The leader is stopped gracefully (deadline 0: in-flight reconciles are abandoned) right after the reconcile that
 * `spec` causes sent a write.
 */
class RestartLeaderMidReconcile implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(readonly spec: AppSpec) {}
  check = () => true;
  async run(m: OperatorModel, r: Real) {
    const op = leader(r);
    const before = r.sent;
    await putSpec(m, r, this.spec);
    for (let waited = 0; waited < 5_000 && r.sent === before; waited += 50) await run(r, 50, 50);
    if (op === undefined || live(r, op.slot) !== op) return;
    op.stopped = true;
    await drive(r.clock, op.operator.stop(0), 100);
    await startProcess(r, op.slot, op.replica.skewMs);
  }
  toString = () =>
    `put ${this.spec.namespace}/${this.spec.name} ${JSON.stringify(this.spec.children)}, restart the leader gracefully at its next write (shutdown deadline 0)`;
}

/** NTP steps the process's wall clock: leases are judged by the monotonic clock and must not care. */
class StepClock implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly slot: Slot,
    readonly deltaMs: number,
  ) {}
  check = () => true;
  async run(_m: OperatorModel, r: Real) {
    const op = r.processes.get(this.slot);
    if (op !== undefined) op.replica.skewMs += this.deltaMs;
  }
  toString = () => `step ${this.slot}'s wall clock by ${this.deltaMs} ms`;
}

const malformedApplication = (namespace: string, name: string, malformed: Malformed): Resource => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  metadata: { name, namespace },
  spec: malformed.spec,
});

class CreateMalformed implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly variant: number,
  ) {}
  check = (m: Readonly<OperatorModel>) =>
    !m.apps.has(`${this.namespace}/${this.name}`) && !m.malformed.has(`${this.namespace}/${this.name}`);
  async run(m: OperatorModel, r: Real) {
    const malformed = MALFORMED[this.variant] as Malformed;
    await drive(r.clock, r.cluster.create(malformedApplication(this.namespace, this.name, malformed))());
    // An ambiguous answer may have created it; a terminating namesake is not ours.
    const stored = await truth(r, appRef(this.namespace, this.name));
    if (
      stored !== undefined &&
      stored.metadata.deletionTimestamp === undefined &&
      jsonEqual(stored.spec, malformed.spec)
    )
      m.malformed.set(`${this.namespace}/${this.name}`, malformed);
  }
  toString = () =>
    `create malformed ${this.namespace}/${this.name} ${JSON.stringify((MALFORMED[this.variant] as Malformed).spec)}`;
}

/** The user fixes a malformed Application: from then on it must converge like any other. */
class FixMalformed implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly pick: number,
    readonly childrenByName: Readonly<Record<string, AppSpec['children']>>,
  ) {}
  check = (m: Readonly<OperatorModel>) => m.malformed.size > 0;
  async run(m: OperatorModel, r: Real) {
    const id = [...m.malformed.keys()][this.pick % m.malformed.size] as string;
    const [namespace, name] = id.split('/') as [string, string];
    const current = await truth(r, appRef(namespace, name));
    if (current === undefined || current.metadata.deletionTimestamp !== undefined) return;
    const spec: AppSpec = { namespace, name, children: this.childrenByName[name] ?? [] };
    const wanted = applicationOf(spec).spec;
    await drive(r.clock, r.cluster.update({ ...current, spec: wanted } as Resource)());
    const stored = await truth(r, appRef(namespace, name));
    if (stored !== undefined && jsonEqual(stored.spec, wanted)) {
      m.malformed.delete(id);
      m.apps.set(id, spec);
    }
  }
  toString = () => `fix malformed #${this.pick} with ${JSON.stringify(this.childrenByName)}`;
}

/** A user breaks a well-formed Application: it stalls, its children stay as they are until it is fixed. */
class BreakApp implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(
    readonly pick: number,
    readonly variant: number,
  ) {}
  check = (m: Readonly<OperatorModel>) => m.apps.size > 0;
  async run(m: OperatorModel, r: Real) {
    const [id, spec] = [...m.apps][this.pick % m.apps.size] as [string, AppSpec];
    const malformed = MALFORMED[this.variant] as Malformed;
    const current = await truth(r, appRef(spec.namespace, spec.name));
    if (current === undefined || current.metadata.deletionTimestamp !== undefined) return;
    await drive(r.clock, r.cluster.update({ ...current, spec: malformed.spec })());
    const stored = await truth(r, appRef(spec.namespace, spec.name));
    if (stored !== undefined && jsonEqual(stored.spec, malformed.spec)) {
      m.apps.delete(id);
      m.malformed.set(id, { ...malformed, held: spec.children });
    }
  }
  toString = () => `break app #${this.pick} with ${JSON.stringify((MALFORMED[this.variant] as Malformed).spec)}`;
}

/**
 * Deletes a malformed Application that never was well-formed. (One that was holds the finalizer and
 * children; it stays Terminating until fixed, as nothing is done for a spec that does not decode.)
 */
class DeleteMalformed implements fc.AsyncCommand<OperatorModel, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<OperatorModel>) => [...m.malformed.values()].some((malformed) => malformed.held === undefined);
  async run(m: OperatorModel, r: Real) {
    const deletable = [...m.malformed].filter(([, malformed]) => malformed.held === undefined).map(([id]) => id);
    const id = deletable[this.pick % deletable.length] as string;
    const [namespace, name] = id.split('/') as [string, string];
    await drive(r.clock, r.cluster.delete(appRef(namespace, name))());
    const after = await truth(r, appRef(namespace, name));
    if (after === undefined || after.metadata.deletionTimestamp !== undefined) m.malformed.delete(id);
  }
  toString = () => `delete malformed #${this.pick}`;
}

const childrenByName = fc.record(
  Object.fromEntries([...APP_NAMES, ...BROKEN_NAMES].map((name) => [name, childrenArbitrary(name)])),
);

// Half of the overloads end around the renew deadline (10 s): leadership is lost and regained within moments.
const overload = fc
  .tuple(specArbitrary, fc.oneof(fc.integer({ min: 1_000, max: 20_000 }), fc.integer({ min: 9_500, max: 12_500 })))
  .map(([spec, ms]) => new Overload(spec, ms));
const pauseLeaderMidReconcile = fc
  .tuple(specArbitrary, fc.integer({ min: 1_000, max: 40_000 }), fc.boolean())
  .map(([spec, ms, answersFirst]) => new PauseLeaderMidReconcile(spec, ms, answersFirst));

// Leadership trouble in the middle of a reconcile is what breaks fences: it comes twice as often.
const commands = [
  specArbitrary.map((spec) => new CreateApp<Real>(spec)),
  specArbitrary.map((spec) => new UpdateApp<Real>(spec.namespace, spec.name, spec.children)),
  fc
    .tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...APP_NAMES, ...BROKEN_NAMES))
    .map(([ns, name]) => new DeleteApp<Real>(ns, name)),
  fc.tuple(fc.nat(), fc.boolean()).map(([pick, observed]) => new EditChild<Real>(pick, observed)),
  fc
    .tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...BROKEN_NAMES), fc.nat(MALFORMED.length - 1))
    .map(([ns, name, variant]) => new CreateMalformed(ns, name, variant)),
  fc.tuple(fc.nat(), childrenByName).map(([pick, children]) => new FixMalformed(pick, children)),
  fc.nat().map((pick) => new DeleteMalformed(pick)),
  fc.tuple(fc.nat(), fc.nat(MALFORMED.length - 1)).map(([pick, variant]) => new BreakApp(pick, variant)),
  fc.constantFrom('none' as const, 'flaky' as const, 'chaos' as const, 'slow' as const).map((p) => new SetFaults(p)),
  fc.integer({ min: 100, max: 20_000 }).map((ms) => new Wait(ms)),
  fc.constantFrom(0, 3_000, 12_000, 20_000).map((ms) => new RestartApiServer(ms)),
  fc
    .tuple(specArbitrary, fc.integer({ min: 500, max: 5_000 }))
    .map(([spec, ms]) => new ExpireWatchesMidReconcile(spec, ms)),
  fc.tuple(fc.constantFrom(...SLOTS), fc.integer({ min: 1_000, max: 40_000 })).map(([slot, ms]) => new Pause(slot, ms)),
  overload,
  overload,
  pauseLeaderMidReconcile,
  pauseLeaderMidReconcile,
  fc
    .tuple(fc.constantFrom(...SLOTS), fc.integer({ min: 1_000, max: 30_000 }))
    .map(([slot, ms]) => new Partition(slot, ms)),
  fc.tuple(fc.constantFrom(...SLOTS), fc.integer({ min: 0, max: 20_000 })).map(([slot, ms]) => new Kill(slot, ms)),
  fc
    .tuple(fc.constantFrom(...SLOTS), fc.constantFrom(0, 1_000, 5_000))
    .map(([slot, deadlineMs]) => new Restart(slot, deadlineMs)),
  specArbitrary.map((spec) => new RestartLeaderMidReconcile(spec)),
  fc
    .tuple(fc.constantFrom(...SLOTS), fc.integer({ min: -600_000, max: 600_000 }))
    .map(([slot, ms]) => new StepClock(slot, ms)),
];

/** What is wrong with the malformed Applications: each must be Stalled InvalidSpec, its message naming the path. */
const malformedProblems = (model: OperatorModel, cluster: MemoryCluster): ReadonlyArray<string> => {
  const objects = cluster.objects();
  return [...model.malformed].flatMap(([id, malformed]) => {
    const application = objects.find(
      (o) => o.kind === APPLICATION_KIND && `${o.metadata.namespace}/${o.metadata.name}` === id,
    );
    if (application === undefined) return [`malformed ${id} is missing`];
    const stalled = (
      getIn(application, ['status', 'conditions']) as
        ReadonlyArray<{ type: string; status: string; reason?: string; message?: string }> | undefined
    )?.find((c) => c.type === 'Stalled');
    const named = stalled?.message?.split('; ').some((issue) => issue.startsWith(`${malformed.path}:`)) === true;
    return stalled?.status === 'True' && stalled.reason === 'InvalidSpec' && named
      ? []
      : [`malformed ${id}: want Stalled InvalidSpec naming ${malformed.path}, got ${JSON.stringify(stalled)}`];
  });
};

const isMalformed = (model: OperatorModel, object: Resource): boolean =>
  object.kind === APPLICATION_KIND && model.malformed.has(`${object.metadata.namespace}/${object.metadata.name}`);

/**
 * A child a broken Application holds: whatever it owned when it broke stays as it is (also what an
 * earlier spec named and was not pruned yet), until the Application is fixed.
 */
const isHeld = (model: OperatorModel, object: Resource): boolean => {
  const owner = object.metadata.annotations?.[OWNER_ANNOTATION];
  return owner !== undefined && model.malformed.get(owner)?.held !== undefined;
};

/** Everything wrong with the world now: well-formed Applications (and orphans), malformed ones, leadership. */
const worldProblems = (model: OperatorModel, real: Real): ReadonlyArray<string> => {
  const leaders = SLOTS.flatMap((slot) => live(real, slot) ?? []).filter((op) => op.operator.isLeader());
  const leader = leaders[0];
  const objects = real.cluster.objects();
  return [
    ...problems(
      { objects: () => objects.filter((o) => !isMalformed(model, o) && !isHeld(model, o)) },
      model.apps,
      model.annotations,
    ),
    ...malformedProblems(model, real.cluster),
    ...(leaders.length === 1 ? [] : [`${leaders.length} leaders`]),
    ...(leader !== undefined && !leader.operator.controller.idle ? [`the leader ${leader.id} is not idle`] : []),
  ];
};

/** Faults stop, every process runs again (one is started if none is alive); up to 10 minutes of clock time. */
const settle = async (model: OperatorModel, real: Real): Promise<ReadonlyArray<string>> => {
  real.cluster.setFaults({});
  for (const slot of SLOTS)
    if (live(real, slot) === undefined) await startProcess(real, slot, real.processes.get(slot)?.replica.skewMs ?? 0);
  let left: ReadonlyArray<string> = [];
  for (let second = 0; second < 600; second += 5) {
    await run(real, 5_000, 250);
    await real.cluster.settle();
    left = worldProblems(model, real);
    if (left.length === 0) return left;
  }
  return left;
};

describe('two operator processes with leader election on the in-memory cluster (model-based)', () => {
  it('never write without the lease nor interleave two reconciles of one key; converge after faults; malformed Applications stall alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(commands, { maxCommands: 20 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.integer({ min: -300_000, max: 300_000 }),
        fc.integer({ min: -300_000, max: 300_000 }),
        fc.uniqueArray(specArbitrary, { maxLength: 3, selector: (spec) => `${spec.namespace}/${spec.name}` }),
        fc.constantFrom(500, 1_000, 2_000),
        fc.boolean(),
        async (cmds, seed, skewA, skewB, initial, retryPeriodMs, exitOnLoss) => {
          const clock = new ManualClock();
          const cluster = createMemoryCluster({ clock, seed, workloads: true, watchHistory: 200 });
          await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } })();
          const real: Real = {
            cluster,
            clock,
            seed,
            retryPeriodMs,
            exitOnLoss,
            processes: new Map(),
            all: [],
            started: 0,
            writes: [],
            writers: new Map(),
            violations: [],
            hotLoops: 0,
            expireAtNextWrite: false,
            pauseAtNextWrite: undefined,
            sent: 0,
          };
          await startProcess(real, 'a', skewA);
          await startProcess(real, 'b', skewB);
          const model: OperatorModel = { apps: new Map(), annotations: new Map(), touches: 0, malformed: new Map() };
          // Work from the start: leadership faults then hit leaders with reconciles in flight.
          for (const spec of initial) await new CreateApp<Real>(spec).run(model, real);
          await run(real, 3_000);
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          const left = await settle(model, real);
          const controllers = real.all.flatMap((op) => op.controllers);
          for (const slot of SLOTS) {
            const op = live(real, slot);
            if (op !== undefined) await drive(clock, op.operator.stop(1_000), 100);
          }
          expect(left).toEqual([]);
          expect(real.violations).toEqual([]);
          expect(concurrentWrites(real.writes)).toEqual([]);
          expect(controllers.reduce((sum, c) => sum + c.concurrentReconciles, 0)).toBe(0);
          // No HotLoop without a competing writer: faults, restarts, expired watches and takeovers never count.
          if (real.hotLoops > 0) expect(model.observedEdits ?? 0).toBeGreaterThanOrEqual(4);
        },
      ),
      {
        numRuns: Number(process.env.KRECONCILE_MODEL_RUNS ?? 400),
        verbose: 1,
        ...(process.env.KRECONCILE_SEED ? { seed: Number(process.env.KRECONCILE_SEED) } : {}),
        ...(process.env.KRECONCILE_PATH ? { path: process.env.KRECONCILE_PATH } : {}),
      },
    );
  }, 600_000);
});

describe('children created right before the process died', () => {
  it('a child of a kind the spec then drops is pruned by the next process: the kind was recorded before the create', async () => {
    const clock = new ManualClock();
    const server = createMemoryCluster({ clock, seed: 3, workloads: true });
    const runFor = async (ms: number): Promise<void> => {
      for (let t = 0; t < ms; t += 100) {
        await flushMicrotasks();
        await clock.advance(100);
      }
    };
    const wiki = (children: AppSpec['children']): Resource =>
      applicationOf({ namespace: 'default', name: 'wiki', children });
    const deployment = (): boolean =>
      server.objects().some((o) => o.kind === 'Deployment' && o.metadata.name === 'wiki-web');
    // The first process dies right after its creates: no status write after the Deployment exists lands.
    const died = (ref: Parameters<Cluster['patchStatus']>[0]) => async () =>
      E.left(clusterError('Unavailable', 'the process died', { code: 0, ref }));
    const first = new Controller({
      cluster: {
        ...server,
        patchStatus: (ref, patch) => (deployment() ? died(ref) : server.patchStatus(ref, patch)),
        updateStatus: (object) =>
          deployment()
            ? died({ apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name })
            : server.updateStatus(object),
      },
      clock,
      random: () => 0.5,
      events: false,
    });
    await first.start();
    await server.create(wiki([{ kind: 'Deployment', name: 'wiki-web', replicas: 1, image: 'nginx:1.27' }]))();
    await runFor(2_000);
    await first.stop(0);
    expect(deployment()).toBe(true);
    // The status never observed it (that write died), but the finalizer's patch named its kind.
    const recorded = server.objects().find((o) => o.kind === APPLICATION_KIND) as Resource;
    expect(JSON.stringify(getIn(withReadableStatus(recorded), ['status', 'lastObservedManifest']) ?? [])).not.toContain(
      'wiki-web',
    );
    expect(intentKindsOf(recorded)).toEqual([{ apiVersion: 'apps/v1', kind: 'Deployment' }]);
    const stored = server.objects().find((o) => o.kind === APPLICATION_KIND) as Resource;
    await server.update({
      ...stored,
      spec: wiki([{ kind: 'Service', name: 'wiki-web', port: 80 }]).spec,
    } as Resource)();
    const second = new Controller({ cluster: server, clock, random: () => 0.5, events: false });
    await second.start();
    await runFor(60_000);
    await second.stop(0);
    expect(deployment()).toBe(false);
  });

  it('dies after the finalizer and intent patch and some creates; the spec drops a kind, the Application is deleted: the next process leaves nothing', async () => {
    const clock = new ManualClock();
    // No garbage collector: whatever the next process does not find and delete itself would stay.
    const server = createMemoryCluster({ clock, seed: 5, workloads: true, gc: false });
    const runFor = async (ms: number): Promise<void> => {
      for (let t = 0; t < ms; t += 100) {
        await flushMicrotasks();
        await clock.advance(100);
      }
    };
    const blog = (children: AppSpec['children']): Resource =>
      applicationOf({ namespace: 'default', name: 'blog', children });
    const children: AppSpec['children'] = [
      { kind: 'ConfigMap', name: 'blog-config', data: { mode: 'a' } },
      { kind: 'Service', name: 'blog-web', port: 80 },
      { kind: 'Deployment', name: 'blog-web', replicas: 1, image: 'nginx:1.27' },
    ];
    // The first process dies after its first two creates: the third create and every later write never land.
    let created = 0;
    const died = (ref: Parameters<Cluster['get']>[0]) => async () =>
      E.left(clusterError('Unavailable', 'the process died', { code: 0, ref }));
    const refOf = (object: Resource) => ({
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: object.metadata.name,
      ...(object.metadata.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
    });
    const dead = (): boolean => created >= 2;
    const first = new Controller({
      cluster: {
        ...server,
        create: (object, options) =>
          dead()
            ? died(refOf(object))
            : async () => {
                const answer = await server.create(object, options)();
                if (E.isRight(answer)) created++;
                return answer;
              },
        patch: (ref, patch, options) => (dead() ? died(ref) : server.patch(ref, patch, options)),
        patchStatus: (ref, patch) => (dead() ? died(ref) : server.patchStatus(ref, patch)),
        update: (object, options) => (dead() ? died(refOf(object)) : server.update(object, options)),
        updateStatus: (object) => (dead() ? died(refOf(object)) : server.updateStatus(object)),
        delete: (ref, options) => (dead() ? died(ref) : server.delete(ref, options)),
      },
      clock,
      random: () => 0.5,
      events: false,
    });
    await first.start();
    await server.create(blog(children))();
    await runFor(2_000);
    await first.stop(0);
    const childrenLeft = (): ReadonlyArray<string> =>
      server
        .objects()
        .filter((o) => o.metadata.annotations?.[OWNER_ANNOTATION] === 'default/blog')
        .map((o) => `${o.kind}/${o.metadata.name}`)
        .sort();
    // Created in install order before it died: the ConfigMap and the Service. The status never
    // named a kind (no status write landed); the finalizer's patch named all three.
    expect(childrenLeft()).toEqual(['ConfigMap/blog-config', 'Service/blog-web']);
    const stored = server.objects().find((o) => o.kind === APPLICATION_KIND) as Resource;
    expect(getIn(stored, ['status'])).toBeUndefined();
    expect(stored.metadata.finalizers).toEqual(['kreconcile.io/cleanup']);
    expect(intentKindsOf(stored)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'Service' },
      { apiVersion: 'apps/v1', kind: 'Deployment' },
    ]);
    // The spec drops the Service's kind (nothing names it now but the annotation), then the Application is deleted.
    await server.update({ ...stored, spec: blog(children.filter((c) => c.kind !== 'Service')).spec } as Resource)();
    await server.delete(refOf(stored))();
    const deletes: string[] = [];
    const second = new Controller({
      cluster: {
        ...server,
        delete: (ref, options) => {
          deletes.push(`${ref.kind}/${ref.name}`);
          return server.delete(ref, options);
        },
      },
      clock,
      random: () => 0.5,
      events: false,
    });
    await second.start();
    await runFor(60_000);
    await second.stop(0);
    expect(childrenLeft()).toEqual([]);
    expect(server.objects().filter((o) => o.kind === APPLICATION_KIND)).toEqual([]);
    // Removed by the operator, not by anyone else: it found the Service through the annotation.
    expect(deletes.sort()).toEqual(['ConfigMap/blog-config', 'Service/blog-web']);
  });
});
