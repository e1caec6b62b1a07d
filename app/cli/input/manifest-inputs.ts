/** The `-f` inputs of a command, read and validated: Applications and CRDs, or every error found. */
import * as E from 'fp-ts/lib/Either.js';
import { usageError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { scopesFor } from './scopes.js';
import { placedErrors, readApplications, specErrors, subjectOf, type ManifestInputs } from './applications.js';
import type { PlainManifests } from './plain-manifests.js';
import { expandDirectories } from './directories.js';
import { inInputOrder, loadEntries } from './load.js';
import { STDIN } from './source.js';
import { translateInputs, type ToscaAccess } from './tosca.js';

/**
 * The valid Applications of the inputs, with every problem found (`plan -f dir/`: one bad Application hides no other).
 */
export type PartialInputs = { readonly inputs: ManifestInputs; readonly problems: ReadonlyArray<CliError> };

type InputOptions = {
  readonly filename: ReadonlyArray<string>;
  readonly namespace: string;
  readonly recursive?: boolean;
  /** Where templates by URL may be read from; absent: only inline templates are translated. */
  readonly tosca?: ToscaAccess;
  /** How documents other than Applications and CRDs are read; absent: each is an error. */
  readonly plainManifests?: PlainManifests;
};

/**
 * Reads `filename` inputs (files, `-`, directories: their manifest files, below them too with
 * `recursive`), translates TOSCA templates as `tosca` allows (input/tosca.ts) and validates every
 * Application (shape, manifest or translated manifest, observer schemas). An Application with a
 * problem (spec, schema, translation, duplicate name) is left out and reported while the others
 * are kept; documents that cannot be read are reported.
 * Errors: no Application and no problem at all in the inputs (nothing to do).
 */
export const readValidManifestInputs = async (
  io: CliIo,
  options: InputOptions,
): Promise<E.Either<ReadonlyArray<CliError>, PartialInputs>> => {
  const expanded = await expandDirectories(io, options.filename, options.recursive === true);
  const loaded = await loadEntries(io, expanded.files);
  const read = readApplications(loaded.entries, options.namespace, options.plainManifests);
  const translated = await translateInputs(io, read.applications, options.tosca);
  const problems = inInputOrder(
    [
      ...expanded.errors,
      ...loaded.errors,
      ...read.errors,
      ...translated.errors,
      ...specErrors(translated.applications, scopesFor(read.crds, [])),
    ],
    expanded.files,
  );
  const withProblems = new Set(problems.flatMap((problem) => (problem.subject === undefined ? [] : [problem.subject])));
  const applications = translated.applications.filter(({ application }) => !withProblems.has(subjectOf(application)));
  if (read.applications.length === 0 && problems.length === 0 && options.plainManifests === undefined) {
    return E.left([
      usageError(
        `no Application (kreconcile.io/v1alpha1) in ${shownNames(options.filename)}: nothing to do (plain manifests are read as one Application with --as-application NAME)`,
      ),
    ]);
  }
  if (read.applications.length === 0 && problems.length === 0)
    return E.left([usageError(`no Application and no manifest in ${shownNames(options.filename)}: nothing to do`)]);
  return E.right({
    inputs: { applications, crds: read.crds },
    problems: placedErrors(problems, translated.applications),
  });
};

const shownNames = (names: ReadonlyArray<string>): string => names.map((f) => (f === STDIN ? '<stdin>' : f)).join(', ');

/** Like `readValidManifestInputs`, but any problem is an error: all problems of all documents, one line each. */
export const readManifestInputs = async (
  io: CliIo,
  options: InputOptions,
): Promise<E.Either<ReadonlyArray<CliError>, ManifestInputs>> => {
  const read = await readValidManifestInputs(io, options);
  if (E.isLeft(read)) return read;
  return read.right.problems.length > 0 ? E.left(read.right.problems) : E.right(read.right.inputs);
};
