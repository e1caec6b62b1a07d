/** What an action does at run time (core/impact/rollout-impact.ts). */
import type { ObjectRef } from '../model/resource.js';

export type ImpactType =
  /** A pod-template change rolls (some of) a workload's pods. */
  | 'rollout'
  /** A workload's template changes, but its strategy (`OnDelete`) rolls no pod. */
  | 'noRollout'
  /** A new workload starts pods. */
  | 'start'
  /** Running pods see a config change through a volume, after the kubelet's sync. */
  | 'configReload'
  /** Running pods never see a config change (env, envFrom, subPath) until they restart. */
  | 'configStale'
  /** A config change reaches a workload whose template changes in the same plan: its new pods see it. */
  | 'configRollout'
  /** A recreation or deletion loses what the server kept for the object. */
  | 'loss'
  /** A Service's selector changes: its traffic goes to other pods. */
  | 'traffic';

/** One thing an action does at run time, in words, with the workloads it concerns. */
export type Impact = {
  readonly type: ImpactType;
  readonly message: string;
  /** The workloads concerned (rolled, reading the config, selected). */
  readonly workloads?: ReadonlyArray<ObjectRef>;
  /** How many pods roll or start, when known. */
  readonly pods?: number;
};
