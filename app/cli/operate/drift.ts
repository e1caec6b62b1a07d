/** `--drift 'Kind/name path=value'`: another actor's edit, to watch the operator correct it. */
import * as E from 'fp-ts/lib/Either.js';
import { fromPointer, showClusterError, type Cluster, type JsonValue, type Resource } from '../../../core/index.js';

export type Drift = {
  readonly kind: string;
  readonly name: string;
  readonly path: ReadonlyArray<string>;
  readonly value: JsonValue;
  readonly text: string;
};

/** Parses `Deployment/web spec.replicas=5` (value as JSON, else a string). */
export const parseDrift = (text: string): E.Either<string, Drift> => {
  const match = /^\s*([A-Za-z0-9]+)\/([a-z0-9.-]+)\s+([^=\s]+)=(.*)$/.exec(text);
  if (match === null)
    return E.left(`--drift "${text}": expected "Kind/name path=value", e.g. "Deployment/web spec.replicas=5"`);
  const [, kind, name, path, raw] = match as unknown as [string, string, string, string, string];
  const value = E.getOrElse<unknown, JsonValue>(() => raw)(
    E.tryCatch(
      () => JSON.parse(raw) as JsonValue,
      (e) => e,
    ),
  );
  const steps = path.startsWith('/') ? fromPointer(path) : path.split('.');
  return E.right({ kind, name, path: steps, value, text });
};

const withValueAt = (object: JsonValue, path: ReadonlyArray<string>, value: JsonValue): JsonValue => {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(object))
    return object.map((item, i) => (String(i) === head ? withValueAt(item, rest, value) : item));
  const base = typeof object === 'object' && object !== null ? object : {};
  return { ...base, [head]: withValueAt((base as Record<string, JsonValue>)[head] ?? {}, rest, value) };
};

/** Applies a drift to the first live object of that kind and name, as a plain update by "someone else". */
export const applyDrift = async (
  cluster: Cluster,
  objects: ReadonlyArray<Resource>,
  drift: Drift,
): Promise<E.Either<string, Resource>> => {
  const target = objects.find((o) => o.kind === drift.kind && o.metadata.name === drift.name);
  if (target === undefined) return E.left(`--drift ${drift.text}: no ${drift.kind} named ${drift.name} exists`);
  const updated = await cluster.update(withValueAt(target, drift.path, drift.value) as Resource)();
  return E.mapLeft(
    (error: Parameters<typeof showClusterError>[0]) => `--drift ${drift.text}: ${showClusterError(error)}`,
  )(updated);
};
