/** `--drift 'Kind/name path=value'`: another actor's edit, to watch the operator correct it. */
import * as E from 'fp-ts/lib/Either.js';
import { produce } from 'immer';
import {
  fromPointer,
  parseJsonText,
  showClusterError,
  type Cluster,
  type JsonValue,
  type Resource,
} from '../../../core/internal.js';

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
  const [, kind = '', name = '', path = '', raw = ''] = match;
  const value = E.getOrElse<unknown, JsonValue>(() => raw)(
    E.tryCatch(
      () => parseJsonText(raw),
      (e) => e,
    ),
  );
  const steps = path.startsWith('/') ? fromPointer(path) : path.split('.');
  return E.right({ kind, name, path: steps, value, text });
};

type Container = Record<string, JsonValue>;

/**
 * `object` with `value` at `path`: missing (or non-object) members on the way become objects; a
 * list index out of range changes nothing. Immer copies the path (a `__proto__` step throws, and
 * `applyDrift` reports it).
 */
const withValueAt = (object: Resource, path: ReadonlyArray<string>, value: JsonValue): Resource =>
  produce(object, (draft) => {
    // An immer draft of a JSON object is a mutable JSON container; immer's Draft type cannot say that of a readonly
    // Resource.
    let node = draft as unknown as Container;
    for (const [i, step] of path.entries()) {
      if (Array.isArray(node) && !(String(Number(step)) === step && Number(step) < node.length)) return;
      if (i === path.length - 1) node[step] = value;
      else {
        // Own members only: `__proto__` must never reach the prototype (assigning it throws instead).
        const child = Object.hasOwn(node, step) ? node[step] : undefined;
        if (typeof child !== 'object' || child === null) node[step] = {};
        // Just made an object when it was none: a container.
        node = node[step] as Container;
      }
    }
  });

/** Applies a drift to the first live object of that kind and name, as a plain update by "someone else". */
export const applyDrift = async (
  cluster: Cluster,
  objects: ReadonlyArray<Resource>,
  drift: Drift,
): Promise<E.Either<string, Resource>> => {
  const target = objects.find((o) => o.kind === drift.kind && o.metadata.name === drift.name);
  if (target === undefined) return E.left(`--drift ${drift.text}: no ${drift.kind} named ${drift.name} exists`);
  const edited = E.tryCatch(
    () => withValueAt(target, drift.path, drift.value),
    (error) => `--drift ${drift.text}: cannot set ${drift.path.join('.')} (${String(error)})`,
  );
  if (E.isLeft(edited)) return edited;
  const updated = await cluster.update(edited.right)();
  return E.mapLeft(
    (error: Parameters<typeof showClusterError>[0]) => `--drift ${drift.text}: ${showClusterError(error)}`,
  )(updated);
};
