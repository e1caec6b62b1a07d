/** The `-f` inputs of a command, read and validated: Applications and CRDs, or every error found. */
import * as E from 'fp-ts/lib/Either.js';
import { usageError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { scopesFor } from '../planning/scopes.js';
import { readApplications, specErrors, type ManifestInputs } from './applications.js';
import { expandDirectories } from './directories.js';
import { inInputOrder, loadEntries } from './load.js';
import { STDIN } from './source.js';
import { translateInputs, type ToscaAccess } from './tosca.js';

/**
 * Reads `filename` inputs (files, `-`, directories: their manifest files, below them too with
 * `recursive`), translates TOSCA templates as `tosca` allows (input/tosca.ts) and validates every
 * Application (shape, manifest or translated manifest, observer schemas).
 * Errors: all problems of all documents (one line each); no Application at all.
 */
export const readManifestInputs = async (
  io: CliIo,
  options: {
    readonly filename: ReadonlyArray<string>;
    readonly namespace: string;
    readonly recursive?: boolean;
    /** Where templates by URL may be read from; absent: only inline templates are translated. */
    readonly tosca?: ToscaAccess;
  },
): Promise<E.Either<ReadonlyArray<CliError>, ManifestInputs>> => {
  const expanded = await expandDirectories(io, options.filename, options.recursive === true);
  const loaded = await loadEntries(io, expanded.files);
  const read = readApplications(loaded.entries, options.namespace);
  const translated = await translateInputs(io, read.applications, options.tosca);
  const errors = [
    ...expanded.errors,
    ...loaded.errors,
    ...read.errors,
    ...translated.errors,
    ...specErrors(translated.applications, scopesFor(read.crds, [])),
  ];
  if (errors.length > 0) return E.left(inInputOrder(errors, expanded.files));
  if (read.applications.length === 0) {
    return E.left([
      usageError(
        `no Application (kreconcile.io/v1alpha1) in ${options.filename.map((f) => (f === STDIN ? '<stdin>' : f)).join(', ')}: nothing to do`,
      ),
    ]);
  }
  return E.right({ applications: translated.applications, crds: read.crds });
};
