/** Prometheus metrics of the runtime (prom-client, own registry so embedders can run several). */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Action } from '../../core/internal.js';

export type Metrics = {
  readonly registry: Registry;
  readonly reconciles: Counter<'result'>;
  readonly reconcileDuration: Histogram<'result'>;
  readonly queueDepth: Gauge;
  readonly queueLatency: Histogram;
  readonly actions: Counter<'type'>;
  readonly apiErrors: Counter<'code' | 'reason'>;
  readonly leader: Gauge;
  /** Drifted fields reported (not corrected) under `spec.driftPolicy: Report`, counted when the report changes. */
  readonly driftReported: Counter;
  /** Plans the guard policy (`--guard`) denied, counted when an Application becomes GuardDenied. */
  readonly guardDenials: Counter;
  /**
   * Kubernetes Events not recorded (best-effort), by why: `QueueFull` (refused unsent by client flow control) or the
   * API error.
   */
  readonly eventsDropped: Counter<'reason'>;
};

export const createMetrics = (options: { readonly processMetrics?: boolean } = {}): Metrics => {
  const registry = new Registry();
  if (options.processMetrics === true) collectDefaultMetrics({ register: registry });
  // Each metric registers itself in this registry only, never the global one (see the module comment).
  const registers = [registry];
  return { registry, ...workMetrics(registers), ...reportMetrics(registers) };
};

/** How the operator works: reconciles, its queue, the writes it sends, API errors and leadership. */
const workMetrics = (
  registers: Registry[],
): Omit<Metrics, 'registry' | 'driftReported' | 'guardDenials' | 'eventsDropped'> => ({
  reconciles: new Counter({
    name: 'kreconcile_reconciles_total',
    help: 'Reconciles by result (success, requeue, error, terminal).',
    labelNames: ['result'],
    registers,
  }),
  reconcileDuration: new Histogram({
    name: 'kreconcile_reconcile_duration_seconds',
    help: 'Time to reconcile one Application.',
    labelNames: ['result'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    registers,
  }),
  queueDepth: new Gauge({
    name: 'kreconcile_workqueue_depth',
    help: 'Applications ready and waiting for a worker.',
    registers,
  }),
  queueLatency: new Histogram({
    name: 'kreconcile_workqueue_queue_duration_seconds',
    help: 'Time an Application waited in the queue before a worker took it.',
    buckets: [0.001, 0.01, 0.1, 1, 10, 60],
    registers,
  }),
  actions: new Counter({
    name: 'kreconcile_actions_total',
    help: 'Plan actions written to the API server (one request each; a recreate two) by type.',
    labelNames: ['type'],
    registers,
  }),
  apiErrors: new Counter({
    name: 'kreconcile_api_errors_total',
    help: 'API errors by HTTP code and reason.',
    labelNames: ['code', 'reason'],
    registers,
  }),
  leader: new Gauge({ name: 'kreconcile_leader', help: '1 while this instance holds the leader lease.', registers }),
});

/** What the operator reported instead of doing: drift left in place, denied plans, Events not recorded. */
const reportMetrics = (registers: Registry[]): Pick<Metrics, 'driftReported' | 'guardDenials' | 'eventsDropped'> => ({
  driftReported: new Counter({
    name: 'kreconcile_drift_reported_fields_total',
    help: 'Drifted fields left in place and reported in status.drift (spec.driftPolicy: Report).',
    registers,
  }),
  guardDenials: new Counter({
    name: 'kreconcile_guard_denials_total',
    help: 'Plans the guard policy denied (the Application became Stalled GuardDenied).',
    registers,
  }),
  eventsDropped: new Counter({
    name: 'kreconcile_events_dropped_total',
    help: 'Kubernetes Events not recorded, by reason: QueueFull (refused unsent: the client low-priority queue was full) or the API error.',
    labelNames: ['reason'],
    registers,
  }),
});

/**
 * The actions that sent a write: `wait`, `conflict`, `forbidden` and `skip` entries are reported as
 * done by the executor but asked nothing of the API server, so counting them would make an operator
 * that waits look busy.
 */
const SENDS_A_WRITE: Readonly<Record<Action['type'], boolean>> = {
  create: true,
  patch: true,
  delete: true,
  recreate: true,
  addFinalizer: true,
  removeFinalizer: true,
  wait: false,
  conflict: false,
  forbidden: false,
  skip: false,
};

/** Counts the written actions of one reconcile in `kreconcile_actions_total`. */
export const countWrittenActions = (metrics: Metrics, done: ReadonlyArray<{ readonly action: Action }>): void => {
  for (const { action } of done) if (SENDS_A_WRITE[action.type]) metrics.actions.inc({ type: action.type });
};
