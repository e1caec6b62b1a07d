/**
 * V8 heap sizing of the long-running `kreconcile run` process, set by the process itself at start
 * (app/cli/kreconcile.ts), before it allocates anything much, so no wrapper or NODE_OPTIONS is needed.
 *
 * `--optimize-for-size` makes V8 grow the heap in smaller steps and keep a smaller young
 * generation. By default a burst of API traffic (a cold start over a fleet: lists, write answers,
 * plans) grows the heap to several times what stays live, and the pages are kept: at N = 300
 * Applications × 4 objects the operator's heap peaked at 187 MiB committed for 30 MiB live at
 * Ready. Measured trade-off in docs/performance.md ("The operator's memory").
 * Short commands (plan, validate, …) keep V8's defaults: they favour speed and exit.
 */
import { setFlagsFromString } from 'node:v8';

export const OPERATOR_V8_FLAGS: ReadonlyArray<string> = ['--optimize-for-size'];

/** Whether `argv` (without node and the script) runs the operator: its command is `run`. */
export const runsOperator = (argv: ReadonlyArray<string>): boolean =>
  argv.find((arg) => !arg.startsWith('-')) === 'run';

/** Sets the operator's V8 flags for this process. */
export const tuneOperatorHeap = (): void => {
  for (const flag of OPERATOR_V8_FLAGS) setFlagsFromString(flag);
};
