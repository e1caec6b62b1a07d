/**
 * `kreconcile/runtime`: the operator runtime for embedders — the Application controller, the
 * operator process around it (leader election, /healthz, /readyz, /metrics) and its logger and
 * metrics seams, and the same loop for an author's own primary kind (`startEmbeddedOperator`,
 * docs/runtime.md "Embedding kreconcile for your own kind"), and the check of a new `desired()`
 * against the running fleet before deploying it (`planDesiredChange`). Give it a `Cluster`
 * (`kreconcile/kubernetes` or the test kit's memory cluster).
 */
export { startOperator, type Operator, type OperatorOptions } from './operator.js';
export { Controller, type ControllerOptions } from './controller.js';
export { createMetrics, type Metrics } from './metrics.js';
export { registerFlowControlMetrics, type FlowControlMetrics, type FlowControlSource } from './flow-metrics.js';
export { silentLogger, type Logger } from '../logging/logger.js';
export { createDefaultLogger, type DefaultLoggerOptions } from './default-logger.js';
export { DEFAULT_DESIRED_LIMITS, type DesiredLimits } from './desired-guard.js';
/** Wall time and host timers: the `clock` to give `startOperator`/`startEmbeddedOperator` outside tests. */
export { systemClock } from '../../adapters/memory/clock/system-clock.js';
export { startEmbeddedOperator, type EmbeddedOperatorOptions } from './embedded.js';
export {
  planDesiredChange,
  planDesiredChangeLive,
  type DesiredChange,
  type DesiredChangeInput,
  type DesiredProblem,
  type LiveDesiredChangeInput,
} from './desired-change.js';
export type {
  KubernetesObject,
  KubernetesObjectMeta,
  ManifestObject,
  PrimaryObject,
  UntypedSpec,
} from './kubernetes-object.js';
/**
 * The CEL evaluator of `spec.readiness` rules, the default of `planOptions.expressions`; replace it through that
 * option.
 */
export { celEvaluator } from '../../adapters/cel/cel-evaluator.js';
export type { CompiledExpression, ExpressionEvaluator, ExpressionProblem } from '../../core/ports/expressions.js';
export {
  APPLICATION_PRIMARY,
  KRECONCILE_STATUS_FIELDS,
  primaryOf,
  type DesiredState,
  type Primary,
  type PrimaryReconciler,
} from './primary.js';
export type { RuleIsolationOptions } from '../isolation/isolated-rules.js';
