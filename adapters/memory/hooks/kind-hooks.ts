/**
 * Per-kind steps of the write path (Service IPs, Namespace lifecycle, CRD registration, Job selectors, DaemonSet
 * template generation, storage protection, immutable fields).
 */
import { claimHooks, volumeHooks } from './claim-hooks.js';
import { crdHooks } from './crd-hooks.js';
import { daemonSetHooks } from './daemon-set-hooks.js';
import { immutableSpecFields } from './immutable-fields.js';
import { jobHooks } from './job-hooks.js';
import { namespaceHooks } from './namespace-hooks.js';
import { serviceHooks } from './service-hooks.js';

export type { HookContext, KindHooks } from './kind-hook-types.js';
import type { KindHooks } from './kind-hook-types.js';

const hooks: ReadonlyMap<string, KindHooks> = new Map([
  ['/Service', serviceHooks],
  ['/Namespace', namespaceHooks],
  ['apiextensions.k8s.io/CustomResourceDefinition', crdHooks],
  ['batch/Job', jobHooks],
  ['apps/DaemonSet', daemonSetHooks],
  ['apps/Deployment', { prepareUpdate: immutableSpecFields(['selector']) }],
  ['/PersistentVolumeClaim', claimHooks],
  ['/PersistentVolume', volumeHooks],
]);

const noHooks: KindHooks = {};

export const hooksFor = (groupKind: string): KindHooks => hooks.get(groupKind) ?? noHooks;
