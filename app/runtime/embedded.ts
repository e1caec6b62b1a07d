/**
 * The embedding entry point: an operator author runs kreconcile's loop for their own primary kind
 * (watches, queue, finalizer, status conditions, pruning, metrics, leader election) by giving the
 * kind and a pure `desired(primary)`. Production defaults: a pino logger on stderr at `warn` unless
 * one is given; `desired` bounded by `desiredLimits`.
 */
import { startOperator, type Operator, type OperatorOptions } from './operator.js';
import { createDefaultLogger } from './default-logger.js';
import type { DesiredLimits } from './desired-guard.js';
import type { UntypedSpec } from './kubernetes-object.js';
import { primaryOf, type PrimaryReconciler } from './primary.js';
import { defined } from '../../core/json/defined.js';

export type EmbeddedOperatorOptions<Spec = UntypedSpec> = Omit<OperatorOptions, 'primary' | 'hooks' | 'tosca'> & {
  /** The primary kind, its `spec` codec and its `desired`. */
  readonly reconciler: PrimaryReconciler<Spec>;
  /**
   * Bounds on `desired` (defaults: `DEFAULT_DESIRED_LIMITS`): a call that throws, takes longer than
   * `maxMs`, or returns a cyclic, deeper or larger value makes the object `Stalled InvalidSpec`, naming why.
   */
  readonly desiredLimits?: Partial<DesiredLimits>;
};

/**
 * Starts the operator for `options.reconciler`'s kind: `startOperator`'s guarantees, for that kind instead of
 * Applications.
 */
export const startEmbeddedOperator = <Spec = UntypedSpec>(
  options: EmbeddedOperatorOptions<Spec>,
): Promise<Operator> => {
  const { reconciler, desiredLimits, ...operator } = options;
  const guard = {
    ...defined({ limits: desiredLimits, monotonic: operator.monotonic }),
  };
  // Not silent by default: a defect in `desired` or the cluster must reach someone's log.
  const logger = operator.logger ?? createDefaultLogger({ level: 'warn' });
  // The admission policies kreconcile installs (decisions 0026, 0029) guard Applications' approvals and
  // guarded children: an embedded operator checks for them when it has a guard, or when asked to.
  const admissionPolicies = operator.admissionPolicies ?? (operator.guard === undefined ? false : {});
  return startOperator({ ...operator, admissionPolicies, logger, primary: primaryOf(reconciler, guard) });
};
