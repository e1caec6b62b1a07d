/**
 * The inputs of `kreconcile serve`: `-f` files of any objects (Applications and CRDs validated as
 * every command validates them, every other document loaded as it is, as `kubectl apply -f` would
 * create it) and `--snapshot` recordings (`kreconcile snapshot`, `kubectl get -o yaml`), which
 * become the served cluster's starting state. Every problem of every input is reported.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Application, Resource } from '../../../core/internal.js';
import type { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { scopesFor } from './scopes.js';
import { readApplications, specErrors } from './applications.js';
import { expandDirectories } from './directories.js';
import { isApplication, isCustomResourceDefinition } from './kinds.js';
import { inInputOrder, loadEntries } from './load.js';
import { readSnapshot } from './snapshot.js';
import { translateInputs } from './tosca.js';

export type ServeInputs = {
  readonly crds: ReadonlyArray<Resource>;
  readonly applications: ReadonlyArray<Application>;
  readonly objects: ReadonlyArray<Resource>;
};

type Options = {
  readonly filename: ReadonlyArray<string>;
  readonly snapshot: ReadonlyArray<string>;
  readonly namespace: string;
  readonly recursive?: boolean;
};

const readFiles = async (io: CliIo, names: ReadonlyArray<string>, recursive: boolean) => {
  const expanded = await expandDirectories(io, names, recursive);
  const loaded = await loadEntries(io, expanded.files);
  return { files: expanded.files, entries: loaded.entries, errors: [...expanded.errors, ...loaded.errors] };
};

export const readServeInputs = async (
  io: CliIo,
  options: Options,
): Promise<E.Either<ReadonlyArray<CliError>, ServeInputs>> => {
  const files = await readFiles(io, options.filename, options.recursive === true);
  const snapshots = await readFiles(io, options.snapshot, false);
  const managed = files.entries.filter(({ value }) => isApplication(value) || isCustomResourceDefinition(value));
  const plain = files.entries.filter(({ value }) => !isApplication(value) && !isCustomResourceDefinition(value));
  const read = readApplications(managed, options.namespace);
  const translated = await translateInputs(io, read.applications, undefined);
  const objects = readSnapshot([...plain, ...snapshots.entries]);
  const problems = inInputOrder(
    [
      ...files.errors,
      ...snapshots.errors,
      ...read.errors,
      ...translated.errors,
      ...specErrors(translated.applications, scopesFor(read.crds, [])),
      ...(E.isLeft(objects) ? objects.left : []),
    ],
    [...files.files, ...snapshots.files],
  );
  if (problems.length > 0 || E.isLeft(objects)) return E.left(problems);
  const applications = translated.applications.map(({ application }) => application);
  return E.right({ crds: read.crds, applications, objects: objects.right.objects });
};
