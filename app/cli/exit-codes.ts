/** Process exit codes of every command (documented in `--help` and docs/cli.md). */

/** Success; with `--exit-code`: nothing would change. */
export const EXIT_OK = 0;
/** An error: bad input, unreachable cluster, a plan that cannot be computed. */
export const EXIT_ERROR = 1;
/** With `--exit-code` only: the plan would change something (like `terraform plan -detailed-exitcode`). */
export const EXIT_CHANGES = 2;

/** With `--guard` (`plan`, `apply`): the guard policy denies a plan no approval names; `apply` wrote nothing. */
export const EXIT_GUARD_DENIED = 3;

/** With `--verify-converges` only: carried out offline, the plan does not converge (perpetual diff or oscillation). */
export const EXIT_NOT_CONVERGING = 4;

export type ExitCode =
  typeof EXIT_OK | typeof EXIT_ERROR | typeof EXIT_CHANGES | typeof EXIT_GUARD_DENIED | typeof EXIT_NOT_CONVERGING;

const OK_LINE = '  0  success';
const ERROR_LINE = '  1  error (bad input, unreachable cluster, stalled plan): one line per problem on stderr';

/** Exit codes of commands without `--exit-code`. */
export const EXIT_CODES_HELP = `Exit codes:\n${OK_LINE}\n${ERROR_LINE}`;

/** Exit codes of `plan`. */
export const PLAN_EXIT_CODES_HELP = `Exit codes:
${OK_LINE} (with --exit-code: nothing would change)
${ERROR_LINE}
  2  with --exit-code only: the plan would create, patch or delete something, or found a conflict
  3  with --guard: the guard policy denies a plan (each violation, its rule and action on stderr)
  4  with --verify-converges only: carried out on the in-memory API server, the plans do not converge
     (a perpetual diff or an oscillation; each round's object, field and values on stderr)`;
