/**
 * Runs the server's background controllers (CRD establishing and cleanup; with `gc`, the garbage
 * collector, namespace and storage protection controllers) after changes, asynchronously and
 * deterministically: one pass per microtask, repeated while a pass changes something — never
 * inside the write that triggered it.
 */
import { cleanUpCustomResources } from './crd-cleanup.js';
import { establishCustomResources } from './crd-establishing.js';
import { collectGarbage } from './garbage-collector.js';
import { finalizeNamespaces } from './namespace-controller.js';
import { protectStorage } from './storage-protection.js';
import { runPods } from './pod-controllers.js';
import { runWorkloads } from './workload-controllers.js';
import type { ServerState } from '../server-state.js';

export type ControllerScheduler = { readonly schedule: () => void };

/** `state` is read lazily: the scheduler is built before the state that calls it. */
export const createControllerScheduler = (state: () => ServerState): ControllerScheduler => {
  let scheduled = false;
  const pass = (): void => {
    scheduled = false;
    const current = state();
    establishCustomResources(current);
    cleanUpCustomResources(current);
    if (current.gc) {
      finalizeNamespaces(current);
      collectGarbage(current);
      protectStorage(current);
    }
    if (current.workloads) {
      if (current.pods) runPods(current);
      runWorkloads(current);
    }
  };
  return {
    // Every commit of a pass schedules the next one, so passes repeat exactly while they change something.
    schedule: () => {
      if (scheduled) return;
      scheduled = true;
      queueMicrotask(pass);
    },
  };
};
