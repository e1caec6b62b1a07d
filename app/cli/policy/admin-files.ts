/**
 * The admin's files that `run`, `plan` and `fleet-plan` all take: `--policy`, `--field-managers` and
 * `--guard`, read in that order; the first that fails ends the reading with its every problem.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import type { KnownManager, TenancyPolicy } from '../../../core/internal.js';
import type { CliError } from '../cli-error.js';
import { readGuard, type GuardFile } from '../guard/read-guard.js';
import type { CliIo } from '../io.js';
import { readFieldManagers, readPolicy } from './read-policy.js';

/** The flags that name the files. */
export type AdminFileFlags = {
  readonly policy?: string;
  readonly fieldManagers?: string;
  readonly guard?: string;
};

/** What the files say; each is absent when its flag is. */
export type AdminFiles = {
  readonly tenancy: TenancyPolicy | undefined;
  readonly managers: ReadonlyArray<KnownManager> | undefined;
  readonly guard: GuardFile | undefined;
};

/** `read(file)` when a file is named, `undefined` without one. */
export const optionalFile =
  <A>(
    file: string | undefined,
    read: (file: string) => Promise<E.Either<ReadonlyArray<CliError>, A>>,
  ): TE.TaskEither<ReadonlyArray<CliError>, A | undefined> =>
  () =>
    file === undefined ? Promise.resolve(E.right(undefined)) : read(file);

export const readAdminFiles = (io: CliIo, flags: AdminFileFlags): TE.TaskEither<ReadonlyArray<CliError>, AdminFiles> =>
  pipe(
    TE.Do,
    TE.bind('tenancy', () => optionalFile(flags.policy, (file) => readPolicy(io, file))),
    TE.bind('managers', () => optionalFile(flags.fieldManagers, (file) => readFieldManagers(io, file))),
    TE.bind('guard', () => optionalFile(flags.guard, (file) => readGuard(io, file))),
  );
