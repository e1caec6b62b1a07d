/**
 * An admin file that holds one YAML or JSON document (a tenancy policy, field managers, a guard): read
 * within its size limit, parsed, checked to be one document, decoded. Every problem is one line with
 * file:line and the field, and the format's hint.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import type * as t from 'io-ts';
import { decodeWith } from '../../../core/internal.js';
import { inputError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { parseDocuments, type Document } from './documents.js';
import { DEFAULT_LIMITS } from './limits.js';
import { parsePath } from './parse-path.js';
import { readSource, type Source } from './source.js';

/** What a file is, for its error messages. */
export type OneDocumentKind = {
  /** `policy`: error lines say "the policy file". */
  readonly noun: string;
  /** Where the format is described, appended to a decoding problem. */
  readonly hint: string;
  /** What to write when the file is empty. */
  readonly whenEmpty: string;
  /** What to do when it holds several documents. */
  readonly whenSeveral: string;
  readonly maxBytes: number;
};

/** The file's one document, with the source it was read from. */
export type OneDocument = { readonly source: Source; readonly document: Document };

const theOnly =
  (source: Source, kind: OneDocumentKind) =>
  (documents: ReadonlyArray<Document>): E.Either<ReadonlyArray<CliError>, OneDocument> => {
    const [document, ...more] = documents;
    if (document === undefined)
      return E.left([
        inputError(`the ${kind.noun} file is empty: ${kind.whenEmpty} (${kind.hint})`, {
          location: { file: source.name },
        }),
      ]);
    if (more.length > 0)
      return E.left([
        inputError(`a ${kind.noun} file holds one document: ${kind.whenSeveral}`, { location: more[0]!.locate([]) }),
      ]);
    return E.right({ source, document });
  };

export const readOneDocument = (
  io: CliIo,
  file: string,
  kind: OneDocumentKind,
): TE.TaskEither<ReadonlyArray<CliError>, OneDocument> =>
  pipe(
    () => readSource(io, file, { maxBytes: kind.maxBytes }),
    TE.mapLeft((error) => [error]),
    TE.flatMapEither((source) => pipe(parseDocuments(source, DEFAULT_LIMITS), E.flatMap(theOnly(source, kind)))),
  );

/** `document` decoded with `codec`, or every field that does not decode, at its line, with the hint. */
export const decodeDocument = <A>(
  codec: t.Decoder<unknown, A>,
  document: Document,
  hint: string,
): E.Either<ReadonlyArray<CliError>, A> =>
  pipe(
    decodeWith(codec, document.value, ''),
    E.mapLeft((issues) =>
      issues.map((issue) =>
        inputError(`${issue.message} (${hint})`, {
          location: document.locate(parsePath(issue.path)),
          ...(issue.path === '' ? {} : { path: issue.path }),
        }),
      ),
    ),
  );
