/**
 * Fault profiles: how the memory cluster misbehaves on purpose — error answers, latency,
 * concurrent writers (conflicts), duplicated / ended / expired watch streams. Rates are
 * probabilities per call (or per watch event), drawn from the cluster's seeded generator.
 */
import type { ClusterErrorTag } from '../../../core/ports/errors.js';

export type Verb = 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'watch' | 'updateStatus' | 'patchStatus';

export const allVerbs: ReadonlyArray<Verb> = [
  'get',
  'list',
  'create',
  'update',
  'patch',
  'delete',
  'watch',
  'updateStatus',
  'patchStatus',
];
export const writeVerbs: ReadonlyArray<Verb> = ['create', 'update', 'patch', 'delete', 'updateStatus', 'patchStatus'];

/** Which calls a rule applies to; all verbs / all kinds when absent. Kinds as `Deployment` or `apps/Deployment`. */
export type FaultMatch = { readonly verbs?: ReadonlyArray<Verb>; readonly kinds?: ReadonlyArray<string> };

export type ErrorFault = FaultMatch & {
  readonly rate: number;
  readonly tag: ClusterErrorTag;
  /** HTTP status; the tag's usual code when absent. */
  readonly code?: number;
  readonly message?: string;
  readonly retryAfterMs?: number;
  /** The write is applied, then the answer is lost (a timeout after commit): tests idempotence. */
  readonly afterCommit?: boolean;
};

export type LatencyFault = FaultMatch & { readonly rate?: number; readonly minMs: number; readonly maxMs: number };

/** Another writer touches the object just before the call: a conditional write then fails with 409. */
export type ConflictFault = FaultMatch & { readonly rate: number };

export type WatchFault = {
  readonly kinds?: ReadonlyArray<string>;
  /**
   * An event is delivered twice: what a client sees again when it resumes from an older
   * resourceVersion than its last event (a bookmark, a relist). There is no fault that loses an
   * event: kube-apiserver never skips one within a stream (a gap shows only as 410 Gone on
   * resuming: `expireRate`, `restart()`).
   */
  readonly duplicateRate?: number;
  /** The stream ends cleanly after an event (as the server's watch timeout does); clients resume. */
  readonly closeRate?: number;
  /**
   * The watch expires after an event: etcd compaction (or the watch cache's window) has moved past
   * every version so far, so the stream ends with 410 Gone and resuming from any earlier version is
   * Gone too — the client must relist, as a lagging watcher on a busy cluster must.
   */
  readonly expireRate?: number;
  /**
   * The server ends each watch after a random time in [ms, 2·ms], as kube-apiserver does with
   * its `--min-request-timeout` (1800 s by default, so 30–60 min: set it short here). The stream
   * ends cleanly; clients re-watch from their last resourceVersion.
   */
  readonly serverTimeoutMs?: number;
};

export type FaultProfile = {
  /**
   * Error answers. On `watch` the stream closes with the error (the Kubernetes adapter would
   * retry transient ones itself and surface only Gone or permanent errors: inject those to
   * mimic what it shows).
   */
  readonly errors?: ReadonlyArray<ErrorFault>;
  readonly latency?: ReadonlyArray<LatencyFault>;
  readonly conflicts?: ReadonlyArray<ConflictFault>;
  readonly watch?: WatchFault;
  /**
   * Pods of the simulated workloads (`workloads: true`) that fail as they start: a container in
   * CrashLoopBackOff, the Pod not Ready (a Job's Pod Failed). Rate per Pod.
   */
  readonly pods?: { readonly failRate: number };
};

const none: FaultProfile = {};

/** Occasional transient failures, as a busy production API server shows them. */
const flaky: FaultProfile = {
  errors: [
    { rate: 0.03, tag: 'Internal', code: 500, message: 'etcdserver: request timed out' },
    {
      rate: 0.02,
      tag: 'TooManyRequests',
      code: 429,
      retryAfterMs: 1000,
      message: 'too many requests, please try again later',
    },
    {
      rate: 0.01,
      tag: 'Timeout',
      code: 504,
      verbs: writeVerbs,
      afterCommit: true,
      message: 'the server was unable to return a response in the time allotted',
    },
  ],
  latency: [{ rate: 0.2, minMs: 5, maxMs: 50 }],
  conflicts: [{ rate: 0.05, verbs: ['update', 'updateStatus', 'patch', 'patchStatus'] }],
  watch: { duplicateRate: 0.01, closeRate: 0.01 },
};

/** Everything at once, often: for convergence tests that must survive a hostile control plane. */
const chaos: FaultProfile = {
  errors: [
    { rate: 0.1, tag: 'Internal', code: 500, message: 'internal error' },
    {
      rate: 0.05,
      tag: 'TooManyRequests',
      code: 429,
      retryAfterMs: 2000,
      message: 'too many requests, please try again later',
    },
    { rate: 0.05, tag: 'Unavailable', code: 503, message: 'the server is currently unable to handle the request' },
    {
      rate: 0.05,
      tag: 'Timeout',
      code: 504,
      verbs: writeVerbs,
      afterCommit: true,
      message: 'the server was unable to return a response in the time allotted',
    },
  ],
  latency: [{ rate: 0.5, minMs: 1, maxMs: 500 }],
  conflicts: [{ rate: 0.2, verbs: ['update', 'updateStatus', 'patch', 'patchStatus'] }],
  watch: { duplicateRate: 0.05, closeRate: 0.05 },
};

/** Named profiles. */
export const faultProfiles = { none, flaky, chaos } as const;

/** Whether a rule applies to a call on `group/kind` with `verb`. */
export const matchesFault = (match: FaultMatch, verb: Verb, group: string, kind: string): boolean =>
  (match.verbs === undefined || match.verbs.includes(verb)) && matchesKind(match.kinds, group, kind);

export const matchesKind = (kinds: ReadonlyArray<string> | undefined, group: string, kind: string): boolean =>
  kinds === undefined || kinds.includes(kind) || kinds.includes(`${group}/${kind}`);
