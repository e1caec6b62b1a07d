/**
 * `--snapshot` inputs: live objects as `kubectl get -o yaml` prints them (a List, or several
 * documents). Applications among them supply the status the operator last wrote.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  decodeApplication,
  decodeWith,
  jsonEqual,
  refKey,
  refOf,
  Resource,
  showRef,
  uniqueResources,
  type Application,
} from '../../../core/internal.js';
import type { CliError } from '../cli-error.js';
import { applicationName } from './applications.js';
import { describeObject, errorAt, type Entry, type Origin } from './entries.js';
import { isApplication } from './kinds.js';
import { tidyIssues } from './tidy-issues.js';
import { withReadableStatus } from '../../status/stored-status.js';

export type Snapshot = {
  readonly objects: ReadonlyArray<Resource>;
  /** Applications found among the objects, by `namespace/name`. */
  readonly applications: ReadonlyMap<string, Application>;
};

export const EMPTY_SNAPSHOT: Snapshot = { objects: [], applications: new Map() };

type Read = {
  readonly object?: Resource;
  readonly application?: Application;
  readonly errors: ReadonlyArray<CliError>;
};

/**
 * The live objects of the snapshot inputs.
 * Errors: an object without apiVersion/kind/metadata.name, an Application whose status cannot be
 * read, the same object twice with different contents.
 */
export const readSnapshot = (entries: ReadonlyArray<Entry>): E.Either<ReadonlyArray<CliError>, Snapshot> => {
  const read = entries.map(readEntry);
  const errors = [...read.flatMap((r) => r.errors), ...duplicateErrors(entries, read)];
  if (errors.length > 0) return E.left(errors);
  const objects = uniqueResources(read.flatMap((r) => (r.object === undefined ? [] : [r.object])));
  const applications = new Map(
    read.flatMap((r) =>
      r.application === undefined ? [] : [[applicationName(r.application), r.application] as const],
    ),
  );
  return E.right({ objects, applications });
};

const readEntry = ({ value, origin }: Entry): Read => {
  const decoded = decodeWith(Resource, value, '');
  if (E.isLeft(decoded))
    return {
      errors: tidyIssues(decoded.left).map((issue) =>
        errorAt(
          origin,
          issue.path,
          `${issue.message} (every live object has apiVersion, kind and metadata.name)`,
          describeObject(value),
        ),
      ),
    };
  if (!isApplication(value)) return { object: decoded.right, errors: [] };
  const application = decodeApplication(withReadableStatus(value));
  if (E.isLeft(application))
    return {
      errors: tidyIssues(application.left).map((issue) =>
        errorAt(origin, issue.path, issue.message, describeObject(value)),
      ),
    };
  return { object: decoded.right, application: application.right, errors: [] };
};

// Overlapping `kubectl get` outputs repeat objects: harmless when identical, ambiguous otherwise.
const duplicateErrors = (entries: ReadonlyArray<Entry>, read: ReadonlyArray<Read>): ReadonlyArray<CliError> => {
  const first = new Map<string, { readonly object: Resource; readonly origin: Origin }>();
  return read.flatMap((r, i) => {
    const entry = entries[i];
    if (r.object === undefined || entry === undefined) return [];
    const key = refKey(refOf(r.object));
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, { object: r.object, origin: entry.origin });
      return [];
    }
    if (jsonEqual(earlier.object, r.object)) return [];
    return [
      errorAt(
        entry.origin,
        [],
        `${showRef(refOf(r.object))} is also in ${earlier.origin.file} document ${earlier.origin.document}, with different contents: keep one copy`,
      ),
    ];
  });
};

/** Objects read from a live cluster, as entries (errors about them name the cluster). */
export const liveEntries = (objects: ReadonlyArray<Resource>, cluster: string): ReadonlyArray<Entry> =>
  objects.map((value, i) => ({
    value,
    origin: { file: cluster, document: i + 1, prefix: [], locate: () => ({ file: cluster }) },
  }));
