/** Process exit codes of every command (documented in `--help` and docs/cli.md). */

/** Success; with `--exit-code`: nothing would change. */
export const EXIT_OK = 0;
/** An error: bad input, unreachable cluster, a plan that cannot be computed. */
export const EXIT_ERROR = 1;
/** With `--exit-code` only: the plan would change something (like `terraform plan -detailed-exitcode`). */
export const EXIT_CHANGES = 2;

export type ExitCode = typeof EXIT_OK | typeof EXIT_ERROR | typeof EXIT_CHANGES;

export const EXIT_CODES_HELP = `Exit codes:
  0  success (with --exit-code: nothing would change)
  1  error (bad input, unreachable cluster, stalled plan); one line per problem on stderr
  2  with --exit-code only: the plan would change something`;
