/**
 * Kubernetes objects read from documents: a document is one object, or a `List` (kind `List` or
 * `<Kind>List`, as `kubectl get -o yaml` prints) whose items are the objects.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  showPath,
  withKey,
  type JsonObject,
  type JsonValue,
  type Path,
} from '../../../core/internal.js';
import { inputError, type CliError, type Location } from '../cli-error.js';
import type { Document } from './documents.js';
import { parsePath } from './parse-path.js';
import { defined } from '../../../core/json/defined.js';

/** Where an object was read: its document, and its path there (`items[3]` inside a List). */
export type Origin = {
  readonly file: string;
  readonly document: number;
  readonly prefix: Path;
  readonly locate: (path: Path) => Location;
};

export type Entry = { readonly value: JsonObject; readonly origin: Origin };

/** The location of a path (steps, or a path string as the core reports it) inside an object. */
export const locationOf = (origin: Origin, path: Path | string = []): Location =>
  origin.locate([...origin.prefix, ...(typeof path === 'string' ? parsePath(path) : path)]);

/** An error about a path of an object, located in its file. */
export const errorAt = (origin: Origin, path: Path | string, message: string, subject?: string): CliError => {
  // The path is shown relative to the object (the subject); the line and column say where it is.
  const shown = typeof path === 'string' ? path : showPath(path);
  return inputError(message, {
    location: locationOf(origin, path),
    ...defined({ subject }),
    ...(shown === '' ? {} : { path: shown }),
  });
};

/** `Deployment shop/web`, as far as the object tells. */
export const describeObject = (value: JsonObject): string => {
  const metadata = getOwn(value, 'metadata');
  const name = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
  const namespace = isJsonObject(metadata) ? getOwn(metadata, 'namespace') : undefined;
  const kind = getOwn(value, 'kind');
  return `${typeof kind === 'string' ? kind : 'object'} ${typeof namespace === 'string' ? `${namespace}/` : ''}${typeof name === 'string' ? name : '(unnamed)'}`;
};

const isList = (value: JsonObject): boolean => {
  const kind = getOwn(value, 'kind');
  return typeof kind === 'string' && kind.endsWith('List') && isJsonArray(getOwn(value, 'items'));
};

const shapeOf = (value: JsonValue): string =>
  value === null ? 'null' : isJsonArray(value) ? 'a list' : `a ${typeof value}`;

/**
 * The objects of a document.
 * Errors: a document or List item that is not an object.
 */
export const entriesOf = (document: Document): E.Either<ReadonlyArray<CliError>, ReadonlyArray<Entry>> => {
  const origin = (prefix: Path): Origin => ({
    file: document.file,
    document: document.index,
    prefix,
    locate: document.locate,
  });
  const value = document.value;
  if (!isJsonObject(value)) {
    return E.left([
      inputError(
        `the document is ${shapeOf(value)}, not an object: each document must be a Kubernetes object (or a List of them)`,
        { location: document.locate([]) },
      ),
    ]);
  }
  if (!isList(value)) return E.right([{ value, origin: origin([]) }]);
  const listed = getOwn(value, 'items');
  const items = isJsonArray(listed) ? listed : [];
  const errors: CliError[] = [];
  const entries: Entry[] = [];
  items.forEach((item, i) => {
    if (isJsonObject(item)) entries.push({ value: typedItem(value, item), origin: origin(['items', i]) });
    else
      errors.push(
        errorAt(
          origin([]),
          ['items', i],
          `this List item is ${shapeOf(item)}, not an object: every item must be a Kubernetes object`,
        ),
      );
  });
  return errors.length > 0 ? E.left(errors) : E.right(entries);
};

/**
 * Items of a typed list (`DeploymentList`) read straight from the API carry no apiVersion/kind:
 * they are the list's, without `List`.
 */
const typedItem = (list: JsonObject, item: JsonObject): JsonObject => {
  const kind = getOwn(list, 'kind');
  const apiVersion = getOwn(list, 'apiVersion');
  if (typeof kind !== 'string' || kind === 'List' || typeof apiVersion !== 'string') return item;
  const withVersion = getOwn(item, 'apiVersion') === undefined ? withKey(item, 'apiVersion', apiVersion) : item;
  return getOwn(withVersion, 'kind') === undefined
    ? withKey(withVersion, 'kind', kind.slice(0, -'List'.length))
    : withVersion;
};
