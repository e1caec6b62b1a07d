/**
 * Hot-loop bookkeeping per Application key: the patch history the core's pure guard decides on
 * (`core/status/hot-loop.ts`). Records only what succeeded; forgets a key when its Application goes.
 */
import {
  defaultHotLoopPolicy,
  guardHotLoop,
  recordPatches,
  type Application,
  type HotLoopPolicy,
  type LiveVersions,
  type PatchRecord,
  type Plan,
} from '../../core/index.js';
import type { ActionResult } from '../executor/execute.js';
import type { Logger } from '../logging/logger.js';

export class HotLoopHistory {
  private readonly history = new Map<string, ReadonlyArray<PatchRecord>>();

  constructor(
    private readonly options: { readonly now: () => number; readonly logger: Logger; readonly policy?: HotLoopPolicy },
  ) {}

  /** `plan`, or the Stalled (HotLoop) plan the core decides on when it would repeat a contested patch. */
  guard(key: string, application: Application, plan: Plan, live: LiveVersions): Plan {
    // Only a patch can repeat a contested one (most plans, every in-sync one, have none).
    if (!plan.actions.some((action) => action.type === 'patch')) return plan;
    const guarded = guardHotLoop({
      history: this.history.get(key) ?? [],
      plan,
      application,
      live,
      now: this.options.now(),
      ...(this.options.policy ? { policy: this.options.policy } : {}),
    });
    if (guarded.contested.length > 0)
      this.options.logger.warn(
        { key, contested: guarded.contested },
        'hot loop: another actor keeps reverting observed fields',
      );
    return guarded.plan;
  }

  /** Remembers the patches that succeeded (only those can be undone by someone else). */
  record(key: string, done: ReadonlyArray<ActionResult>, live: LiveVersions): void {
    // Nothing to add and nothing to expire: a key without history that patched nothing keeps none.
    if (!this.history.has(key) && !done.some(({ action }) => action.type === 'patch')) return;
    const history = recordPatches(
      this.history.get(key) ?? [],
      done,
      live,
      this.options.now(),
      this.options.policy ?? defaultHotLoopPolicy,
    );
    if (history.length > 0) this.history.set(key, history);
    else this.history.delete(key);
  }

  forget(key: string): void {
    this.history.delete(key);
  }
}
