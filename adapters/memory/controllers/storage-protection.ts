/**
 * kube-controller-manager's storage protection controllers (`persistentvolumeclaim-protection-controller`,
 * `persistentvolume-protection-controller`), one pass at a time: a deleting claim loses
 * `kubernetes.io/pvc-protection` once no scheduled pod uses it, a deleting volume loses
 * `kubernetes.io/pv-protection` once it is not `Bound`. The finalizers themselves are added on
 * create by the StorageObjectInUseProtection admission plugin (hooks/claim-hooks.ts).
 */
import { getIn, isJsonObject } from '../../../core/json/json.js';
import { jsonText } from '../../../core/json/text.js';
import type { Resource } from '../../../core/model/resource.js';
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../hooks/index.js';
import type { KindInfo } from '../kinds/index.js';
import { objectsOfKind, storageKey, type ServerState } from '../server-state.js';
import { isDeleting, systemWrite, withoutFinalizer } from '../verbs/index.js';

const volumesOf = (pod: Resource): ReadonlyArray<unknown> => {
  const volumes = getIn(pod, ['spec', 'volumes']);
  return Array.isArray(volumes) ? volumes : [];
};

const finished = (pod: Resource): boolean => {
  const phase = getIn(pod, ['status', 'phase']);
  return phase === 'Succeeded' || phase === 'Failed';
};

/**
 * Whether `pod` uses the claim `name`, as the real controller decides it: only a scheduled pod
 * (`spec.nodeName` set) counts, since the kubelet refuses to start a pod whose claim is deleting;
 * a `persistentVolumeClaim` volume naming it, or a generic ephemeral volume (its claim is named
 * `<pod>-<volume>`) of a pod that has not finished.
 */
const usesClaim = (pod: Resource, name: string): boolean => {
  const node = getIn(pod, ['spec', 'nodeName']);
  if (typeof node !== 'string' || node === '') return false;
  return volumesOf(pod).some(
    (volume) =>
      isJsonObject(volume) &&
      ((isJsonObject(volume.persistentVolumeClaim) && volume.persistentVolumeClaim.claimName === name) ||
        (isJsonObject(volume.ephemeral) && !finished(pod) && `${pod.metadata.name}-${jsonText(volume.name)}` === name)),
  );
};

const claimInUse = (state: ServerState, claim: Resource): boolean => {
  const pods = state.registry.byGroupKind('', 'Pod');
  return (
    pods !== undefined &&
    objectsOfKind(state, pods, claim.metadata.namespace).some((pod) => usesClaim(pod, claim.metadata.name))
  );
};

const volumeInUse = (volume: Resource): boolean => getIn(volume, ['status', 'phase']) === 'Bound';

/** Releases one deleting kind's protected objects no longer in use; returns whether it wrote. */
const release = (
  state: ServerState,
  info: KindInfo | undefined,
  finalizer: string,
  inUse: (object: Resource) => boolean,
): boolean => {
  if (info === undefined) return false;
  return objectsOfKind(state, info)
    .filter((object) => isDeleting(object) && (object.metadata.finalizers ?? []).includes(finalizer))
    .filter((object) => !inUse(object))
    .map((object) =>
      systemWrite(
        state,
        info,
        state.objects.get(storageKey(info, object.metadata.namespace, object.metadata.name)) ?? object,
        withoutFinalizer(finalizer),
      ),
    )
    .some(Boolean);
};

/** One pass of both controllers; returns whether it changed anything (then another pass follows). */
export const protectStorage = (state: ServerState): boolean => {
  const claims = release(
    state,
    state.registry.byGroupKind('', 'PersistentVolumeClaim'),
    PVC_PROTECTION_FINALIZER,
    (c) => claimInUse(state, c),
  );
  const volumes = release(
    state,
    state.registry.byGroupKind('', 'PersistentVolume'),
    PV_PROTECTION_FINALIZER,
    volumeInUse,
  );
  return claims || volumes;
};
