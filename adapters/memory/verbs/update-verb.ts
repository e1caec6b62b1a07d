/** update and updateStatus: full replacement of a stored object (NotFound when absent; update never creates). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { refOf, type Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import type { KindInfo } from '../kinds/index.js';
import { replaceObject, type Subresource } from './replace-object.js';
import { storedObject, type ServerState } from '../server-state.js';
import { decodeInput } from './write-common.js';
import type { Ownership } from './ownership.js';
import { defined } from '../../../core/json/defined.js';

export const notFound = (
  info: KindInfo,
  ref: { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly namespace?: string },
): ClusterError =>
  clusterError('NotFound', `${info.plural}${info.group === '' ? '' : `.${info.group}`} "${ref.name}" not found`, {
    ref,
  });

/** The status subresource exists only for kinds that declare it (404 otherwise, as the route is missing). */
export const statusRoute = (
  info: KindInfo,
  subresource: Subresource,
  ref: { readonly apiVersion: string; readonly kind: string; readonly name: string },
): E.Either<ClusterError, KindInfo> =>
  subresource === 'main' || info.statusSubresource
    ? E.right(info)
    : E.left(
        clusterError('NotFound', `the server could not find the requested resource (${info.plural}/status)`, { ref }),
      );

export const updateObject = (
  state: ServerState,
  input: unknown,
  subresource: Subresource,
  options: { readonly dryRun?: boolean; readonly ownership?: Ownership } = {},
): E.Either<ClusterError, Resource> =>
  pipe(
    decodeInput(state, input),
    E.chainFirst(({ object, info }) => statusRoute(info, subresource, refOf(object))),
    E.bind('stored', ({ object, info }) =>
      pipe(
        storedObject(state, info, object.metadata.namespace, object.metadata.name),
        E.fromNullable(notFound(info, refOf(object))),
      ),
    ),
    E.chain(({ object, info, stored }) =>
      replaceObject(state, info, stored, object, {
        subresource,
        ...defined({ dryRun: options.dryRun, ownership: options.ownership }),
      }),
    ),
  );
