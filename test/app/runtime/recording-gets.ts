/** A cluster as a controller sees it, recording every direct `get` (reads of single objects) for tests. */
import type { MemoryCluster } from '../../../adapters/memory/index.js';
import type { Cluster, ObjectRef } from '../../../core/internal.js';

export const recordingGets = (cluster: MemoryCluster, gets: ObjectRef[]): Cluster =>
  new Proxy(cluster, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'get')
        return (ref: ObjectRef) => {
          gets.push(ref);
          return (value as (r: ObjectRef) => unknown).call(target, ref);
        };
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
