/** A failed translation as the plan's verdict: `Stalled` with reason `InvalidTosca` and the translator's message. */
import { conditionsFor, type Application, type Plan } from '../../core/internal.js';
import type { Translation } from './translator.js';

/** Requeue delay after a fetch that may succeed later (network, 5xx, timeout). */
export const TOSCA_RETRY_MS = 30_000;

/**
 * `plan` (made without a translated manifest, so already Stalled with reason InvalidTosca) with the
 * translator's message in its conditions; a retryable failure requeues instead of awaiting a change.
 */
export const stalledOnTranslation = (
  plan: Plan,
  application: Application,
  failure: Extract<Translation, { _tag: 'Invalid' }>,
  now: string,
): Plan => ({
  ...plan,
  status: {
    ...plan.status,
    conditions: conditionsFor({
      verdict: { _tag: 'Stalled', reason: 'InvalidTosca', message: failure.message },
      previous: application.status?.conditions,
      now,
      generation: application.metadata.generation,
    }),
  },
  outcome: failure.retryable ? { _tag: 'RequeueAfter', ms: TOSCA_RETRY_MS, reason: 'ToscaFetch' } : plan.outcome,
});
