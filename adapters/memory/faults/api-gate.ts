/**
 * The door every API call goes through: the outage window, then the seeded faults of the call
 * (latency on the injected clock, an error before or after the commit, a concurrent writer),
 * then the verb itself. A watch waits out an outage, as a client that reconnects does.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import { groupOf, type ObjectRef } from '../../../core/model/resource.js';
import type { Clock, WatchHandle, WatchQuery, WatchSink } from '../../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { decideCall } from './fault-injector.js';
import type { FaultProfile, Verb } from './faults.js';
import type { Random } from './prng.js';
import type { PendingWatch } from '../watch/index.js';

// Function properties, not methods: they use no `this`, so taking them off the gate (`const { call } = gate`) is safe.
export type ApiGate = {
  readonly call: <A>(
    verb: Verb,
    apiVersion: string,
    kind: string,
    run: () => E.Either<ClusterError, A>,
    target?: ObjectRef,
  ) => TE.TaskEither<ClusterError, A>;
  readonly watch: (query: WatchQuery, sink: WatchSink) => WatchHandle;
  /** The error every call answers during an outage. */
  outage(): ClusterError | undefined;
  unavailableUntil(ms: number): void;
  /** The same gate (same outages) drawing its call faults from `random`: another client's fault stream. */
  withRandom(random: Random): ApiGate;
};

export type ApiGateDeps = {
  readonly clock: Clock;
  readonly random: Random;
  readonly profile: () => FaultProfile;
  /** A concurrent writer touches the object (forced conflicts). */
  readonly touch: (ref: ObjectRef) => void;
  readonly openWatch: (sink: WatchSink) => PendingWatch;
  readonly startWatch: (query: WatchQuery, pending: PendingWatch) => void;
  /** Told of every fault injected into a call (what the test kit reports). */
  readonly injected?: (fault: string) => void;
};

/** The faults one call got, named for a report: `Conflict on patch`, `latency on get`, … */
const faultNames = (verb: Verb, faults: ReturnType<typeof decideCall>): ReadonlyArray<string> => [
  ...(faults.latencyMs > 0 ? [`latency on ${verb}`] : []),
  ...(faults.conflict ? [`forced conflict on ${verb}`] : []),
  ...(faults.error === undefined
    ? []
    : [`${faults.error._tag}${faults.afterCommit ? ' after commit' : ''} on ${verb}`]),
];

export const createApiGate = (deps: ApiGateDeps): ApiGate => gateOver(deps, { until: Number.NEGATIVE_INFINITY });

/** A gate over `deps`; gates made by `withRandom` share `outageWindow`, so an outage is every client's. */
const gateOver = (deps: ApiGateDeps, outageWindow: { until: number }): ApiGate => {
  /** A watch client retries until the server answers again (the Kubernetes adapter does). */
  const waitForServer = async (): Promise<void> => {
    while (deps.clock.now() < outageWindow.until) await deps.clock.sleep(outageWindow.until - deps.clock.now());
  };
  const outage = (): ClusterError | undefined =>
    deps.clock.now() < outageWindow.until
      ? clusterError('Unavailable', 'connect ECONNREFUSED: the API server is unavailable', { code: 0 })
      : undefined;

  return {
    outage,
    unavailableUntil: (ms) => {
      outageWindow.until = ms;
    },
    withRandom: (random) => gateOver({ ...deps, random }, outageWindow),
    call: (verb, apiVersion, kind, run, target) => async () => {
      const down = outage();
      if (down !== undefined) return E.left(down);
      const faults = decideCall(deps.random, deps.profile(), verb, groupOf(apiVersion), kind);
      faultNames(verb, faults).forEach((fault) => deps.injected?.(fault));
      if (faults.latencyMs > 0) await deps.clock.sleep(faults.latencyMs);
      const stillDown = outage();
      if (stillDown !== undefined) return E.left(stillDown);
      if (faults.error !== undefined && !faults.afterCommit) return E.left(faults.error);
      if (faults.conflict && target !== undefined) deps.touch(target);
      const result = run();
      return faults.error !== undefined ? E.left(faults.error) : result;
    },
    watch: (query, sink) => {
      const pending = deps.openWatch(sink);
      void (async () => {
        await waitForServer();
        const faults = decideCall(deps.random, deps.profile(), 'watch', groupOf(query.apiVersion), query.kind);
        faultNames('watch', faults).forEach((fault) => deps.injected?.(fault));
        if (faults.latencyMs > 0) await deps.clock.sleep(faults.latencyMs);
        await waitForServer();
        if (faults.error !== undefined) return pending.fail(faults.error);
        deps.startWatch(query, pending);
      })();
      return pending.handle;
    },
  };
};
