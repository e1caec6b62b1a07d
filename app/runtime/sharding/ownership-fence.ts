/**
 * A cluster whose writes for one Application are refused (never sent) once this replica no longer
 * owns that Application's shard: ownership can be lost in the middle of a reconcile, and a write
 * after that could race the new owner's. Reads and watches pass through (the runtime's write fence).
 */
import type { Cluster } from '../../../core/internal.js';
import { fenced } from '../write-fence.js';

/** `cluster` with every write checked against `owned()` at the moment it would be sent. */
export const fencedByOwnership = (cluster: Cluster, owned: () => boolean, key: string): Cluster =>
  fenced(cluster, owned, `this replica no longer owns the shard of ${key}`);
