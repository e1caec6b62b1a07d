/**
 * V8 heap sizing of the long-running `kreconcile run` process, set by the process itself at start
 * (app/cli/kreconcile.ts), before it allocates anything much, so no wrapper or NODE_OPTIONS is needed.
 *
 * `--optimize-for-size` makes V8 grow the heap in smaller steps and keep a smaller young
 * generation. With V8's defaults a burst of API traffic (a cold start over a fleet: lists, write
 * answers, plans) grows the heap to several times what stays live, and the pages are kept: at
 * N = 1 000 Applications × 4 objects the operator peaked at 410 MiB RSS (290 MiB of heap committed)
 * for 49 MiB of heap live at Ready; with the flag, 130 MiB RSS, for about 20 % more CPU time and
 * the same time to Ready (docs/performance.md, "The operator's memory"). Short commands (plan,
 * validate, …) keep V8's defaults: they favour speed and exit. A flag the user gave Node
 * (`node --no-optimize-for-size …`, NODE_OPTIONS) wins.
 */
import { setFlagsFromString } from 'node:v8';

export const OPERATOR_V8_FLAGS: ReadonlyArray<string> = ['--optimize-for-size'];

/** Whether `argv` (without node and the script) runs the operator: its command is `run`. */
export const runsOperator = (argv: ReadonlyArray<string>): boolean =>
  argv.find((arg) => !arg.startsWith('-')) === 'run';

/** The name of a V8 boolean flag without its `--`/`--no-` prefix and value, `_` read as `-`. */
const flagName = (flag: string): string =>
  flag
    .replace(/^--(no-)?/, '')
    .replace(/=.*$/, '')
    .replaceAll('_', '-');

/** The operator's flags that Node's own options (`process.execArgv`, NODE_OPTIONS) do not already set. */
export const operatorFlagsToSet = (nodeOptions: ReadonlyArray<string>): ReadonlyArray<string> => {
  const given = new Set(nodeOptions.filter((option) => option.startsWith('--')).map(flagName));
  return OPERATOR_V8_FLAGS.filter((flag) => !given.has(flagName(flag)));
};

/** Sets the operator's V8 flags for this process, except those its Node options already set. */
export const tuneOperatorHeap = (
  nodeOptions: ReadonlyArray<string> = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)],
): void => {
  for (const flag of operatorFlagsToSet(nodeOptions)) setFlagsFromString(flag);
};
