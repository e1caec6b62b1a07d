/** Turns io-ts decoding failures into readable issues that name the JSON path. */
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { showPath, type PathStep } from '../json/path.js';
import { Application as ApplicationCodec, type Application } from './application.js';

/** One problem found in an input document. */
export type Issue = { readonly path: string; readonly message: string };

/** A value as an error message names it: `nothing`, `null`, `a list`, `an object`, `string "x"`. */
export const describeValue = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
};

const pathOf = (context: t.Context): ReadonlyArray<PathStep> =>
  context.flatMap<PathStep>((entry, i) => {
    if (i === 0 || entry.key === '') return [];
    if (!/^\d+$/.test(entry.key)) return [entry.key];
    return isArrayType(context[i - 1]) ? [Number(entry.key)] : [];
  });

// io-ts puts intersection members under numeric keys too; a numeric key is an array position
// only when the entry above it is the array's codec (the element entry carries the element's type).
const isArrayType = (parent: t.ContextEntry | undefined): boolean =>
  parent !== undefined && /^(Readonly)?Array<|^Array$/.test(parent.type.name);

/** Readable issues for every failure, deduplicated (intersections report the same failure twice). */
export const issuesOf = (errors: t.Errors, root: string): ReadonlyArray<Issue> => {
  const seen = new Set<string>();
  return errors.flatMap((error) => {
    const last = error.context[error.context.length - 1];
    const expected = last?.type.name ?? 'a valid value';
    const issue = {
      path: showPath(pathOf(error.context), root),
      message: error.message ?? `expected ${expected}, got ${describeValue(error.value)}`,
    };
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [issue];
  });
};

/** Decodes with a codec, reporting failures as path-named issues rooted at `root`. */
export const decodeWith = <A>(
  codec: t.Decoder<unknown, A>,
  input: unknown,
  root: string,
): E.Either<ReadonlyArray<Issue>, A> => E.mapLeft((errors: t.Errors) => issuesOf(errors, root))(codec.decode(input));

/** Decodes an Application document (shape only; the spec is validated by `validateSpec`). */
export const decodeApplication = (input: unknown): E.Either<ReadonlyArray<Issue>, Application> =>
  // The codec checks what the Application type says; io-ts cannot derive a type with SPEC_FIELDS' optional fields
  // named.
  decodeWith(ApplicationCodec, input, '') as E.Either<ReadonlyArray<Issue>, Application>;

export const showIssue = (issue: Issue): string =>
  issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`;
