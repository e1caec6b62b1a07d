/**
 * Installs CustomResourceDefinitions through a Cluster (server-side apply, so re-running against
 * an existing cluster updates them) and waits until each is Established and actually served.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { getIn, isJsonArray, isJsonObject } from '../../core/json/json.js';
import { refOf, type Resource } from '../../core/model/resource.js';
import type { Cluster } from '../../core/ports/cluster.js';
import { showClusterError } from '../../core/ports/errors.js';
import { pollUntil } from './poll.js';

const established = (crd: Resource): boolean => {
  const conditions = getIn(crd, ['status', 'conditions']);
  return (
    isJsonArray(conditions) &&
    conditions.some((c) => isJsonObject(c) && c.type === 'Established' && c.status === 'True')
  );
};

const servedVersions = (crd: Resource): ReadonlyArray<string> => {
  const versions = getIn(crd, ['spec', 'versions']);
  return isJsonArray(versions)
    ? versions.flatMap((v) => (isJsonObject(v) && v.served === true && typeof v.name === 'string' ? [v.name] : []))
    : [];
};

/** Applies and waits for one CRD; throws with the server's answer on failure. */
export const installCrd = async (cluster: Cluster, crd: Resource, timeoutMs = 60_000): Promise<void> => {
  const applied = await cluster.patch(refOf(crd), {
    type: 'apply',
    body: crd,
    fieldManager: 'kreconcile-envtest',
    force: true,
  })();
  if (E.isLeft(applied)) throw new Error(`installing CRD ${crd.metadata.name}: ${showClusterError(applied.left)}`);
  await pollUntil(
    async () => {
      const current = await cluster.get(refOf(crd))();
      return E.isRight(current) && O.isSome(current.right) && established(current.right.value);
    },
    { what: `CRD ${crd.metadata.name} Established`, timeoutMs },
  );
  const group = getIn(crd, ['spec', 'group']);
  const kind = getIn(crd, ['spec', 'names', 'kind']);
  if (typeof group !== 'string' || typeof kind !== 'string')
    throw new Error(`CRD ${crd.metadata.name} has no spec.group or spec.names.kind`);
  // Established can precede discovery and the REST handler (envtest's WaitForCRDs polls for it too).
  for (const version of servedVersions(crd)) {
    await pollUntil(async () => E.isRight(await cluster.list({ apiVersion: `${group}/${version}`, kind })()), {
      what: `${kind}.${group}/${version} served`,
      timeoutMs,
    });
  }
};

export const installCrds = async (
  cluster: Cluster,
  crds: ReadonlyArray<Resource>,
  timeoutMs?: number,
): Promise<void> => {
  for (const crd of crds) await installCrd(cluster, crd, timeoutMs);
};
