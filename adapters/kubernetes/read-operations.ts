/** ClusterReader over REST: get (404 → none) and list (all pages, with the list's resourceVersion). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as O from 'fp-ts/lib/Option.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { getIn, isJsonArray, type JsonValue } from '../../core/json/json.js';
import type { ObjectRef, Resource } from '../../core/model/resource.js';
import type { ClusterReader, ListQuery, ResourceList } from '../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../core/ports/errors.js';
import { isUnservedPath } from './discovery.js';
import { withKind, type OperationContext } from './operation-context.js';
import { collectionPath, objectPath, type ResourceInfo } from './resource-paths.js';
import { toResource } from './response-decoding.js';

/** Page size for list: bounded memory per request on big collections. */
const pageSize = 500;

export const getObject =
  (context: OperationContext) =>
  (ref: ObjectRef): TE.TaskEither<ClusterError, O.Option<Resource>> =>
    withKind(context, ref, ref, (info) =>
      pipe(
        TE.fromEither(objectPath(info, ref)),
        TE.flatMap((path) => context.rest.send({ method: 'GET', path })),
        TE.flatMapEither((value) => toResource(value, ref, ref)),
        TE.map(O.some),
        // Absence is not an error on reads; a path not served is (withKind rechecks the kind).
        TE.orElse((error) => (error._tag === 'NotFound' && !isUnservedPath(error) ? TE.right(O.none) : TE.left(error))),
      ),
    );

type Page = {
  readonly items: ReadonlyArray<Resource>;
  readonly resourceVersion: string;
  readonly continueToken?: string;
};

const decodePage = (value: JsonValue, query: ListQuery): E.Either<ClusterError, Page> => {
  const items = getIn(value, ['items']);
  const resourceVersion = getIn(value, ['metadata', 'resourceVersion']);
  const continueToken = getIn(value, ['metadata', 'continue']);
  if (!isJsonArray(items) || typeof resourceVersion !== 'string') {
    return E.left(
      clusterError('Internal', `the server answered a ${query.kind} list without items or resourceVersion`, {
        code: 200,
      }),
    );
  }
  return pipe(
    E.traverseArray((item: JsonValue) => toResource(item, query))(items),
    E.map((resources) => ({
      items: resources,
      resourceVersion,
      ...(typeof continueToken === 'string' && continueToken !== '' ? { continueToken } : {}),
    })),
  );
};

// Every page of a paginated list is served from the same snapshot, so one resourceVersion
// describes the whole result; an expired continue token surfaces as Gone (410).
const listPages =
  (context: OperationContext, info: ResourceInfo, query: ListQuery) =>
  async (): Promise<E.Either<ClusterError, ResourceList>> => {
    const items: Resource[] = [];
    let continueToken: string | undefined;
    for (;;) {
      const page = await pipe(
        context.rest.send({
          method: 'GET',
          path: collectionPath(info, query.namespace),
          query: { labelSelector: query.labelSelector, limit: String(pageSize), continue: continueToken },
        }),
        TE.flatMapEither((value) => decodePage(value, query)),
      )();
      if (E.isLeft(page)) return page;
      items.push(...page.right.items);
      continueToken = page.right.continueToken;
      if (continueToken === undefined) return E.right({ items, resourceVersion: page.right.resourceVersion });
    }
  };

export const listObjects =
  (context: OperationContext) =>
  (query: ListQuery): TE.TaskEither<ClusterError, ResourceList> =>
    withKind(context, query, undefined, (info) =>
      pipe(
        listPages(context, info, query),
        TE.orElseFirstIOK((error) => () => {
          // A 404 on a collection we resolved means the kind went away (CRD deleted): rediscover next time.
          if (error._tag === 'NotFound') context.kinds.invalidate(query.apiVersion);
        }),
      ),
    );

export const createReader = (context: OperationContext): ClusterReader => ({
  get: getObject(context),
  list: listObjects(context),
});
