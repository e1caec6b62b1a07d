/**
 * `--guard <file>`: the guard policy of `kreconcile plan`, `apply` and `run`, read and decoded at
 * the boundary; every problem is one line naming file:line and the field. Its digest (of the bytes
 * read) is what a saved plan records, so `apply` can tell whether it is given the same rules.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import {
  guardPolicyIssues,
  guardPolicyOf,
  GuardPolicyDocument,
  type GuardPolicy,
  type Path,
  type SchemaCatalog,
} from '../../../core/internal.js';
import { inputError, type CliError, type Location } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { decodeDocument, readOneDocument } from '../input/one-document.js';
import { parsePath } from '../input/parse-path.js';
import { createHash } from 'node:crypto';

/** A guard file is a few rules: anything near this size is not one. */
const MAX_GUARD_BYTES = 1024 * 1024;

const HINT = 'see docs/cli.md, "Guard policies"';

/** A decoded guard file: its rules, its name, the digest of its text, and where each of its fields is. */
export type GuardFile = {
  readonly policy: GuardPolicy;
  readonly file: string;
  readonly digest: string;
  readonly locate?: (path: Path) => Location;
};

/** The guard policy in `file` (YAML or JSON, one document), or every problem found in it. */
export const readGuard = (io: CliIo, file: string): Promise<E.Either<ReadonlyArray<CliError>, GuardFile>> =>
  pipe(
    readOneDocument(io, file, {
      noun: 'guard',
      hint: HINT,
      whenEmpty: 'write rules',
      whenSeveral: 'merge the rules into one',
      maxBytes: MAX_GUARD_BYTES,
    }),
    TE.flatMapEither(({ source, document }) =>
      pipe(
        decodeDocument(GuardPolicyDocument, document, HINT),
        E.map((decoded) => ({
          policy: guardPolicyOf(decoded),
          file: source.name,
          digest: `sha256:${createHash('sha256').update(source.text).digest('hex')}`,
          locate: document.locate,
        })),
      ),
    ),
  )();

/**
 * Every rule naming a kind `catalog` does not know, a path its kinds lack, or able to match
 * nothing, at its file:line with the closest known name: a guard fails closed (issue 36).
 */
export const guardSchemaErrors = (
  guard: GuardFile,
  catalog: SchemaCatalog,
  options: { readonly open?: boolean } = {},
): ReadonlyArray<CliError> =>
  guardPolicyIssues(guard.policy, catalog, options).map((issue) =>
    inputError(`${issue.message} (${HINT})`, {
      location: guard.locate === undefined ? { file: guard.file } : guard.locate(parsePath(issue.path)),
      path: issue.path,
    }),
  );
