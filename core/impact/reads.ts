/** Small typed reads of workload objects the impact modules share. */
import { getIn, isJsonArray, type JsonValue } from '../json/json.js';
import type { ObjectRef, Resource } from '../model/resource.js';

export const workloadRef = ({ apiVersion, kind, metadata: { namespace, name } }: Resource): ObjectRef =>
  // One literal per case (no spread): a reference is made for every workload of every plan with impact.
  namespace === undefined ? { apiVersion, kind, name } : { apiVersion, kind, namespace, name };

export const stringAt = (value: JsonValue | undefined, path: ReadonlyArray<string>): string | undefined => {
  const found = getIn(value, path);
  return typeof found === 'string' ? found : undefined;
};

export const arrayAt = (value: JsonValue | undefined, path: ReadonlyArray<string>): ReadonlyArray<JsonValue> => {
  const found = getIn(value, path);
  return isJsonArray(found) ? found : [];
};
