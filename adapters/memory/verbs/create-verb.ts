/**
 * create: the API server's create path — kind resolution, namespace admission, name rules,
 * system metadata, status reset, defaulting, per-kind preparation, validation, then storage.
 * Errors: BadRequest (a field of the wrong type — typed-decoding.ts), UnknownKind, NotFound
 * (namespace), Forbidden (terminating namespace or CRD), Invalid, AlreadyExists, Internal (a
 * resourceVersion on a new object).
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { refOf, type Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { commitPut, inServerOrder } from './commit.js';
import { admitWhileCrdTerminating } from './crd-admission.js';
import { groupKindKey, type KindInfo } from '../kinds/index.js';
import { hooksFor } from '../hooks/index.js';
import { createdMeta, validateName } from '../typing/index.js';
import { uidFrom } from '../faults/index.js';
import { namespaceFor, storedObject, type ServerState } from '../server-state.js';
import { servedAs } from '../json/index.js';
import { statusOnCreate } from './status-rules.js';
import { admitted } from '../admission/index.js';
import { admitNamespace, decodeInput, defaulted, validated } from './write-common.js';
import { withinStorageLimit } from './storage-limit.js';
import { owned, type Ownership } from './ownership.js';
import { defined } from '../../../core/json/defined.js';

export type CreateOptions = {
  readonly dryRun?: boolean;
  /** Who creates, for managedFields (an Update by `unknown` when unsaid). */
  readonly ownership?: Ownership;
};

const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** `metadata.generateName` + 5 random characters when no name is given. */
const withName = (state: ServerState, object: Resource): Resource => {
  const prefix = object.metadata.generateName;
  if (object.metadata.name !== '' || typeof prefix !== 'string') return object;
  const suffix = Array.from({ length: 5 }, () => nameAlphabet[Math.floor(state.ids() * nameAlphabet.length)]).join('');
  return { ...object, metadata: { ...object.metadata, name: `${prefix}${suffix}` } };
};

const noResourceVersion = (object: Resource): E.Either<ClusterError, Resource> =>
  object.metadata.resourceVersion === undefined || object.metadata.resourceVersion === ''
    ? E.right(object)
    : E.left(
        clusterError('Internal', 'resourceVersion should not be set on objects to be created', { ref: refOf(object) }),
      );

const notExisting = (state: ServerState, info: KindInfo, object: Resource): E.Either<ClusterError, Resource> =>
  storedObject(state, info, object.metadata.namespace, object.metadata.name) === undefined
    ? E.right(object)
    : E.left(
        clusterError(
          'AlreadyExists',
          `${info.plural}${info.group === '' ? '' : `.${info.group}`} "${object.metadata.name}" already exists`,
          { ref: refOf(object) },
        ),
      );

/** The object as create would store it (before the resourceVersion). */
const prepared = (
  state: ServerState,
  info: KindInfo,
  object: Resource,
  options: CreateOptions,
): E.Either<ClusterError, Resource> => {
  const namespace = object.metadata.namespace;
  const meta = createdMeta(object.metadata, {
    uid: uidFrom(state.ids),
    now: state.clock.now(),
    generation: info.generation,
    ...defined({ namespace }),
  });
  const decoded = defaulted(state, info, statusOnCreate(info, { ...object, metadata: meta }));
  // Ownership is computed on the object as decoded and defaulted, before admission, as the server does.
  const tracked = owned(state, info, {
    live: undefined,
    next: decoded,
    apiVersion: object.apiVersion,
    subresource: 'main',
    ownership: options.ownership,
    requested: object,
  });
  const fresh = admitted(state.admission, info, tracked, 'CREATE');
  const prepare = hooksFor(groupKindKey(info.group, info.kind)).prepareCreate;
  return prepare === undefined ? E.right(fresh) : prepare(fresh, { state, dryRun: options.dryRun === true });
};

/** Creates `input`; answers the object as stored (or as it would be, on a dry run). */
export const createObject = (
  state: ServerState,
  input: unknown,
  options: CreateOptions = {},
): E.Either<ClusterError, Resource> =>
  pipe(
    decodeInput(state, input),
    E.bind('placed', ({ object, info }) =>
      pipe(
        noResourceVersion(withName(state, object)),
        E.map((o) => placed(info, o)),
        E.chain((o) => admitNamespace(state, info, o)),
        E.chain((o) => admitWhileCrdTerminating(state, info, o)),
      ),
    ),
    E.bind('ready', ({ placed, info }) =>
      pipe(
        prepared(state, info, placed, options),
        E.chainFirst((o) => validateName(info, refOf(o))),
        E.chain((o) => validated(state, info, o)),
        E.chain((o) => notExisting(state, info, o)),
        E.chain((o) => withinStorageLimit(state, info, o)),
      ),
    ),
    E.map(({ object, info, ready }) => {
      if (options.dryRun === true) return servedAs(inServerOrder(info, ready), object.apiVersion);
      const stored = commitPut(state, info, ready);
      hooksFor(groupKindKey(info.group, info.kind)).committed?.(stored, { state, dryRun: false });
      return servedAs(stored, object.apiVersion);
    }),
  );

/** The namespace set for namespaced kinds (`default` when unset) and dropped for cluster-scoped ones. */
const placed = (info: KindInfo, object: Resource): Resource => {
  const { namespace: _written, ...rest } = object.metadata;
  const namespace = namespaceFor(info, object.metadata.namespace);
  return { ...object, metadata: { ...rest, ...defined({ namespace }) } };
};
