/** Job: the server generates the selector and pod labels from the Job's UID unless `manualSelector` is set. */
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, type JsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { mapIn, objectAt } from '../defaulting/index.js';
import type { KindHooks } from './kind-hook-types.js';
import { immutableSpecFields } from './immutable-fields.js';

const generatedLabels = (object: Resource): JsonObject => {
  const uid = object.metadata.uid ?? '';
  return {
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': object.metadata.name,
    'controller-uid': uid,
    'job-name': object.metadata.name,
  };
};

const withSelector = (object: Resource): Resource => {
  const uid = object.metadata.uid ?? '';
  // mapIn edits `spec` only: the identification is unchanged, so the copy is still a Resource.
  return mapIn(object, ['spec'], (spec) =>
    mapIn(
      {
        ...spec,
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      },
      ['template'],
      (template) => ({
        ...template,
        metadata: {
          ...objectAt(template, 'metadata'),
          labels: { ...objectAt(objectAt(template, 'metadata'), 'labels'), ...generatedLabels(object) },
        },
      }),
    ),
  ) as Resource;
};

/** A Job without labels takes its pod template's (the generated ones included). */
const withOwnLabels = (object: Resource): Resource => {
  const labels = objectAt(objectAt(objectAt(objectAt(object, 'spec'), 'template'), 'metadata'), 'labels');
  const own = object.metadata.labels ?? {};
  return Object.keys(own).length > 0 || Object.keys(labels).length === 0
    ? object
    : // The pod template's labels passed the server's label validation when the Job was admitted: strings.
      { ...object, metadata: { ...object.metadata, labels: labels as Record<string, string> } };
};

export const jobHooks: KindHooks = {
  prepareCreate: (object) =>
    E.right(
      getOwn(objectAt(object, 'spec'), 'manualSelector') === true
        ? withOwnLabels(object)
        : withOwnLabels(
            // mapIn edits `spec` only: still a Resource.
            mapIn(withSelector(object), ['spec'], (spec) => ({ ...spec, manualSelector: false })) as Resource,
          ),
    ),
  prepareUpdate: immutableSpecFields(['selector', 'template']),
};
