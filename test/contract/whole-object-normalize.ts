/**
 * Normalises a stored object for whole-object comparison: values the server assigns freshly
 * (uid, timestamps, resourceVersion, managedFields, allocated IPs and ports, the Job's UID
 * labels) become placeholders, and the run's namespace becomes `<namespace>`.
 */
import { isJsonArray, isJsonObject, objectFromEntries, type JsonValue } from '../../core/json/json.js';

const dropped = new Set([
  'uid',
  'creationTimestamp',
  'resourceVersion',
  'managedFields',
  'lastTransitionTime',
  'lastPhaseTransitionTime',
]);
const placeholders: Readonly<Record<string, string>> = {
  clusterIP: '<allocated>',
  nodePort: '<allocated>',
  'batch.kubernetes.io/controller-uid': '<uid>',
  'controller-uid': '<uid>',
};

const placeholder = (key: string, value: JsonValue): JsonValue => {
  if (key === 'clusterIPs' && isJsonArray(value)) return value.map((ip) => (ip === 'None' ? ip : '<allocated>'));
  if (key === 'clusterIP' && value === 'None') return value;
  return placeholders[key] ?? value;
};

export const normalize = (value: JsonValue, namespace: string): JsonValue => {
  if (isJsonArray(value)) return value.map((item) => normalize(item, namespace));
  if (isJsonObject(value)) {
    return objectFromEntries(
      Object.keys(value)
        .sort()
        .filter((key) => !dropped.has(key))
        .map((key) => [key, normalize(placeholder(key, value[key] ?? null), namespace)] as const),
    );
  }
  return value === namespace ? '<namespace>' : value;
};
