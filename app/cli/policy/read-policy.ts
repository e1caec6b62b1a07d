/**
 * `--policy <file>`: the admin's tenancy policy for `kreconcile run` and `kreconcile plan`, read
 * and decoded at the boundary; every problem is one line naming file:line and the field.
 */
import * as E from 'fp-ts/lib/Either.js';
import { decodeWith, policyOf, TenancyPolicyDocument, type TenancyPolicy } from '../../../core/index.js';
import { inputError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { parseDocuments } from '../input/documents.js';
import { DEFAULT_LIMITS } from '../input/limits.js';
import { parsePath } from '../input/parse-path.js';
import { readSource } from '../input/source.js';

/** A policy is a few rules: anything near this size is not one. */
const MAX_POLICY_BYTES = 1024 * 1024;

const HINT = 'see docs/security.md, "Policy file reference"';

/** The policy in `file` (YAML or JSON, one document), or every problem found in it. */
export const readPolicy = async (
  io: CliIo,
  file: string,
): Promise<E.Either<ReadonlyArray<CliError>, TenancyPolicy>> => {
  const source = await readSource(io, file, { maxBytes: MAX_POLICY_BYTES });
  if (E.isLeft(source)) return E.left([source.left]);
  const documents = parseDocuments(source.right, DEFAULT_LIMITS);
  if (E.isLeft(documents)) return documents;
  const [document, ...more] = documents.right;
  if (document === undefined)
    return E.left([
      inputError(`the policy file is empty: write destinations, clusterKinds or adoption (${HINT})`, {
        location: { file: source.right.name },
      }),
    ]);
  if (more.length > 0)
    return E.left([
      inputError('a policy file holds one document: merge the rules into one', { location: more[0]!.locate([]) }),
    ]);
  const decoded = decodeWith(TenancyPolicyDocument, document.value, '');
  if (E.isLeft(decoded)) {
    return E.left(
      decoded.left.map((issue) =>
        inputError(`${issue.message} (${HINT})`, {
          location: document.locate(parsePath(issue.path)),
          ...(issue.path === '' ? {} : { path: issue.path }),
        }),
      ),
    );
  }
  return E.right(policyOf(decoded.right));
};
