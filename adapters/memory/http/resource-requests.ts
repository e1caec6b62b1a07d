/**
 * REST verbs on collections and objects, translated to the memory cluster's port: GET (get /
 * list), POST (create), PUT (update / updateStatus), PATCH (by Content-Type), DELETE. Request
 * bodies are hostile input: decoded here, refused with the API server's 400/415/422 answers.
 */
import * as E from 'fp-ts/lib/Either.js';
import { managerOrUserAgent } from '../field-manager/index.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as O from 'fp-ts/lib/Option.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_JSON_BOUNDS, withinBounds } from '../../../core/json/bounds.js';
import { isJsonArray, isJsonObject, type JsonObject, type JsonValue, parseJsonText } from '../../../core/json/json.js';
import type { JsonPatchOperation } from '../../../core/model/plan.js';
import type { ObjectRef, Resource } from '../../../core/model/resource.js';
import type {
  Cluster,
  DeleteOptions,
  DeletePreconditions,
  Patch,
  PropagationPolicy,
  WriteOptions,
} from '../../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import type { KindAt } from './api-routes.js';
import { matchesFields, pageOf, parseFieldSelector } from './list-query.js';
import { deletedStatus } from './status-response.js';
import { unsupportedPatchType } from '../strategic/index.js';
import { defined } from '../../../core/json/defined.js';

export type Target =
  | { readonly type: 'collection'; readonly kind: KindAt; readonly namespace?: string }
  | {
      readonly type: 'object';
      readonly kind: KindAt;
      readonly namespace?: string;
      readonly name: string;
      readonly subresource?: 'status';
    };

export type ResourceRequest = {
  readonly method: string;
  readonly target: Target;
  readonly query: URLSearchParams;
  readonly body: string;
  readonly contentType: string;
  /**
   * The client's User-Agent: the manager of a write that names no fieldManager (its prefix, as the server takes it).
   */
  readonly userAgent?: string;
};

export type Answer = { readonly code: number; readonly body: JsonValue };

const ok = (body: JsonValue, code = 200): Answer => ({ code, body });
const badRequest = (message: string): ClusterError => clusterError('BadRequest', message);

const refOf = (target: Extract<Target, { type: 'object' }>): ObjectRef => ({
  apiVersion: target.kind.apiVersion,
  kind: target.kind.kind,
  name: target.name,
  ...defined({ namespace: target.namespace }),
});

/** Refuses bodies nested too deep or too large for the verbs, which recurse over objects. */
const bounded = (value: JsonValue): E.Either<ClusterError, JsonValue> =>
  pipe(
    withinBounds(value, DEFAULT_JSON_BOUNDS),
    E.mapLeft((problem) =>
      badRequest(`the request body is refused at ${problem.path.join('.') || 'its root'}: ${problem.message}`),
    ),
  );

const parseJson = (text: string): E.Either<ClusterError, JsonValue> =>
  pipe(
    E.tryCatch(
      () => parseJsonText(text),
      (error) =>
        badRequest(`the request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`),
    ),
    E.flatMap(bounded),
  );

