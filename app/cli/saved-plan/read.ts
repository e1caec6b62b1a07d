/** Reading a saved plan file (`apply`, `show`): the same input limits and one-line errors as `-f`. */
import * as E from 'fp-ts/lib/Either.js';
import { decodeWith, getOwn, isJsonObject, showIssue, type Issue } from '../../../core/internal.js';
import { inputError, type CliError } from '../cli-error.js';
import { parseDocuments } from '../input/documents.js';
import { DEFAULT_LIMITS } from '../input/limits.js';
import { parsePath } from '../input/parse-path.js';
import { readSource } from '../input/source.js';
import type { CliIo } from '../io.js';
import { SAVED_PLAN_API_VERSION, SavedPlanV1 } from './format.js';

const WHAT_TO_DO = 'give a file written by kreconcile plan --out';

/**
 * The saved plan in `path`.
 * Errors: unreadable or malformed file; not a saved plan (wrong apiVersion or kind); fields that
 * do not decode (every one, with its path and line).
 */
export const readSavedPlan = async (
  io: CliIo,
  path: string,
): Promise<E.Either<ReadonlyArray<CliError>, SavedPlanV1>> => {
  const source = await readSource(io, path, DEFAULT_LIMITS);
  if (E.isLeft(source)) return E.left([source.left]);
  const documents = parseDocuments(source.right, DEFAULT_LIMITS);
  if (E.isLeft(documents)) return documents;
  const [document, ...more] = documents.right;
  const location = { file: source.right.name };
  if (document === undefined || more.length > 0)
    return E.left([
      inputError(`a saved plan is one document, found ${documents.right.length}: ${WHAT_TO_DO}`, { location }),
    ]);
  const { value } = document;
  const apiVersion = isJsonObject(value) ? getOwn(value, 'apiVersion') : undefined;
  if (apiVersion !== SAVED_PLAN_API_VERSION) {
    return E.left([
      inputError(
        `not a saved plan (apiVersion ${JSON.stringify(apiVersion ?? null)}, expected ${SAVED_PLAN_API_VERSION}): ${WHAT_TO_DO}`,
        { location: document.locate([]) },
      ),
    ]);
  }
  return E.mapLeft((issues: ReadonlyArray<Issue>) =>
    issues.map((issue) =>
      inputError(`${showIssue(issue)}: the saved plan is damaged; ${WHAT_TO_DO}`, {
        location: document.locate(parsePath(issue.path)),
      }),
    ),
  )(decodeWith(SavedPlanV1, value, ''));
};
