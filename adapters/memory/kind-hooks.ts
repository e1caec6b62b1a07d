/** Per-kind steps of the write path (Service IPs, Namespace lifecycle, CRD registration, Job selectors, DaemonSet template generation, storage protection). */
import type * as E from 'fp-ts/lib/Either.js';
import type { Resource } from '../../core/model/resource.js';
import type { ClusterError } from '../../core/ports/errors.js';
import { claimHooks, volumeHooks } from './hooks/claim-hooks.js';
import { crdHooks } from './hooks/crd-hooks.js';
import { daemonSetHooks } from './hooks/daemon-set-hooks.js';
import { jobHooks } from './hooks/job-hooks.js';
import { namespaceHooks } from './hooks/namespace-hooks.js';
import { serviceHooks } from './hooks/service-hooks.js';
import type { ServerState } from './server-state.js';

export type HookContext = { readonly state: ServerState; readonly dryRun: boolean };

export type KindHooks = {
  /** After defaulting, before validation and commit. */
  readonly prepareCreate?: (object: Resource, context: HookContext) => E.Either<ClusterError, Resource>;
  readonly prepareUpdate?: (stored: Resource, next: Resource, context: HookContext) => E.Either<ClusterError, Resource>;
  /** After the object was stored (created or updated). */
  readonly committed?: (object: Resource, context: HookContext) => void;
  /** After the object left storage. */
  readonly removed?: (object: Resource, context: HookContext) => void;
};

const hooks: ReadonlyMap<string, KindHooks> = new Map([
  ['/Service', serviceHooks],
  ['/Namespace', namespaceHooks],
  ['apiextensions.k8s.io/CustomResourceDefinition', crdHooks],
  ['batch/Job', jobHooks],
  ['apps/DaemonSet', daemonSetHooks],
  ['/PersistentVolumeClaim', claimHooks],
  ['/PersistentVolume', volumeHooks],
]);

const noHooks: KindHooks = {};

export const hooksFor = (groupKind: string): KindHooks => hooks.get(groupKind) ?? noHooks;
