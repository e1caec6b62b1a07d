/** The `-f` inputs of a command, read and validated: Applications and CRDs, or every error found. */
import * as E from 'fp-ts/lib/Either.js';
import { usageError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { scopesFor } from '../planning/scopes.js';
import { readApplications, specErrors, type ManifestInputs } from './applications.js';
import { expandDirectories } from './directories.js';
import { inInputOrder, loadEntries } from './load.js';
import { STDIN } from './source.js';

/**
 * Reads `filename` inputs (files, `-`, directories: their manifest files, below them too with
 * `recursive`) and validates every Application (shape, manifest, observer schemas).
 * Errors: all problems of all documents (one line each); no Application at all.
 */
export const readManifestInputs = async (
  io: CliIo,
  options: { readonly filename: ReadonlyArray<string>; readonly namespace: string; readonly recursive?: boolean },
): Promise<E.Either<ReadonlyArray<CliError>, ManifestInputs>> => {
  const expanded = await expandDirectories(io, options.filename, options.recursive === true);
  const loaded = await loadEntries(io, expanded.files);
  const read = readApplications(loaded.entries, options.namespace);
  const errors = [
    ...expanded.errors,
    ...loaded.errors,
    ...read.errors,
    ...specErrors(read.applications, scopesFor(read.crds, [])),
  ];
  if (errors.length > 0) return E.left(inInputOrder(errors, expanded.files));
  if (read.applications.length === 0) {
    return E.left([
      usageError(
        `no Application (kreconcile.io/v1alpha1) in ${options.filename.map((f) => (f === STDIN ? '<stdin>' : f)).join(', ')}: nothing to do`,
      ),
    ]);
  }
  return E.right({ applications: read.applications, crds: read.crds });
};
