/**
 * A workload's `spec.selector` against its template's labels, as kube-apiserver 1.36 checks a
 * Deployment, ReplicaSet, StatefulSet or DaemonSet (pkg/apis/apps/validation): a selector that
 * selects nothing is refused, and so is a template its own selector does not select (the
 * controller could never own the pods it creates). Pure.
 */
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../json/json.js';
import type { Finding } from './pod-spec.js';
import { REFUSED } from './pod-spec.js';

const stringsOf = (value: JsonValue | undefined): ReadonlyArray<string> =>
  isJsonArray(value) ? value.flatMap((item) => (typeof item === 'string' ? [item] : [])) : [];

/** Whether one `matchExpressions` requirement holds for the labels (an unknown operator: the schema reports it). */
const requirementHolds = (requirement: JsonObject, labels: JsonObject): boolean => {
  const key = getOwn(requirement, 'key');
  if (typeof key !== 'string') return true;
  const value = getOwn(labels, key);
  const values = stringsOf(getOwn(requirement, 'values'));
  switch (getOwn(requirement, 'operator')) {
    case 'In':
      return typeof value === 'string' && values.includes(value);
    case 'NotIn':
      return typeof value !== 'string' || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    default:
      return true;
  }
};

const matches = (selector: JsonObject, labels: JsonObject): boolean => {
  const matchLabels = getOwn(selector, 'matchLabels');
  const expressions = getOwn(selector, 'matchExpressions');
  const labelsHold =
    !isJsonObject(matchLabels) || Object.entries(matchLabels).every(([key, value]) => getOwn(labels, key) === value);
  return (
    labelsHold &&
    (!isJsonArray(expressions) || expressions.every((item) => !isJsonObject(item) || requirementHolds(item, labels)))
  );
};

const sizeOf = (value: JsonValue | undefined): number =>
  isJsonObject(value) ? Object.keys(value).length : isJsonArray(value) ? value.length : 0;

/** The findings of a workload's selector (absent: the schema's required field reports it). */
export const selectorFindings = (
  selector: JsonValue | undefined,
  template: JsonValue | undefined,
  kind: string,
): ReadonlyArray<Finding> => {
  if (!isJsonObject(selector)) return [];
  if (sizeOf(getOwn(selector, 'matchLabels')) + sizeOf(getOwn(selector, 'matchExpressions')) === 0)
    return [
      {
        at: ['spec', 'selector'],
        message: `Invalid value: empty selector is invalid for ${kind.toLowerCase()} (${REFUSED}): select the template's labels, e.g. matchLabels: {app: web}`,
      },
    ];
  const metadata = isJsonObject(template) ? getOwn(template, 'metadata') : undefined;
  const labels = isJsonObject(metadata) ? getOwn(metadata, 'labels') : undefined;
  // Labels of another type are the schema's error; no selector could match them.
  if (labels !== undefined && !isJsonObject(labels)) return [];
  return matches(selector, labels ?? {})
    ? []
    : [
        {
          at: ['spec', 'template', 'metadata', 'labels'],
          message: `Invalid value: \`selector\` does not match template \`labels\` (${REFUSED}): give the template every label spec.selector.matchLabels names (and what its matchExpressions require)`,
        },
      ];
};
