/**
 * A read-only cluster for CLI tests: serves `get` and `list` over a fixed set of objects, with
 * API-server answers for unserved kinds and injectable failures. (The CLI only ever reads.)
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import {
  builtinScopes,
  clusterError,
  getIn,
  getOwn,
  groupOf,
  isJsonObject,
  refKey,
  refOf,
  scopeKey,
  type ClusterError,
  type ClusterReader,
  type ListQuery,
  type ObjectRef,
  type Resource,
} from '../../../core/internal.js';

export type FakeCluster = ClusterReader & { readonly calls: ReadonlyArray<string> };

const labelsOf = (object: Resource): Readonly<Record<string, string>> => {
  const labels = getOwn(object.metadata, 'labels');
  return isJsonObject(labels) ? (labels as Readonly<Record<string, string>>) : {};
};

// Only the selector syntax the CLI sends: comma-separated key=value.
const matches = (object: Resource, selector: string | undefined): boolean =>
  selector === undefined ||
  selector.split(',').every((term) => {
    const [key, value] = term.split('=') as [string, string];
    return labelsOf(object)[key] === value;
  });

export const fakeCluster = (
  objects: ReadonlyArray<Resource>,
  options: { readonly failures?: Readonly<Record<string, ClusterError>> } = {},
): FakeCluster => {
  const calls: string[] = [];
  const crdKinds = objects.flatMap((object) =>
    object.kind === 'CustomResourceDefinition'
      ? [`${String(getIn(object, ['spec', 'group']))}/${String(getIn(object, ['spec', 'names', 'kind']))}`]
      : [],
  );
  const served = (apiVersion: string, kind: string): boolean =>
    builtinScopes.has(scopeKey(apiVersion, kind)) || crdKinds.includes(`${groupOf(apiVersion)}/${kind}`);
  const answer =
    <A>(call: string, apiVersion: string, kind: string, value: () => A): TE.TaskEither<ClusterError, A> =>
    async () => {
      calls.push(call);
      const failure = options.failures?.[call] ?? options.failures?.[kind];
      if (failure !== undefined) return E.left(failure);
      if (!served(apiVersion, kind))
        return E.left(
          clusterError('UnknownKind', `the server could not find the requested resource (${apiVersion} ${kind})`),
        );
      return E.right(value());
    };
  const byRef = new Map(objects.map((object) => [refKey(refOf(object)), object]));
  return {
    calls,
    get: (ref: ObjectRef) =>
      answer(`get ${refKey(ref)}`, ref.apiVersion, ref.kind, () => O.fromNullable(byRef.get(refKey(ref)))),
    list: (query: ListQuery) =>
      answer(
        `list ${query.apiVersion} ${query.kind} ${query.labelSelector ?? ''}`.trim(),
        query.apiVersion,
        query.kind,
        () => ({
          resourceVersion: '99999',
          items: objects.filter(
            (object) =>
              object.apiVersion === query.apiVersion &&
              object.kind === query.kind &&
              (query.namespace === undefined || object.metadata.namespace === query.namespace) &&
              matches(object, query.labelSelector),
          ),
        }),
      ),
  };
};
