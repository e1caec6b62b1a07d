/** Human progress lines for `kreconcile run`: what each reconcile did, as it happens. */
import { showClusterError, showRef, type Action, type Condition } from '../../../core/internal.js';
import type { ReconcileResult } from '../../reconcile/reconcile-application.js';
import type { Style } from '../style.js';

const SYMBOLS: Partial<Record<Action['type'], string>> = {
  create: '+',
  patch: '~',
  delete: '-',
  conflict: '!',
  forbidden: '!',
};

const show = (value: unknown): string => (value === undefined ? '(absent)' : JSON.stringify(value));

const actionLines = (action: Action, style: Style): ReadonlyArray<string> => {
  const symbol = SYMBOLS[action.type];
  if (symbol === undefined)
    return [
      style.dim(
        `  · ${action.type === 'addFinalizer' ? 'added' : 'removed'} finalizer ${'finalizer' in action ? action.finalizer : ''}`,
      ),
    ];
  const colour = action.type === 'create' ? style.green : action.type === 'patch' ? style.yellow : style.red;
  return [
    `  ${colour(symbol)} ${showRef(action.ref)}`,
    ...action.changes.map((change) => `      ${change.path}: ${show(change.from)} → ${show(change.to)}`),
  ];
};

const readyOf = (conditions: ReadonlyArray<Condition> | undefined): Condition | undefined =>
  conditions?.find((c) => c.type === 'Ready');

/** Lines for one finished reconcile (nothing for a no-op that changed no condition). */
export const progressLines = (
  key: string,
  result: ReconcileResult,
  style: Style,
  time: string,
): ReadonlyArray<string> => {
  const prefix = `${style.dim(time)} ${style.bold(key)}`;
  if (result._tag === 'Gone') return [`${prefix} deleted`];
  const done = result.execution?.done ?? [];
  const lines = done.flatMap(({ action }) => actionLines(action, style));
  if (result._tag === 'Failed') {
    return [
      `${prefix} ${style.red(result.terminal ? 'stalled' : 'failed')}: ${showClusterError(result.error)}${result.retryAfterMs === undefined ? '' : ` (retry in ${result.retryAfterMs} ms)`}`,
      ...lines,
    ];
  }
  const ready = readyOf(result.status.conditions);
  const stalled = result.status.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True');
  if (lines.length === 0 && !result.statusWritten) return [];
  const verdict =
    stalled !== undefined
      ? style.red(`Stalled (${stalled.reason}): ${stalled.message}`)
      : ready?.status === 'True'
        ? style.green(`Ready: ${ready.message}`)
        : style.yellow(`Reconciling: ${ready?.message ?? ''}`);
  return [`${prefix} ${verdict}`, ...lines];
};
