/**
 * Perpetual-diff bookkeeping per Application key: the write history the core's pure guard decides on
 * (`core/status/perpetual-diff.ts`). Records only patches that succeeded, with what the server did
 * not keep; forgets a key when its Application goes, and a generation when its spec changes.
 */
import {
  defaultPerpetualDiffPolicy,
  guardPerpetualDiff,
  recordWrites,
  showRef,
  type Application,
  type LiveVersions,
  type PerpetualDiffPolicy,
  type Plan,
  type WriteRecord,
} from '../../core/index.js';
import type { ActionResult } from '../executor/execute.js';
import type { Logger } from '../logging/logger.js';

export class PerpetualDiffHistory {
  private readonly history = new Map<string, ReadonlyArray<WriteRecord>>();

  constructor(
    private readonly options: {
      readonly now: () => number;
      readonly logger: Logger;
      readonly policy?: PerpetualDiffPolicy;
    },
  ) {}

  /** `plan`, or the plan without the patches the server keeps dropping, the Application Stalled (PerpetualDiff). */
  guard(key: string, application: Application, plan: Plan): Plan {
    const history = this.history.get(key);
    if (history === undefined) return plan;
    const guarded = guardPerpetualDiff({
      history,
      plan,
      application,
      now: this.options.now(),
      ...(this.options.policy ? { policy: this.options.policy } : {}),
    });
    if (guarded.diffs.length > 0)
      this.options.logger.warn(
        { key, dropped: guarded.diffs.map((diff) => `${showRef(diff.ref)}: ${diff.paths.join(', ')}`) },
        'perpetual diff: the API server does not keep what is written; no longer written until the spec changes',
      );
    return guarded.plan;
  }

  /** Remembers the patches that succeeded and what of each the server did not keep. */
  record(key: string, done: ReadonlyArray<ActionResult>, live: LiveVersions, generation: number | undefined): void {
    // A key without history that patched nothing keeps none (every in-sync reconcile).
    if (!this.history.has(key) && !done.some(({ action }) => action.type === 'patch')) return;
    const history = recordWrites(
      this.history.get(key) ?? [],
      done,
      live,
      generation,
      this.options.policy ?? defaultPerpetualDiffPolicy,
    );
    // Only writes the server dropped matter: a history of kept writes is forgotten.
    if (history.some((record) => record.dropped.length > 0)) this.history.set(key, history);
    else this.history.delete(key);
  }

  forget(key: string): void {
    this.history.delete(key);
  }
}
