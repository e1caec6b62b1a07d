/**
 * Which workloads read which ConfigMaps and Secrets, and how: a plain volume (or a projected one)
 * is refreshed in running pods by the kubelet's sync; `env`, `envFrom` and a `subPath` mount are
 * read once at container start and never again (docs/plan-output.md, "Rollout impact").
 */
import { getIn, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import type { ObjectRef, Resource } from '../model/resource.js';
import { arrayAt, stringAt, workloadRef } from './reads.js';

export type ReadWay = 'volume' | 'env' | 'envFrom' | 'subPath';

export type ConfigRef = { readonly kind: string; readonly namespace: string; readonly name: string };

/** One workload reading one ConfigMap or Secret, in every way it does. */
export type ConfigRead = { readonly workload: ObjectRef; readonly ways: ReadonlyArray<ReadWay> };

/** One reference from a pod template: what it names and how it is read. */
type Reference = { readonly kind: string; readonly name: string; readonly way: ReadWay };

/** `namespace/Kind/name` of a config object → the workloads that read it (each once, ways merged). */
export const configReaders = (workloads: ReadonlyArray<Resource>): ReadonlyMap<string, ReadonlyArray<ConfigRead>> => {
  const readers = new Map<string, Map<string, { workload: ObjectRef; ways: Set<ReadWay> }>>();
  for (const workload of workloads) {
    const references = templateReferences(workload);
    if (references.length === 0) continue;
    const ref = workloadRef(workload);
    for (const reference of references) {
      const key = `${workload.metadata.namespace ?? ''}/${reference.kind}/${reference.name}`;
      const byWorkload = readers.get(key) ?? new Map<string, { workload: ObjectRef; ways: Set<ReadWay> }>();
      readers.set(key, byWorkload);
      const entry = byWorkload.get(`${ref.kind}/${ref.name}`) ?? { workload: ref, ways: new Set<ReadWay>() };
      byWorkload.set(`${ref.kind}/${ref.name}`, entry);
      entry.ways.add(reference.way);
    }
  }
  return new Map(
    [...readers].map(([key, byWorkload]) => [
      key,
      [...byWorkload.values()].map((entry) => ({ workload: entry.workload, ways: [...entry.ways].sort() })),
    ]),
  );
};

/**
 * Every ConfigMap and Secret a workload's pod template names (the names of `ConfigMaps` it reads): its volumes' in
 * volume order, then each container's (init containers last) `env`, then `envFrom`. Built by pushing onto one list:
 * the impact reads every workload of a plan with a config change, most of which name none.
 */
export const templateReferences = (workload: Resource): ReadonlyArray<Reference> => {
  const spec = getIn(workload, ['spec', 'template', 'spec']);
  if (!isJsonObject(spec)) return [];
  const containers = arrayAt(spec, ['containers']);
  const initContainers = arrayAt(spec, ['initContainers']);
  const references: Reference[] = [];
  const volumes = volumeSources(spec);
  if (volumes.length > 0) {
    const subPaths = subPathVolumes([...containers, ...initContainers].filter(isJsonObject));
    for (const v of volumes) references.push({ ...v.reference, way: subPaths.has(v.volume) ? 'subPath' : 'volume' });
  }
  for (const container of containers) if (isJsonObject(container)) containerReferences(container, references);
  for (const container of initContainers) if (isJsonObject(container)) containerReferences(container, references);
  return references;
};

/** The volumes some container mounts with a `subPath` (or `subPathExpr`): read once, at container start. */
const subPathVolumes = (containers: ReadonlyArray<JsonObject>): ReadonlySet<string> =>
  new Set(
    containers.flatMap((c) =>
      arrayAt(c, ['volumeMounts'])
        .filter(isJsonObject)
        .filter((mount) => typeof mount.subPath === 'string' || typeof mount.subPathExpr === 'string')
        .flatMap((mount) => stringAt(mount, ['name']) ?? []),
    ),
  );

type VolumeSource = { readonly volume: string; readonly reference: Omit<Reference, 'way'> };

const volumeSources = (spec: JsonObject): ReadonlyArray<VolumeSource> =>
  arrayAt(spec, ['volumes'])
    .filter(isJsonObject)
    .flatMap((volume) => {
      const name = stringAt(volume, ['name']) ?? '';
      const projected = arrayAt(volume, ['projected', 'sources']).filter(isJsonObject);
      return [
        ...sourceOf(name, 'ConfigMap', stringAt(volume, ['configMap', 'name'])),
        ...sourceOf(name, 'Secret', stringAt(volume, ['secret', 'secretName'])),
        ...projected.flatMap((source) => [
          ...sourceOf(name, 'ConfigMap', stringAt(source, ['configMap', 'name'])),
          ...sourceOf(name, 'Secret', stringAt(source, ['secret', 'name'])),
        ]),
      ];
    });

const sourceOf = (volume: string, kind: string, name: string | undefined): ReadonlyArray<VolumeSource> =>
  name === undefined ? [] : [{ volume, reference: { kind, name } }];

const containerReferences = (container: JsonValue, into: Reference[]): void => {
  for (const env of arrayAt(container, ['env'])) {
    const from = getIn(env, ['valueFrom']);
    if (from === undefined) continue;
    named(into, 'ConfigMap', stringAt(from, ['configMapKeyRef', 'name']), 'env');
    named(into, 'Secret', stringAt(from, ['secretKeyRef', 'name']), 'env');
  }
  for (const from of arrayAt(container, ['envFrom'])) {
    named(into, 'ConfigMap', stringAt(from, ['configMapRef', 'name']), 'envFrom');
    named(into, 'Secret', stringAt(from, ['secretRef', 'name']), 'envFrom');
  }
};

const named = (into: Reference[], kind: string, name: string | undefined, way: ReadWay): void => {
  if (name !== undefined) into.push({ kind, name, way });
};