/** Apply bodies are YAML; clients send JSON (a subset), parsed as such first. */
const parseApplyYaml = (text: string): E.Either<ClusterError, JsonValue> =>
  pipe(
    parseJson(text),
    E.orElse(() =>
      pipe(
        E.tryCatch(
          // YAML's core schema without aliases yields only JSON values (withinBounds checks depth and size next).
          () => parseYaml(text, { maxAliasCount: 0 }) as JsonValue,
          (error) =>
            badRequest(
              `the apply patch is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
            ),
        ),
        E.flatMap(bounded),
      ),
    ),
  );

/**
 * A body that looks like a Kubernetes object: a JSON object whose `metadata` is an object. The
 * name may be absent (generateName) and any field may be wrong: the memory verbs check the rest.
 */
const isObjectBody = (value: JsonValue): value is Resource => isJsonObject(value) && isJsonObject(value.metadata);

/** The body as an object of the URL's kind and namespace; missing apiVersion/kind/namespace come from the URL. */
const objectBody = (target: Target, text: string): E.Either<ClusterError, Resource> =>
  pipe(
    parseJson(text),
    E.flatMap((value) =>
      isJsonObject(value) ? E.right(value) : E.left(badRequest('the request body must be a JSON object')),
    ),
    E.map((value) => ({
      apiVersion: target.kind.apiVersion,
      kind: target.kind.kind,
      ...value,
      metadata: isJsonObject(value.metadata) ? value.metadata : {},
    })),
    E.flatMap((value) =>
      isObjectBody(value) ? E.right(value) : E.left(badRequest('the request body must be a Kubernetes object')),
    ),
    E.flatMap((object) => sameTarget(target, object)),
  );

const sameTarget = (target: Target, object: Resource): E.Either<ClusterError, Resource> => {
  if (object.apiVersion !== target.kind.apiVersion || object.kind !== target.kind.kind) {
    return E.left(
      badRequest(
        `the API version in the data (${String(object.apiVersion)}) and kind (${String(object.kind)}) do not match the URL (${target.kind.apiVersion} ${target.kind.kind})`,
      ),
    );
  }
  const namespace = object.metadata.namespace;
  if (target.namespace !== undefined && namespace !== undefined && namespace !== '' && namespace !== target.namespace) {
    return E.left(badRequest('the namespace of the provided object does not match the namespace sent on the request'));
  }
  if (target.type === 'object' && object.metadata.name !== target.name) {
    return E.left(
      badRequest(
        `the name of the object (${String(object.metadata.name)}) does not match the name on the URL (${target.name})`,
      ),
    );
  }
  const withNamespace = target.namespace !== undefined && (namespace === undefined || namespace === '');
  return E.right(withNamespace ? { ...object, metadata: { ...object.metadata, namespace: target.namespace } } : object);
};

const FIELD_VALIDATIONS = ['Strict', 'Warn', 'Ignore'] as const;

const writeOptions = (query: URLSearchParams, userAgent: string | undefined): E.Either<ClusterError, WriteOptions> => {
  const dryRun = query.get('dryRun');
  if (dryRun !== null && dryRun !== 'All') {
    return E.left(
      clusterError('Invalid', `dryRun: Unsupported value: "${dryRun}": supported values: "All"`, {
        causes: [
          {
            field: 'dryRun',
            reason: 'FieldValueNotSupported',
            message: `Unsupported value: "${dryRun}": supported values: "All"`,
          },
        ],
      }),
    );
  }
  const fieldManager = managerOrUserAgent(query.get('fieldManager'), userAgent);
  const fieldValidation = query.get('fieldValidation');
  const directive = FIELD_VALIDATIONS.find((known) => known === fieldValidation);
  if (fieldValidation !== null && fieldValidation !== '' && directive === undefined)
    return E.left(
      badRequest(
        `fieldValidation: invalid fieldValidation directive: ${fieldValidation}: supported values: "Ignore", "Warn", "Strict"`,
      ),
    );
  return E.right({
    ...(dryRun === 'All' ? { dryRun: true } : {}),
    ...(fieldManager === '' ? {} : { fieldManager }),
    ...defined({ fieldValidation: directive }),
  });
};

const noOptionsOnStatus = (options: WriteOptions): E.Either<ClusterError, void> =>
  options.dryRun
    ? E.left(badRequest('dryRun on the status subresource is not supported by the in-memory API server'))
    : E.right(undefined);

const isJsonPatch = (value: JsonValue): value is ReadonlyArray<JsonPatchOperation> & JsonValue =>
  isJsonArray(value) &&
  value.every((op) => isJsonObject(op) && typeof op.op === 'string' && typeof op.path === 'string');

/** `force` is for server-side apply only, as kube-apiserver's PatchOptions validation says. */
const forceOnlyWithApply = (force: string | null, isApply: boolean): E.Either<ClusterError, void> =>
  force !== null && !isApply
    ? E.left(
        clusterError(
          'Invalid',
          'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
          {
            causes: [
              {
                field: 'force',
                reason: 'FieldValueForbidden',
                message: 'Forbidden: may not be specified for non-apply patch',
              },
            ],
          },
        ),
      )
    : E.right(undefined);

const applyPatchOf = (request: ResourceRequest, force: string | null): E.Either<ClusterError, Patch> =>
  pipe(
    parseApplyYaml(request.body),
    E.flatMap((value) =>
      isObjectBody(value) ? E.right(value) : E.left(badRequest('an apply patch must be a Kubernetes object')),
    ),
    E.map((body): Patch => ({
      type: 'apply',
      body,
      fieldManager: request.query.get('fieldManager') ?? '',
      ...(force === null ? {} : { force: force === 'true' }),
    })),
  );

/** The port's Patch for a PATCH request (Content-Type decides; `force` only with apply). */
const patchOf = (request: ResourceRequest): E.Either<ClusterError, Patch> => {
  const force = request.query.get('force');
  const forced = forceOnlyWithApply(force, request.contentType === 'application/apply-patch+yaml');
  if (E.isLeft(forced)) return forced;
  switch (request.contentType) {
    case 'application/json-patch+json':
      return pipe(
        parseJson(request.body),
        E.flatMap((value) =>
          isJsonPatch(value)
            ? E.right<ClusterError, Patch>({ type: 'json', operations: value })
            : E.left(badRequest('a JSON patch must be an array of operations with op and path')),
        ),
      );
    case 'application/merge-patch+json':
      return pipe(
        parseJson(request.body),
        E.flatMap((value) =>
          isJsonObject(value)
            ? E.right<ClusterError, Patch>({ type: 'merge', body: value })
            : E.left(badRequest('a merge patch must be a JSON object')),
        ),
      );
    case 'application/apply-patch+yaml':
      return applyPatchOf(request, force);
    case 'application/strategic-merge-patch+json':
      return strategicPatchOf(request);
    default:
      return E.left(unsupportedPatchType(!isBuiltIn(request.target.kind.group)));
  }
};

/**
 * Built-in kinds are served by the Kubernetes API groups: the core group, dotless groups (apps,
 * batch, policy, …) and *.k8s.io; a custom resource's group has a dot and is not *.k8s.io.
 */
const isBuiltIn = (group: string): boolean => group === '' || !group.includes('.') || group.endsWith('.k8s.io');

/** What Go's JSON decoder says of a strategic merge patch that is not a JSON object (it decodes into a map). */
const notAnObject = (value: JsonValue): string =>
  `json: cannot unmarshal ${isJsonArray(value) ? 'array' : typeof value} into Go value of type map[string]interface {}`;

/**
 * A strategic merge patch (kubectl's and client-go's default for built-in kinds), applied by the
 * memory verbs (../strategic). A custom resource's is refused (415) before its body is read, as
 * the real server does.
 */
const strategicPatchOf = (request: ResourceRequest): E.Either<ClusterError, Patch> =>
  !isBuiltIn(request.target.kind.group)
    ? E.left(unsupportedPatchType(true))
    : pipe(
        parseJson(request.body),
        E.flatMap((value) => {
          if (value === null) return E.right<ClusterError, Patch>({ type: 'strategic', body: {} });
          if (!isJsonObject(value)) return E.left(badRequest(notAnObject(value)));
          return E.right<ClusterError, Patch>({ type: 'strategic', body: value });
        }),
      );

/** DeleteOptions.preconditions: string `resourceVersion` and `uid` (others are refused as the server would). */
const preconditionsOf = (body: JsonObject): E.Either<ClusterError, DeletePreconditions | undefined> => {
  const preconditions = body.preconditions;
  if (preconditions === undefined || preconditions === null) return E.right(undefined);
  if (!isJsonObject(preconditions)) return E.left(badRequest('DeleteOptions.preconditions must be an object'));
  const { resourceVersion, uid } = preconditions;
  if (
    (resourceVersion !== undefined && typeof resourceVersion !== 'string') ||
    (uid !== undefined && typeof uid !== 'string')
  ) {
    return E.left(badRequest('DeleteOptions.preconditions.resourceVersion and .uid must be strings'));
  }
  return E.right({
    ...defined({ resourceVersion, uid }),
  });
};

const deleteOptionsOf = (request: ResourceRequest): E.Either<ClusterError, DeleteOptions | undefined> => {
  const options = request.body.trim() === '' ? E.right<ClusterError, JsonValue>({}) : parseJson(request.body);
  if (E.isLeft(options)) return options;
  const body = isJsonObject(options.right) ? options.right : {};
  const policy = policyOf(request, body);
  const preconditions = preconditionsOf(body);
  if (E.isLeft(policy)) return policy;
  if (E.isLeft(preconditions)) return preconditions;
  return E.right(
    policy.right === undefined && preconditions.right === undefined
      ? undefined
      : {
          ...defined({ propagationPolicy: policy.right, preconditions: preconditions.right }),
        },
  );
};

const policyOf = (
  request: ResourceRequest,
  body: JsonObject,
): E.Either<ClusterError, PropagationPolicy | undefined> => {
  const dryRun = request.query.get('dryRun') !== null || (isJsonArray(body.dryRun) && body.dryRun.length > 0);
  if (dryRun) return E.left(badRequest('dry-run delete is not supported by the in-memory API server'));
  const policy =
    request.query.get('propagationPolicy') ??
    (typeof body.propagationPolicy === 'string' ? body.propagationPolicy : undefined) ??
    (body.orphanDependents === true || request.query.get('orphanDependents') === 'true' ? 'Orphan' : undefined);
  if (policy === undefined || policy === 'Background' || policy === 'Foreground' || policy === 'Orphan')
    return E.right(policy);
  return E.left(
    clusterError(
      'Invalid',
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
    ),
  );
};

const notFound = (target: Extract<Target, { type: 'object' }>): ClusterError =>
  clusterError(
    'NotFound',
    `${target.kind.plural}${target.kind.group === '' ? '' : `.${target.kind.group}`} "${target.name}" not found`,
    { ref: refOf(target) },
  );

const listAnswer = (
  cluster: Cluster,
  request: ResourceRequest,
  target: Extract<Target, { type: 'collection' }>,
): TE.TaskEither<ClusterError, Answer> =>
  pipe(
    TE.fromEither(parseFieldSelector(request.query.get('fieldSelector'), `${target.kind.group}/${target.kind.kind}`)),
    TE.flatMap((fields) =>
      pipe(
        cluster.list({
          apiVersion: target.kind.apiVersion,
          kind: target.kind.kind,
          ...defined({ namespace: target.namespace }),
          ...(request.query.get('labelSelector') === null
            ? {}
            : { labelSelector: request.query.get('labelSelector') ?? '' }),
        }),
        TE.flatMapEither((list) =>
          pageOf(
            list.items.filter((item) => matchesFields(fields, item)),
            list.resourceVersion,
            request.query.get('limit'),
            request.query.get('continue'),
          ),
        ),
      ),
    ),
    TE.map((page) =>
      ok({
        kind: `${target.kind.kind}List`,
        apiVersion: target.kind.apiVersion,
        metadata: page.metadata,
        items: page.items,
      }),
    ),
  );

type CollectionTarget = Extract<Target, { type: 'collection' }>;
type ObjectTarget = Extract<Target, { type: 'object' }>;
type VerbHandler<T> = (cluster: Cluster, request: ResourceRequest, target: T) => TE.TaskEither<ClusterError, Answer>;

/**
 * POST on a collection: a create. Listing across namespaces is allowed; creating needs one (kube-apiserver answers 405
 * too).
 */
const createAnswer: VerbHandler<CollectionTarget> = (cluster, request, target) =>
  target.kind.scope === 'Namespaced' && target.namespace === undefined
    ? TE.left(
        clusterError(
          'BadRequest',
          `${target.kind.plural} are namespaced: POST to /namespaces/{namespace}/${target.kind.plural}`,
          { code: 405 },
        ),
      )
    : pipe(
        TE.fromEither(E.Do),
        TE.bind('object', () => TE.fromEither(objectBody(target, request.body))),
        TE.bind('options', () => TE.fromEither(writeOptions(request.query, request.userAgent))),
        TE.flatMap(({ object, options }) => cluster.create(object, options)),
        TE.map((created) => ok(created, 201)),
      );

const getAnswer: VerbHandler<ObjectTarget> = (cluster, _request, target) =>
  pipe(
    cluster.get(refOf(target)),
    TE.flatMap(
      O.match(
        () => TE.left(notFound(target)),
        (object) => TE.right(ok(object)),
      ),
    ),
  );

const replaceAnswer: VerbHandler<ObjectTarget> = (cluster, request, target) =>
  pipe(
    TE.fromEither(E.Do),
    TE.bind('object', () => TE.fromEither(objectBody(target, request.body))),
    TE.bind('options', () => TE.fromEither(writeOptions(request.query, request.userAgent))),
    TE.flatMap(({ object, options }) =>
      target.subresource === 'status'
        ? pipe(
            TE.fromEither(noOptionsOnStatus(options)),
            TE.flatMap(() => cluster.updateStatus(object, options)),
          )
        : cluster.update(object, options),
    ),
    TE.map((object) => ok(object)),
  );

const patchAnswer: VerbHandler<ObjectTarget> = (cluster, request, target) => {
  const ref = refOf(target);
  const status = target.subresource === 'status';
  return pipe(
    TE.fromEither(E.Do),
    TE.bind('patch', () => TE.fromEither(patchOf(request))),
    TE.bind('options', () => TE.fromEither(writeOptions(request.query, request.userAgent))),
    // A server-side apply may create the object: kube-apiserver then answers 201 Created.
    TE.bind('existed', ({ patch }) =>
      patch.type === 'apply' && !status ? pipe(cluster.get(ref), TE.map(O.isSome)) : TE.right(true),
    ),
    TE.bind('object', ({ patch, options }) =>
      status
        ? pipe(
            TE.fromEither(noOptionsOnStatus(options)),
            TE.flatMap(() => cluster.patchStatus(ref, patch, options)),
          )
        : cluster.patch(ref, patch, options),
    ),
    TE.map(({ object, existed }) => ok(object, existed ? 200 : 201)),
  );
};

const deleteAnswer: VerbHandler<ObjectTarget> = (cluster, request, target) =>
  target.subresource === 'status'
    ? TE.left(clusterError('BadRequest', 'DELETE is not supported on the status subresource', { code: 405 }))
    : pipe(
        TE.fromEither(deleteOptionsOf(request)),
        TE.flatMap((options) => cluster.delete(refOf(target), options)),
        // Still held by finalizers: the object (200); gone at once: a Success Status (200).
        TE.map(
          O.match(
            () => ok(deletedStatus(target.kind, target.name, undefined)),
            (object) => ok(object),
          ),
        ),
      );

/** One handler per verb, on a collection and on an object; a verb not listed answers 405. */
const COLLECTION_VERBS: ReadonlyMap<string, VerbHandler<CollectionTarget>> = new Map([
  ['GET', listAnswer],
  ['POST', createAnswer],
]);
const OBJECT_VERBS: ReadonlyMap<string, VerbHandler<ObjectTarget>> = new Map([
  ['GET', getAnswer],
  ['PUT', replaceAnswer],
  ['PATCH', patchAnswer],
  ['DELETE', deleteAnswer],
]);

/** Answers one non-watch request on a collection or an object. */
export const answerResourceRequest = (
  cluster: Cluster,
  request: ResourceRequest,
): TE.TaskEither<ClusterError, Answer> => {
  const { target } = request;
  if (target.type === 'collection') {
    const verb = COLLECTION_VERBS.get(request.method);
    return verb !== undefined
      ? verb(cluster, request, target)
      : TE.left(
          clusterError('BadRequest', `${request.method} is not supported on a collection by the in-memory API server`, {
            code: 405,
          }),
        );
  }
  const verb = OBJECT_VERBS.get(request.method);
  return verb !== undefined
    ? verb(cluster, request, target)
    : TE.left(
        clusterError('BadRequest', `${request.method} is not supported by the in-memory API server`, { code: 405 }),
      );
};
