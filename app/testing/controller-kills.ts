/**
 * The kit's kills of the controller (`killAfterWrites`, issue 39): after which writes they come,
 * and what the report says of them. A kill is a fault the kit injects, as the server injects
 * errors: named in the timeline and the fault list, never a finding. Shared by the process and
 * the in-process runners, which do the killing.
 */
import type { MemoryCluster } from '../../adapters/memory/index.js';
import { tally } from './check-convergence.js';
import { note, type Timeline } from './run-timeline.js';

export type ControllerKills = {
  /** Whether the controller is killed once write number `index` (1-based, over the run) is answered. */
  due(index: number): boolean;
  /** Records the kill after write `index` (`label` names it) in the timeline, at the timeline's now. */
  record(index: number, label: string): void;
  /** Kills so far. */
  count(): number;
  /** For the report's fault list: `2 controller kills (after writes 1, 3)`; undefined when none happened. */
  text(): string | undefined;
};

/**
 * The kills after the writes `afterWrites` names; `how` says how the controller dies (`SIGKILL`, or
 * an instance dropped in process), as the timeline names it.
 */
export const controllerKills = (
  afterWrites: ReadonlyArray<number> | undefined,
  timeline: Timeline,
  how: string,
): ControllerKills => {
  const due = new Set(afterWrites ?? []);
  const done: number[] = [];
  return {
    due: (index) => due.has(index),
    record: (index, label) => {
      done.push(index);
      note(timeline, `controller killed (${how}) after write ${index}: ${label}`);
    },
    count: () => done.length,
    text: () =>
      done.length === 0
        ? undefined
        : `${done.length} controller kill${done.length === 1 ? '' : 's'} (after write${done.length === 1 ? '' : 's'} ${done.join(', ')})`,
  };
};

/** The report's fault list: what the server injected, then the kit's kills. */
export const faultList = (cluster: MemoryCluster, kills: ControllerKills): string => {
  const faults = cluster.injectedFaults();
  const killed = kills.text();
  return (
    `faults injected by the server: ${faults.size === 0 ? 'none' : tally(faults)}` +
    (killed === undefined ? '' : `; by the kit: ${killed}`)
  );
};
