/**
 * `npm run bench:canonical`: the cost of the stored form (core/canonical) on the planner's hot
 * path, and the memory server's requests per second for create, update and patch of a Deployment
 * (every write stores through the same function). A quick check, not part of `npm run bench`.
 */
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryCluster } from '../adapters/memory/index.js';
import { canonicalResource } from '../core/canonical/canonical.js';
import type { Resource } from '../core/internal.js';
import { deploymentSpec, serviceSpec } from './fixtures.js';

const seconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

const canonicalPerSecond = (objects: ReadonlyArray<Resource>, rounds: number): number => {
  const copies = Array.from({ length: rounds }, () => structuredClone(objects));
  const start = process.hrtime.bigint();
  for (const copy of copies) for (const object of copy) canonicalResource(object);
  return (rounds * objects.length) / seconds(start);
};

const must = <T>(result: E.Either<unknown, T>): T => {
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

const memoryWrites = async (count: number): Promise<Record<string, number>> => {
  const cluster = createMemoryCluster({ workloads: false });
  const namespace = 'bench';
  must(await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })());
  const objects = Array.from({ length: count }, (_, i) => {
    const object = deploymentSpec(`web-${i}`);
    return { ...object, metadata: { ...object.metadata, namespace } };
  });
  let start = process.hrtime.bigint();
  const created = [];
  for (const object of objects) created.push(must(await cluster.create(object)()));
  const create = count / seconds(start);
  start = process.hrtime.bigint();
  for (const object of created)
    must(await cluster.update({ ...object, spec: { ...(object.spec as object), replicas: 4 } })());
  const update = count / seconds(start);
  start = process.hrtime.bigint();
  for (const object of objects) {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: object.metadata.name };
    must(await cluster.patch(ref, { type: 'merge', body: { spec: { replicas: 5, minReadySeconds: 0 } } })());
  }
  const patch = count / seconds(start);
  return { create, update, patch };
};

const manifest = Array.from({ length: 500 }, (_, i) => [deploymentSpec(`d${i}`), serviceSpec(`s${i}`)]).flat();
canonicalPerSecond(manifest, 5);
await memoryWrites(300);
for (let round = 0; round < 3; round++) {
  const canonical = canonicalPerSecond(manifest, 20);
  const writes = await memoryWrites(1000);
  console.log(
    `canonicalResource ${(canonical / 1000).toFixed(0)}k objects/s; memory server Deployment create ${writes.create?.toFixed(0)}/s, update ${writes.update?.toFixed(0)}/s, patch ${writes.patch?.toFixed(0)}/s`,
  );
}
