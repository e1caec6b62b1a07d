/** Reads and parses every named input, collecting all problems before giving up. */
import * as E from 'fp-ts/lib/Either.js';
import { usageError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { parseDocuments } from './documents.js';
import { entriesOf, type Entry } from './entries.js';
import { DEFAULT_LIMITS, type InputLimits } from './limits.js';
import { readSource, STDIN } from './source.js';

/** What the inputs held, and every problem found in them. */
export type Loaded = { readonly entries: ReadonlyArray<Entry>; readonly errors: ReadonlyArray<CliError> };

/**
 * The objects of all inputs, in order (files, documents, List items), along with every problem:
 * a broken file does not hide the problems of the others.
 * Errors: unreadable files, syntax and limit problems, non-object documents; `-` named twice.
 */
export const loadEntries = async (
  io: CliIo,
  names: ReadonlyArray<string>,
  limits: InputLimits = DEFAULT_LIMITS,
): Promise<Loaded> => {
  if (names.filter((name) => name === STDIN).length > 1)
    return {
      entries: [],
      errors: [usageError('standard input (-) can be read only once: name it in one -f or --snapshot')],
    };
  const errors: CliError[] = [];
  const entries: Entry[] = [];
  for (const name of names) {
    const source = await readSource(io, name, limits);
    if (E.isLeft(source)) {
      errors.push(source.left);
      continue;
    }
    const documents = parseDocuments(source.right, limits);
    if (E.isLeft(documents)) {
      errors.push(...documents.left);
      continue;
    }
    for (const document of documents.right) {
      const objects = entriesOf(document);
      if (E.isLeft(objects)) errors.push(...objects.left);
      else entries.push(...objects.right);
    }
  }
  return { entries, errors };
};

/** Errors in the order of the inputs named on the command line, then by position. */
export const inInputOrder = (
  errors: ReadonlyArray<CliError>,
  names: ReadonlyArray<string>,
): ReadonlyArray<CliError> => {
  const shown = names.map((name) => (name === STDIN ? '<stdin>' : name));
  const rank = (error: CliError): readonly [number, number, number, number] => {
    const location = error.location;
    if (location === undefined) return [-1, 0, 0, 0];
    const file = shown.indexOf(location.file);
    return [file < 0 ? shown.length : file, location.document ?? 0, location.line ?? 0, location.column ?? 0];
  };
  return errors
    .map((error, index) => ({ error, index, rank: rank(error) }))
    .sort(
      (a, b) =>
        a.rank[0] - b.rank[0] ||
        a.rank[1] - b.rank[1] ||
        a.rank[2] - b.rank[2] ||
        a.rank[3] - b.rank[3] ||
        a.index - b.index,
    )
    .map(({ error }) => error);
};
