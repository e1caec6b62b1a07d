/**
 * `--guard <file>`: the guard policy of `kreconcile plan`, `apply` and `run`, read and decoded at
 * the boundary; every problem is one line naming file:line and the field. Its digest (of the bytes
 * read) is what a saved plan records, so `apply` can tell whether it is given the same rules.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  decodeWith,
  guardPolicyIssues,
  guardPolicyOf,
  GuardPolicyDocument,
  type GuardPolicy,
  type Path,
  type SchemaCatalog,
} from '../../../core/internal.js';
import { inputError, type CliError, type Location } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { parseDocuments } from '../input/documents.js';
import { DEFAULT_LIMITS } from '../input/limits.js';
import { parsePath } from '../input/parse-path.js';
import { readSource } from '../input/source.js';
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
export const readGuard = async (io: CliIo, file: string): Promise<E.Either<ReadonlyArray<CliError>, GuardFile>> => {
  const source = await readSource(io, file, { maxBytes: MAX_GUARD_BYTES });
  if (E.isLeft(source)) return E.left([source.left]);
  const documents = parseDocuments(source.right, DEFAULT_LIMITS);
  if (E.isLeft(documents)) return documents;
  const [document, ...more] = documents.right;
  if (document === undefined)
    return E.left([
      inputError(`the guard file is empty: write rules (${HINT})`, { location: { file: source.right.name } }),
    ]);
  if (more.length > 0)
    return E.left([
      inputError('a guard file holds one document: merge the rules into one', { location: more[0]!.locate([]) }),
    ]);
  const decoded = decodeWith(GuardPolicyDocument, document.value, '');
  if (E.isLeft(decoded))
    return E.left(
      decoded.left.map((issue) =>
        inputError(`${issue.message} (${HINT})`, {
          location: document.locate(parsePath(issue.path)),
          ...(issue.path === '' ? {} : { path: issue.path }),
        }),
      ),
    );
  return E.right({
    policy: guardPolicyOf(decoded.right),
    file: source.right.name,
    digest: `sha256:${createHash('sha256').update(source.right.text).digest('hex')}`,
    locate: document.locate,
  });
};

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
