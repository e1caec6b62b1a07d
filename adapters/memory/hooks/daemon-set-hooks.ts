/**
 * DaemonSet: the `deprecated.daemonset.template.generation` annotation counts pod template
 * changes (1 on create, +1 per template change), as the apps/v1 strategy keeps it.
 */
import * as E from 'fp-ts/lib/Either.js';
import { jsonEqual } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { objectAt } from '../defaulting/index.js';
import type { KindHooks } from './kind-hook-types.js';

export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

const withTemplateGeneration = (object: Resource, generation: string): Resource => ({
  ...object,
  metadata: {
    ...object.metadata,
    annotations: { ...(object.metadata.annotations ?? {}), [TEMPLATE_GENERATION_ANNOTATION]: generation },
  },
});

const templateOf = (object: Resource) => objectAt(objectAt(object, 'spec'), 'template');

export const daemonSetHooks: KindHooks = {
  prepareCreate: (object) => E.right(withTemplateGeneration(object, '1')),
  prepareUpdate: (stored, next) => {
    const current = Number(stored.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] ?? '1');
    const changed = !jsonEqual(templateOf(stored), templateOf(next));
    return E.right(withTemplateGeneration(next, String(changed ? current + 1 : current)));
  },
};
