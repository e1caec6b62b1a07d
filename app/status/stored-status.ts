/**
 * The Application status as stored (docs/decisions/0023-status-size.md): kreconcile's three
 * manifest lists packed (core/manifest/stored-status.ts: what regenerates from the desired state
 * is a reference) and deflated into one field, `status.manifests: {encoding, data}`. Read back
 * wherever an Application enters (the runtime's decode, the CLI's files and snapshots, the hook
 * server); a status in the earlier form (the three lists as they are) reads unchanged, so an
 * operator upgraded in place plans exactly as before, and writes the new form on its next status write.
 */
import * as E from 'fp-ts/lib/Either.js';
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import {
  getOwn,
  isJsonObject,
  parseJsonText,
  type ApplicationStatus,
  type JsonObject,
  type JsonValue,
} from '../../core/internal.js';
import { packManifests, unpackManifests } from '../../core/manifest/stored-status.js';
import { STORED_MANIFESTS_FIELD } from '../../core/model/application.js';

/** raw DEFLATE (RFC 1951) of the packed lists' JSON (UTF-8), in base64. */
export const STORED_MANIFESTS_ENCODING = 'deflate-base64';

const MANIFEST_LISTS = ['mangledObserverSchema', 'lastAppliedManifest', 'lastObservedManifest'] as const;

/** Base64 of bytes (the operator and CLI run on Node). */
const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const fromBase64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));

/** The status as written to the API server: the three lists packed and deflated into `manifests`. */
export const storedStatus = (status: ApplicationStatus): JsonObject => {
  const { mangledObserverSchema, lastAppliedManifest, lastObservedManifest, ...rest } = status;
  const lists = { mangledObserverSchema, lastAppliedManifest, lastObservedManifest };
  const kept = unpackedStatus(rest);
  if (MANIFEST_LISTS.every((list) => lists[list] === undefined)) return kept;
  const packed = JSON.stringify(packManifests(lists));
  // Level 9: a status write is rare (only when it changed) and its size is what etcd limits.
  const data = toBase64(deflateSync(strToU8(packed), { level: 9 }));
  return { ...kept, [STORED_MANIFESTS_FIELD]: { encoding: STORED_MANIFESTS_ENCODING, data } };
};

/**
 * The status in the earlier form, the three lists as they are: what an operator writes where the
 * Application CRD is older than it and prunes `manifests`.
 */
export const unpackedStatus = (status: ApplicationStatus): JsonObject => {
  // A decoded status is JSON, but its optional fields type as `T | undefined`: the text round trip drops them.
  const copied = parseJsonText(JSON.stringify(status));
  return isJsonObject(copied) ? copied : {};
};

/** The packed lists of a stored `manifests` field, or why they cannot be read (one line). */
const readManifests = (stored: JsonValue): E.Either<string, Record<string, ReadonlyArray<JsonObject>>> => {
  if (!isJsonObject(stored)) return E.left('expected an object {encoding, data}');
  const encoding = getOwn(stored, 'encoding');
  const data = getOwn(stored, 'data');
  if (encoding !== STORED_MANIFESTS_ENCODING) return E.left(`encoding: expected "${STORED_MANIFESTS_ENCODING}"`);
  if (typeof data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return E.left('data: expected base64');
  return E.chain((text: string) => {
    const parsed = E.tryCatch(
      () => parseJsonText(text),
      () => 'data: not JSON once inflated',
    );
    return E.chain((value: JsonValue) =>
      isJsonObject(value) ? unpackManifests(value) : E.left('data: not an object'),
    )(parsed);
  })(
    E.tryCatch(
      () => strFromU8(inflateSync(fromBase64(data))),
      () => 'data: not DEFLATE data',
    ),
  );
};

/**
 * A status as stored, read back into the form the codec decodes (the three lists). The earlier
 * form reads as it is. A `manifests` field that cannot be read is left in place with the reason,
 * for `decodeApplication` to report (`status.manifests: …`).
 */
export const readStoredStatus = (status: JsonObject): JsonObject => {
  const stored = getOwn(status, STORED_MANIFESTS_FIELD);
  if (stored === undefined) return status;
  const lists = readManifests(stored);
  if (E.isLeft(lists)) return { ...status, [STORED_MANIFESTS_FIELD]: { unreadable: lists.left } };
  const { [STORED_MANIFESTS_FIELD]: _packed, ...rest } = status;
  return { ...rest, ...lists.right };
};

/** An object whose status is read back (`readStoredStatus`); the same object when there is nothing to read. */
export const withReadableStatus = <T extends JsonObject>(object: T): T => {
  const status = getOwn(object, 'status');
  if (!isJsonObject(status) || getOwn(status, STORED_MANIFESTS_FIELD) === undefined) return object;
  return { ...object, status: readStoredStatus(status) };
};
