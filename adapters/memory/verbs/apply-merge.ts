/**
 * Server-side apply, approximated: the applied configuration is merged into the live object.
 * Objects merge recursively; lists whose items all carry a `name` merge by name (as the
 * `listType: map` lists of the built-in kinds do: containers, env, volumes, ports); other lists
 * and scalars are replaced. Not modelled: managedFields, field ownership, conflicts between
 * managers (`force` is accepted and ignored), and removal of fields a manager stops applying.
 */
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  type JsonObject,
  type JsonValue,
} from '../../../core/json/json.js';

export const applyMerge = (live: JsonValue | undefined, applied: JsonValue): JsonValue => {
  if (isJsonObject(applied)) return mergeObjects(isJsonObject(live) ? live : {}, applied);
  if (isJsonArray(applied) && isJsonArray(live) && isNamedList(applied) && isNamedList(live))
    return mergeByName(live, applied);
  return applied;
};

const mergeObjects = (live: JsonObject, applied: JsonObject): JsonObject => {
  const liveKeys = Object.keys(live);
  const added = Object.keys(applied).filter((key) => !liveKeys.includes(key));
  return objectFromEntries(
    [...liveKeys, ...added].map((key) => {
      const next = getOwn(applied, key);
      return [key, next === undefined ? (getOwn(live, key) ?? null) : applyMerge(getOwn(live, key), next)] as const;
    }),
  );
};

const nameOf = (item: JsonValue): string | undefined => {
  const name = isJsonObject(item) ? getOwn(item, 'name') : undefined;
  return typeof name === 'string' ? name : undefined;
};

const isNamedList = (list: ReadonlyArray<JsonValue>): boolean =>
  list.length > 0 && list.every((item) => nameOf(item) !== undefined);

const mergeByName = (live: ReadonlyArray<JsonValue>, applied: ReadonlyArray<JsonValue>): ReadonlyArray<JsonValue> => {
  const liveNames = live.map(nameOf);
  const merged = live.map((item) => {
    const update = applied.find((candidate) => nameOf(candidate) === nameOf(item));
    return update === undefined ? item : applyMerge(item, update);
  });
  return [...merged, ...applied.filter((item) => !liveNames.includes(nameOf(item)))];
};
