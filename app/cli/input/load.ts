/** Reads and parses every named input, collecting all problems before giving up. */
import * as E from 'fp-ts/lib/Either.js';
import { usageError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { parseDocuments } from './documents.js';
import { entriesOf, type Entry } from './entries.js';
import { DEFAULT_LIMITS, type InputLimits } from './limits.js';
import { readSource, STDIN } from './source.js';

/**
 * The objects of all inputs, in order (files, documents, List items).
 * Errors: unreadable files, syntax and limit problems, non-object documents; `-` named twice.
 */
export const loadEntries = async (io: CliIo, names: ReadonlyArray<string>, limits: InputLimits = DEFAULT_LIMITS): Promise<E.Either<ReadonlyArray<CliError>, ReadonlyArray<Entry>>> => {
  if (names.filter((name) => name === STDIN).length > 1) return E.left([usageError('standard input (-) can be read only once: name it in one -f or --snapshot')]);
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
  return errors.length > 0 ? E.left(errors) : E.right(entries);
};
