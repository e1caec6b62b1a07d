/** Where the pod template lives in each workload kind: the places hooks inject env entries into. */
import type { Path } from '../json/path.js';
import type { Resource } from '../model/resource.js';
import { scopeKey } from '../model/scope.js';

const TEMPLATE: Path = ['spec', 'template', 'spec'];

/** Pod spec path by `group/Kind` (version-independent, like scopes). */
const POD_SPEC_PATHS: ReadonlyMap<string, Path> = new Map<string, Path>([
  ['/Pod', ['spec']],
  ['/ReplicationController', TEMPLATE],
  ['apps/Deployment', TEMPLATE],
  ['apps/StatefulSet', TEMPLATE],
  ['apps/DaemonSet', TEMPLATE],
  ['apps/ReplicaSet', TEMPLATE],
  ['batch/Job', TEMPLATE],
  // A CronJob holds a Job template, which holds the pod template.
  ['batch/CronJob', ['spec', 'jobTemplate', 'spec', 'template', 'spec']],
]);

/** The kinds hooks inject into (docs/behaviour.md §6), as `group/Kind`. */
export const WORKLOAD_KINDS: ReadonlyArray<string> = [...POD_SPEC_PATHS.keys()];

/** The path of a workload's pod spec; undefined for other kinds. */
export const podSpecPathOf = (resource: Pick<Resource, 'apiVersion' | 'kind'>): Path | undefined =>
  POD_SPEC_PATHS.get(scopeKey(resource.apiVersion, resource.kind));

/** The container lists of a pod spec hooks inject into, init containers first (they run first). */
export const CONTAINER_LISTS = ['initContainers', 'containers'] as const;
