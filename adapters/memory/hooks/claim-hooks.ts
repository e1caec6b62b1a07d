/**
 * PersistentVolumeClaims and PersistentVolumes get their protection finalizer on create (the
 * StorageObjectInUseProtection admission plugin); with garbage collection on, the protection
 * controllers (controllers/storage-protection.ts) remove it once the object is deleting and not in use.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Resource } from '../../../core/model/resource.js';
import type { KindHooks } from './kind-hook-types.js';
import { timestamp } from '../typing/index.js';

export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

const withFinalizer =
  (finalizer: string) =>
  (object: Resource): Resource => {
    const finalizers = object.metadata.finalizers ?? [];
    return finalizers.includes(finalizer)
      ? object
      : { ...object, metadata: { ...object.metadata, finalizers: [...finalizers, finalizer] } };
  };

export const claimHooks: KindHooks = {
  prepareCreate: (object) => E.right(withFinalizer(PVC_PROTECTION_FINALIZER)(object)),
};
/** A volume also records when it entered its first phase. */
export const volumeHooks: KindHooks = {
  prepareCreate: (object, { state }) =>
    E.right({
      ...withFinalizer(PV_PROTECTION_FINALIZER)(object),
      status: { phase: 'Pending', lastPhaseTransitionTime: timestamp(state.clock.now()) },
    }),
};
