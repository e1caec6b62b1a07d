/**
 * `metadata.generation`: 1 on create, bumped when the desired state changes. Custom resources
 * bump on any change outside `metadata` (and `status` when it is a subresource); built-ins on
 * `spec` changes — and a Deployment on annotation changes too (they are copied to ReplicaSets).
 */
import { getOwn, jsonEqual, objectFromEntries, type JsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import type { KindInfo } from '../kinds/index.js';

const withoutKeys = (object: JsonObject, keys: ReadonlyArray<string>): JsonObject =>
  objectFromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));

const contentChanged = (before: Resource, after: Resource, ignored: ReadonlyArray<string>): boolean =>
  !jsonEqual(withoutKeys(before, ignored), withoutKeys(after, ignored));

const desiredStateChanged = (info: KindInfo, before: Resource, after: Resource): boolean => {
  const ignored = info.statusSubresource ? ['metadata', 'status', 'apiVersion'] : ['metadata', 'apiVersion'];
  if (info.custom) return contentChanged(before, after, ignored);
  const hasSpec = getOwn(before, 'spec') !== undefined || getOwn(after, 'spec') !== undefined;
  const changed = hasSpec
    ? !jsonEqual(getOwn(before, 'spec'), getOwn(after, 'spec'))
    : contentChanged(before, after, ignored);
  const annotationsCount = info.group === 'apps' && info.kind === 'Deployment';
  return changed || (annotationsCount && !jsonEqual(before.metadata.annotations, after.metadata.annotations));
};

/** The generation `after` should carry (undefined for kinds without one). */
export const nextGeneration = (info: KindInfo, before: Resource, after: Resource): number | undefined => {
  if (!info.generation) return undefined;
  const current = before.metadata.generation ?? 1;
  return desiredStateChanged(info, before, after) ? current + 1 : current;
};
