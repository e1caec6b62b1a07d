/** The time a plan is computed at (`--now`): RFC 3339, so CI runs can be reproduced byte for byte. */
import * as E from 'fp-ts/lib/Either.js';
import { usageError, type CliError } from './cli-error.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** `--now` as given when valid; otherwise the current time, to the second, in UTC (as Kubernetes writes times). */
export const resolveNow = (given: string | undefined, clock: () => Date): E.Either<CliError, string> => {
  if (given === undefined)
    return E.right(
      clock()
        .toISOString()
        .replace(/\.\d+Z$/, 'Z'),
    );
  return RFC3339.test(given) && !Number.isNaN(Date.parse(given))
    ? E.right(given)
    : E.left(usageError(`--now ${JSON.stringify(given)} is not an RFC 3339 time: write e.g. 2026-01-31T12:00:00Z`));
};
