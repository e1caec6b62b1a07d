/** What every object operation needs: the REST client, kind resolution, and error decoration. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import type { ObjectRef } from '../../core/model/resource.js';
import type { ClusterError } from '../../core/ports/errors.js';
import { withSecretValuesMasked } from './api-errors.js';
import { recheckKind, type KindResolver } from './discovery.js';
import type { ResourceInfo } from './resource-paths.js';
import type { RestClient } from './rest-client.js';

export type OperationContext = { readonly rest: RestClient; readonly kinds: KindResolver };

/**
 * Attaches the object the failure is about (the REST layer does not know it); for a Secret, masks
 * the values the server quoted (issue 19: error text reaches conditions, Events and logs).
 */
export const aboutRef =
  (ref: ObjectRef | undefined) =>
  (error: ClusterError): ClusterError => {
    const about = ref === undefined || error.ref !== undefined ? error : { ...error, ref };
    return ref !== undefined && ref.apiVersion === 'v1' && ref.kind === 'Secret'
      ? withSecretValuesMasked(about)
      : about;
  };

/**
 * Resolves the kind, then runs `operation`; every error names `ref`. A 404 that names no object
 * (the kind's path is not served any more) is checked against discovery again: `UnknownKind` when
 * the kind is gone.
 */
export const withKind = <A>(
  context: OperationContext,
  type: { readonly apiVersion: string; readonly kind: string },
  ref: ObjectRef | undefined,
  operation: (info: ResourceInfo) => TE.TaskEither<ClusterError, A>,
): TE.TaskEither<ClusterError, A> =>
  pipe(
    context.kinds.resolve(type.apiVersion, type.kind),
    TE.flatMap((info) =>
      pipe(
        operation(info),
        TE.orElseW((error) => async () => E.left(await recheckKind(context.kinds, type, error))),
      ),
    ),
    TE.mapLeft(aboutRef(ref)),
  );
