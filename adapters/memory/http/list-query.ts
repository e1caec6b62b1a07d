/**
 * What a list or watch request asks for beyond the kind: field selectors on `metadata.name` /
 * `metadata.namespace` (the ones every kind supports) and `limit` / `continue` pagination.
 */
import * as E from 'fp-ts/lib/Either.js';
import { isJsonObject, type JsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';

type FieldRequirement = {
  readonly field: 'metadata.name' | 'metadata.namespace';
  readonly equal: boolean;
  readonly value: string;
};
export type FieldSelector = ReadonlyArray<FieldRequirement>;

/** Parses `metadata.name=x,metadata.namespace!=y`; other fields answer 400 as on a real server. */
export const parseFieldSelector = (text: string | null): E.Either<ClusterError, FieldSelector> => {
  if (text === null || text.trim() === '') return E.right([]);
  const requirements: FieldRequirement[] = [];
  for (const term of text.split(',')) {
    const match = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(\S*)\s*$/.exec(term);
    if (match === null)
      return E.left(clusterError('BadRequest', `invalid field selector "${text}": expected field=value`));
    const [, field, operator, value] = match;
    if (field !== 'metadata.name' && field !== 'metadata.namespace') {
      return E.left(
        clusterError(
          'BadRequest',
          `field label not supported: ${String(field)} (the in-memory API server selects on metadata.name and metadata.namespace)`,
        ),
      );
    }
    requirements.push({ field, equal: operator !== '!=', value: value ?? '' });
  }
  return E.right(requirements);
};

export const matchesFields = (selector: FieldSelector, object: Resource): boolean =>
  selector.every(
    (r) =>
      ((r.field === 'metadata.name' ? object.metadata.name : (object.metadata.namespace ?? '')) === r.value) ===
      r.equal,
  );

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
