/**
 * Where a field of a manifest object is written in the input files (`app.yaml:14:9`): the
 * Application whose `spec.manifest` holds the object, and the field's position there. Objects a
 * TOSCA template translates to are written nowhere: no location.
 */
import type { ObjectRef, Path, Resource } from '../../../core/internal.js';
import { showLocation } from '../cli-error.js';
import type { ApplicationInput } from '../input/applications.js';
import { locationOf } from '../input/entries.js';
import type { ManifestLocator } from './verify-converges.js';

const isObject = (ref: ObjectRef, namespace: string) => (object: Resource) =>
  object.apiVersion === ref.apiVersion &&
  object.kind === ref.kind &&
  object.metadata.name === ref.name &&
  (ref.namespace === undefined || (object.metadata.namespace ?? namespace) === ref.namespace);

export const manifestLocator =
  (inputs: ReadonlyArray<ApplicationInput>): ManifestLocator =>
  (ref, path: Path) => {
    for (const input of inputs) {
      const manifest = input.application.spec.manifest ?? [];
      const index = manifest.findIndex(isObject(ref, input.application.metadata.namespace ?? 'default'));
      if (index >= 0) return showLocation(locationOf(input.origin, ['spec', 'manifest', index, ...path]));
    }
    return undefined;
  };
