/**
 * What a list or watch request asks for beyond the kind: field selectors on `metadata.name` /
 * `metadata.namespace` (the ones every kind supports) and `limit` / `continue` pagination.
 */
import * as E from 'fp-ts/lib/Either.js';
import { getIn, isJsonObject, type JsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';

type FieldRequirement = {
  /** The path of the field in the object (`source` of an Event is `source.component`). */
  readonly path: ReadonlyArray<string>;
  readonly equal: boolean;
  readonly value: string;
};

/**
 * Fields a kind selects on beyond metadata.name and metadata.namespace, as kube-apiserver's
 * field label conversion of core/v1 Events (what `kubectl describe` lists a object's Events with).
 */
const EXTRA_FIELDS: ReadonlyMap<string, ReadonlyMap<string, ReadonlyArray<string>>> = new Map([
  [
    '/Event',
    new Map([
      ...[
        'involvedObject.kind',
        'involvedObject.namespace',
        'involvedObject.name',
        'involvedObject.uid',
        'involvedObject.apiVersion',
        'involvedObject.resourceVersion',
        'involvedObject.fieldPath',
        'reason',
        'reportingComponent',
        'type',
      ].map((field) => [field, field.split('.')] as const),
      ['source', ['source', 'component']],
    ]),
  ],
]);
export type FieldSelector = ReadonlyArray<FieldRequirement>;

/**
 * Parses `metadata.name=x,metadata.namespace!=y` (and the extra fields of `groupKind`, e.g.
 * `/Event`); other fields answer 400 as on a real server.
 */
export const parseFieldSelector = (text: string | null, groupKind = ''): E.Either<ClusterError, FieldSelector> => {
  const extra = EXTRA_FIELDS.get(groupKind);
  if (text === null || text.trim() === '') return E.right([]);
  const requirements: FieldRequirement[] = [];
  for (const term of text.split(',')) {
    const match = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(\S*)\s*$/.exec(term);
    if (match === null)
      return E.left(clusterError('BadRequest', `invalid field selector "${text}": expected field=value`));
    const [, field, operator, value] = match;
    const path =
      field === 'metadata.name' || field === 'metadata.namespace' ? field.split('.') : extra?.get(field ?? '');
    if (path === undefined) {
      return E.left(
        clusterError(
          'BadRequest',
          `field label not supported: ${String(field)} (the in-memory API server selects on metadata.name and metadata.namespace)`,
        ),
      );
    }
    requirements.push({ path, equal: operator !== '!=', value: value ?? '' });
  }
  return E.right(requirements);
};

const fieldText = (object: Resource, path: ReadonlyArray<string>): string => {
  const value = getIn(object, path);
  return typeof value === 'string' ? value : '';
};

export const matchesFields = (selector: FieldSelector, object: Resource): boolean =>
  selector.every((r) => (fieldText(object, r.path) === r.value) === r.equal);

type ContinueToken = { readonly resourceVersion: string; readonly after: string };

const positionOf = (object: Resource): string => `${object.metadata.namespace ?? ''}|${object.metadata.name}`;

const decodeToken = (token: string): E.Either<ClusterError, ContinueToken> => {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (isJsonObject(value) && typeof value.resourceVersion === 'string' && typeof value.after === 'string') {
      return E.right({ resourceVersion: value.resourceVersion, after: value.after });
    }
  } catch {
    /* reported below */
  }
  return E.left(
    clusterError('BadRequest', 'continue key is not valid: take it from the metadata.continue of the previous page'),
  );
};

export type Page = { readonly items: ReadonlyArray<Resource>; readonly metadata: JsonObject };

/**
 * One page of a list (items in storage order). A continued page resumes after the last object
 * of the previous one and carries the first page's resourceVersion; unlike etcd it reads the
 * current state rather than a snapshot (objects created meanwhile behind the cursor show up).
 */
export const pageOf = (
  items: ReadonlyArray<Resource>,
  resourceVersion: string,
  limit: string | null,
  continueToken: string | null,
): E.Either<ClusterError, Page> => {
  const size = limit === null || limit === '' ? 0 : Number(limit);
  if (!Number.isInteger(size) || size < 0)
    return E.left(clusterError('BadRequest', `invalid limit "${String(limit)}": expected a non-negative integer`));
  const start = continueToken === null || continueToken === '' ? E.right(undefined) : decodeToken(continueToken);
  if (E.isLeft(start)) return start;
  const after = start.right?.after;
  const listVersion = start.right?.resourceVersion ?? resourceVersion;
  const remaining = after === undefined ? items : items.filter((item) => positionOf(item) > after);
  const page = size === 0 ? remaining : remaining.slice(0, size);
  const last = page.at(-1);
  const more = page.length < remaining.length && last !== undefined;
  const token = more
    ? Buffer.from(JSON.stringify({ resourceVersion: listVersion, after: positionOf(last) })).toString('base64url')
    : undefined;
  return E.right({
    items: page,
    metadata: {
      resourceVersion: listVersion,
      ...(token === undefined ? {} : { continue: token, remainingItemCount: remaining.length - page.length }),
    },
  });
};
