/** Small typed reads of workload objects the impact modules share. */
import { getIn, isJsonArray, type JsonValue } from '../json/json.js';
import type { ObjectRef, Resource } from '../model/resource.js';
import { defined } from '../json/defined.js';

export const workloadRef = (workload: Resource): ObjectRef => ({
  apiVersion: workload.apiVersion,
  kind: workload.kind,
  ...defined({ namespace: workload.metadata.namespace }),
  name: workload.metadata.name,
});

export const stringAt = (value: JsonValue | undefined, path: ReadonlyArray<string>): string | undefined => {
  const found = getIn(value, path);
  return typeof found === 'string' ? found : undefined;
};

export const arrayAt = (value: JsonValue | undefined, path: ReadonlyArray<string>): ReadonlyArray<JsonValue> => {
  const found = getIn(value, path);
  return isJsonArray(found) ? found : [];
};
