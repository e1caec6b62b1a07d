/**
 * The embedding entry point: an operator author runs kreconcile's loop for their own primary kind
 * (watches, queue, finalizer, status conditions, pruning, metrics, leader election) by giving the
 * kind and a pure `desired(primary)`.
 */
import { startOperator, type Operator, type OperatorOptions } from './operator.js';
import { primaryOf, type PrimaryReconciler } from './primary.js';

export type EmbeddedOperatorOptions = Omit<OperatorOptions, 'primary' | 'hooks' | 'tosca'> & {
  /** The primary kind and its `desired`. */
  readonly reconciler: PrimaryReconciler;
};

/** Starts the operator for `options.reconciler`'s kind: `startOperator`'s guarantees, for that kind instead of Applications. */
export const startEmbeddedOperator = (options: EmbeddedOperatorOptions): Promise<Operator> => {
  const { reconciler, ...operator } = options;
  return startOperator({ ...operator, primary: primaryOf(reconciler) });
};
