/**
 * The small formatters kube-apiserver's built-in printers share (k8s.io/kubernetes
 * pkg/printers/internalversion, apimachinery's labels and duration packages), over JSON objects
 * as stored. Each answers what the Go function answers for the same stored object, including its
 * placeholders (`<none>`, `<unknown>`), so `kubectl get` prints the same text on both servers.
 */
import { getIn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../../../core/json/json.js';
import { humanDuration } from './human-duration.js';

export const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');

export const integer = (value: JsonValue | undefined): number => (typeof value === 'number' ? value : 0);

export const objectsAt = (object: JsonObject, path: ReadonlyArray<string>): ReadonlyArray<JsonObject> => {
  const list = getIn(object, path);
  return isJsonArray(list) ? list.filter(isJsonObject) : [];
};

/** `translateTimestampSince`: the age of a time, `<unknown>` for none. */
export const since = (time: JsonValue | undefined, now: number): string => {
  const at = typeof time === 'string' ? Date.parse(time) : Number.NaN;
  return Number.isNaN(at) ? '<unknown>' : humanDuration(now - at);
};

export const age = (object: JsonObject, now: number): string =>
  since(getIn(object, ['metadata', 'creationTimestamp']), now);

export const nameOf = (object: JsonObject): string => text(getIn(object, ['metadata', 'name']));

/** `layoutContainerCells`: the containers' names and their images, each joined by commas. */
export const containerCells = (podSpec: JsonValue | undefined): readonly [string, string] => {
  const containers = isJsonObject(podSpec) ? objectsAt(podSpec, ['containers']) : [];
  return [containers.map((c) => text(c.name)).join(','), containers.map((c) => text(c.image)).join(',')];
};

/** `labels.FormatLabels`: `k=v` pairs sorted by key, `<none>` for an empty map. */
export const formatLabels = (labels: JsonValue | undefined): string => {
  const entries = isJsonObject(labels) ? Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [];
  return entries.length === 0 ? '<none>' : entries.map(([key, value]) => `${key}=${text(value)}`).join(',');
};

type Requirement = { readonly key: string; readonly text: string };

const sortedValues = (values: JsonValue | undefined): string =>
  (isJsonArray(values) ? values.map(text) : []).sort().join(',');

const expressionText = (expression: JsonObject): string | undefined => {
  const key = text(expression.key);
  switch (expression.operator) {
    case 'In':
      return `${key} in (${sortedValues(expression.values)})`;
    case 'NotIn':
      return `${key} notin (${sortedValues(expression.values)})`;
    case 'Exists':
      return key;
    case 'DoesNotExist':
      return `!${key}`;
    default:
      return undefined;
  }
};

/**
 * `LabelSelectorAsSelector(selector).String()`: requirements sorted by key (matchLabels as `k=v`),
 * an empty string for a nil or empty selector; undefined where the Go function fails.
 */
export const selectorString = (selector: JsonValue | undefined): string | undefined => {
  if (!isJsonObject(selector)) return '';
  const labels = isJsonObject(selector.matchLabels) ? Object.entries(selector.matchLabels) : [];
  const requirements: Requirement[] = labels.map(([key, value]) => ({ key, text: `${key}=${text(value)}` }));
  for (const expression of objectsAt(selector, ['matchExpressions'])) {
    const shown = expressionText(expression);
    if (shown === undefined) return undefined;
    requirements.push({ key: text(expression.key), text: shown });
  }
  return requirements
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(',');
};

/** `metav1.FormatLabelSelector`: the selector's text, `<none>` when empty, `<error>` when invalid. */
export const formatLabelSelector = (selector: JsonValue | undefined): string => {
  const shown = selectorString(selector);
  return shown === undefined ? '<error>' : shown === '' ? '<none>' : shown;
};

/** Whether the first status condition of `type` is True (`hasJobCondition`, `hasPodReadyCondition`). */
export const hasTrueCondition = (object: JsonObject, type: string): boolean =>
  objectsAt(object, ['status', 'conditions']).find((condition) => condition.type === type)?.status === 'True';
