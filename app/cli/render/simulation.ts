/**
 * `plan --simulate` output: every round to convergence in order (waits on dependencies and
 * readiness, recreations, prunes), the objects assumed ready by their readiness rule, and the
 * number of reconciles expected; as text, or as the plan document's JSON/YAML extended with
 * `rounds` per Application.
 */
import { showRef } from '../../../core/internal.js';
import type { Simulation } from '../planning/simulate.js';
import { actionsV1, PLAN_API_VERSION, refV1 } from './plan-document.js';
import { serialize } from './serialize.js';
import type { Style } from '../style.js';
import { actionLines } from './text.js';
import { defined } from '../../../core/json/defined.js';

const endLine = (simulation: Simulation): string => {
  const rounds = simulation.rounds.length;
  switch (simulation.end._tag) {
    case 'Converged':
      return `Converges after ${rounds} reconcile${rounds === 1 ? '' : 's'} that act${rounds === 1 ? 's' : ''}.`;
    case 'Stalled':
      return `Stalls (${simulation.end.reason}) after ${rounds} reconcile(s): ${simulation.end.message}`;
    case 'Waiting':
      return `Does not converge: after ${rounds} reconcile(s) it only waits: ${simulation.end.message}`;
  }
};

/** `Round 1` or `Rounds 1–3`: the rounds an Application waited for its dependencies (spec.dependsOn). */
const roundsText = (rounds: number): string => (rounds === 1 ? 'Round 1' : `Rounds 1–${rounds}`);

export const renderSimulationText = (
  simulations: ReadonlyArray<Simulation>,
  style: Style,
  unready: ReadonlyArray<string>,
): string =>
  `${simulations
    .map((simulation) => {
      const { metadata } = simulation.planned.application;
      const head = style.bold(`Application ${metadata.namespace ?? 'default'}/${metadata.name}`);
      const waited =
        simulation.waited === undefined
          ? []
          : [style.bold(`  ${roundsText(simulation.waited.rounds)}:`), `    waits: ${simulation.waited.message}`];
      const rounds = simulation.rounds.flatMap((round) => [
        style.bold(`  Round ${round.round}:`),
        ...round.actions.flatMap((action) => actionLines(action, style).map((line) => `  ${line}`)),
        ...round.assumedReady.map(({ ref, rule }) => style.dim(`    assumed ready: ${showRef(ref)} (rule: ${rule})`)),
      ]);
      return [head, ...waited, ...rounds, '', endLine(simulation)].join('\n');
    })
    .join('\n\n')}\n\n${style.dim(
    `Simulated: created and patched objects become ready at once${unready.length === 0 ? '' : `, except ${unready.join(', ')}`}${assumes(simulations) ? ' (under a readiness rule: assumed ready by the rule, not checked)' : ''}; deleted objects are gone at once.`,
  )}\n`;

const assumes = (simulations: ReadonlyArray<Simulation>): boolean =>
  simulations.some((simulation) => simulation.rounds.some((round) => round.assumedReady.length > 0));

export const renderSimulationDocument = (simulations: ReadonlyArray<Simulation>, format: 'json' | 'yaml'): string =>
  serialize(
    {
      apiVersion: PLAN_API_VERSION,
      kind: 'Simulation',
      applications: simulations.map((simulation) => {
        const { metadata } = simulation.planned.application;
        return {
          application: { namespace: metadata.namespace ?? 'default', name: metadata.name },
          reconciles: simulation.rounds.length,
          result: simulation.end._tag,
          ...(simulation.end._tag === 'Converged' ? {} : { message: simulation.end.message }),
          ...defined({ waited: simulation.waited }),
          rounds: simulation.rounds.map((round) => ({
            round: round.round,
            actions: actionsV1(round.actions, simulation.planned.plan.status.mangledObserverSchema),
            ...(round.assumedReady.length === 0
              ? {}
              : { assumedReady: round.assumedReady.map(({ ref, rule }) => ({ resource: refV1(ref), rule })) }),
          })),
        };
      }),
    },
    format,
  );
