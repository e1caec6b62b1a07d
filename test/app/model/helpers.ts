/** Small helpers of the model-based tests. */
import { isJsonArray, isJsonObject, type JsonValue } from '../../../core/internal.js';
export { APPLICATION_API_VERSION, APPLICATION_KIND, type Resource } from '../../../core/internal.js';

/** A copy of `value` with `path` set (objects and list positions created as needed). */
export const setIn = (value: JsonValue, path: ReadonlyArray<string | number>, to: JsonValue): JsonValue => {
  if (path.length === 0) return to;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (typeof head === 'number') {
    const list = isJsonArray(value) ? [...value] : [];
    list[head] = setIn(list[head] ?? {}, rest, to);
    return list;
  }
  const object = isJsonObject(value) ? value : {};
  return { ...object, [head]: setIn(object[head] ?? {}, rest, to) };
};
