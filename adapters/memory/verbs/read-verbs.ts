/** get and list: absence is `none`, unknown kinds are `UnknownKind`, lists carry the collection resourceVersion. */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { pipe } from 'fp-ts/lib/function.js';
import type { ObjectRef, Resource } from '../../../core/model/resource.js';
import type { ListQuery, ResourceList } from '../../../core/ports/cluster.js';
import type { ClusterError } from '../../../core/ports/errors.js';
import { matchesSelector, parseSelector } from '../watch/index.js';
import { objectsOfKind, storedObject, type ServerState } from '../server-state.js';
import { servedAs } from '../json/index.js';

export const getObject = (state: ServerState, ref: ObjectRef): E.Either<ClusterError, O.Option<Resource>> =>
  pipe(
    state.registry.resolve(ref.apiVersion, ref.kind),
    E.map((info) =>
      pipe(
        O.fromNullable(storedObject(state, info, ref.namespace, ref.name)),
        O.map((object) => servedAs(object, ref.apiVersion)),
      ),
    ),
  );

export const listObjects = (state: ServerState, query: ListQuery): E.Either<ClusterError, ResourceList> =>
  pipe(
    E.Do,
    E.bind('info', () => state.registry.resolve(query.apiVersion, query.kind)),
    E.bind('selector', () => parseSelector(query.labelSelector)),
    E.map(({ info, selector }) => ({
      items: objectsOfKind(state, info, query.namespace)
        .filter((object) => matchesSelector(selector, object.metadata.labels))
        .map((object) => servedAs(object, query.apiVersion)),
      resourceVersion: String(state.resourceVersion),
    })),
  );
