/** What to write where the cluster lacks an observed value: shared by drift and patch so they agree. */
import { isJsonArray, type JsonValue } from '../json/json.js';
import { listControl, type SchemaNode } from '../model/observer-schema.js';
import { projectKnown } from '../manifest/project.js';

/**
 * The value to create at a missing (or mistyped) observed path: the observed part of `desired`;
 * for a list, its observed positions plus whole desired elements up to the minimum length.
 * Undefined when nothing observed is known (then nothing is missing).
 */
export const missingValue = (desired: JsonValue, schema: SchemaNode): JsonValue | undefined => {
  if (!isJsonArray(schema) || !isJsonArray(desired)) return projectKnown(desired, schema);
  const { min } = listControl(schema);
  const observed = projectKnown(desired, schema);
  const items = isJsonArray(observed) ? [...observed] : [];
  while (items.length < min && items.length < desired.length) items.push(desired[items.length] as JsonValue);
  return items.length === 0 ? undefined : items;
};
