/**
 * Core benchmark: `plan` per resource for realistic resources (as the API server returns them),
 * in sync and drifted, against a generic full deep diff (microdiff) of the same objects.
 */
import diff from 'microdiff';
import {
  builtinScopes,
  createPlanner,
  patchedFieldOwners,
  plan,
  rolloutImpacts,
  type Application,
  type Plan,
  type Resource,
} from '../core/internal.js';
import { asServed, configMapSpec, deploymentSpec, serviceSpec } from './fixtures.js';
import { allocatedBytes, measurePair, retainedBytes, type Row } from './measure.js';

const NAMESPACE = 'bench';
const OWNER = `${NAMESPACE}/shop`;
const NOW = '2026-11-22T00:00:00Z';

const manifestOf = (count: number): ReadonlyArray<Resource> =>
  Array.from({ length: count }, (_, i) => [deploymentSpec, serviceSpec, configMapSpec][i % 3]!(`app-${i}`));

const applicationOf = (manifest: ReadonlyArray<Resource>): Application => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: {
    name: 'shop',
    namespace: NAMESPACE,
    uid: 'app-uid',
    generation: 1,
    finalizers: ['kreconcile.io/cleanup'],
  },
  spec: { manifest },
});

/** Live objects after another actor changed one observed field on every tenth resource. */
const drifted = (live: ReadonlyArray<Resource>): ReadonlyArray<Resource> =>
  live.map((object, i) =>
    i % 10 !== 0
      ? object
      : { ...object, metadata: { ...object.metadata, labels: { ...object.metadata.labels, app: 'tampered' } } },
  );

type Inputs = { readonly application: Application; readonly live: ReadonlyArray<Resource> };

/** What the operator has after decoding objects from the API server: equal values, new identities. */
const freshCopy = (inputs: Inputs): Inputs => structuredClone<Inputs>(inputs);

const planOf = ({ application, live }: Inputs) => plan({ application, live, scopes: builtinScopes, now: NOW });

/** As `planOf`, through a planner kept across runs (its memo is what the operator keeps per controller). */
const plannedBy = (): ((inputs: Inputs) => Plan) => {
  const planner = createPlanner();
  return ({ application, live }) => planner.plan({ application, live, scopes: builtinScopes, now: NOW });
};

const diffAll = ({ application, live }: Inputs): number => {
  const desired = application.status?.lastAppliedManifest ?? [];
  let changes = 0;
  for (let i = 0; i < live.length; i++) changes += diff(desired[i] as object, live[i] as object).length;
  return changes;
};

/**
 * Plans per timed sample: enough that a sample plans ≥ 1 000 resources. A plan of 100 resources
 * takes ~1–2 ms of CPU, of the order of what a concurrent GC marking step or JIT compile (threads
 * of this process, so in its CPU time) adds to whichever side it lands in: single-plan samples at
 * 100 had the middle half of their per-round ratios anywhere from 0.45 to 1.24 in one run. Each
 * plan of a batch is still a whole plan on its own inputs (fresh: its own copy), so per-plan
 * fixed costs count in full.
 */
const plansPerSample = (count: number): number => Math.max(1, Math.ceil(1000 / count));

/** `task` over `batch` inputs, each prepared on its own (not timed). */
const batched = <T, R>(
  batch: number,
  prepare: () => T,
  task: (input: T) => R,
): { readonly prepare: () => ReadonlyArray<T>; readonly task: (inputs: ReadonlyArray<T>) => number } => ({
  prepare: () => Array.from({ length: batch }, prepare),
  task: (inputs) => {
    for (const input of inputs) task(input);
    return inputs.length;
  },
});

const KB = 1024;

/**
 * The goal of a row (issue 38, docs/performance.md): fresh plans of an Application in sync at
 * ≤ 0.6× microdiff from 100 resources on, with ≤ 3 KB allocated per resource; tiny Applications
 * (the operator's fleets are made of 1–4-object ones, where a fixed cost per plan dominates) at
 * ≤ 1.0×; drifted fresh plans ≤ 1.5× and cached ones ≤ 0.4× from 100 resources on.
 */
const goalOf = (
  count: number,
  state: 'in sync' | 'drifted 10%',
  mode: 'cached' | 'fresh',
): { readonly ratio: number; readonly allocatedPerResource?: number } | undefined => {
  if (mode === 'fresh' && state === 'in sync')
    return count < 100 ? { ratio: 1.0 } : { ratio: 0.6, allocatedPerResource: 3 * KB };
  if (count < 100) return undefined;
  return mode === 'cached' ? { ratio: 0.4 } : { ratio: 1.5 };
};

const goalFields = (
  goal: ReturnType<typeof goalOf>,
  ratio: number,
  allocatedPerResource: number,
): Pick<Row, 'goal' | 'goalMet'> => {
  if (goal === undefined) return {};
  const allocation = goal.allocatedPerResource;
  return {
    goal: `ratio ≤ ${goal.ratio.toFixed(1)}${allocation === undefined ? '' : `, ≤ ${allocation / KB} KB allocated per resource`}`,
    goalMet: ratio <= goal.ratio && (allocation === undefined || allocatedPerResource <= allocation),
  };
};

/**
 * Per case two modes: `cached` re-plans the same objects through one planner (the operator's
 * steady state: its memo hits), `fresh` plans new copies every run without a memo (after a relist
 * or a restart: nothing cached).
 * The baseline is a generic full deep diff (microdiff) of desired vs live, on the same inputs.
 */
export const coreBenchmarks = (
  sizes: ReadonlyArray<number>,
  batchOf: (count: number) => number = plansPerSample,
): ReadonlyArray<Row> =>
  sizes.flatMap((count) => {
    const manifest = manifestOf(count);
    const inSyncLive = manifest.map((resource, i) => asServed(resource, NAMESPACE, i, OWNER));
    const first = plan({ application: applicationOf(manifest), live: inSyncLive, scopes: builtinScopes, now: NOW });
    const application: Application = { ...applicationOf(manifest), status: first.status };
    const cases = [
      ['in sync', inSyncLive],
      ['drifted 10%', drifted(inSyncLive)],
    ] as const;
    return cases.flatMap(([state, live]) => {
      const inputs: Inputs = { application, live };
      const planned = planOf(inputs);
      const expected = state === 'in sync' ? 0 : Math.ceil(count / 10);
      if (planned.summary.patch !== expected || planned.summary.create + planned.summary.delete !== 0) {
        throw new Error(
          `benchmark setup is wrong: ${state} with ${count} resources planned ${JSON.stringify(planned.summary)}`,
        );
      }
      const modes = [
        ['cached', () => inputs, plannedBy()],
        ['fresh', () => freshCopy(inputs), planOf],
      ] as const;
      return modes.map(([mode, prepare, planWith]): Row => {
        const batch = batchOf(count);
        const plans = batched(batch, prepare, planWith);
        const diffs = batched(batch, prepare, diffAll);
        const sample = measurePair(plans.prepare, plans.task, diffs.task);
        // One sample is `batch` plans: the times are per plan (the ratio is the same either way).
        const timed = {
          ...sample,
          medianMs: sample.medianMs / batch,
          baselineMedianMs: sample.baselineMedianMs / batch,
        };
        const allocatedPerResource = Math.round(allocatedBytes(prepare, planWith) / count);
        return {
          suite: 'core',
          case: `plan ${count} resources, ${state}, ${mode}`,
          resources: count,
          mode,
          valueMs: timed.medianMs,
          perItemUs: (timed.medianMs * 1000) / count,
          baselineName: 'microdiff full diff',
          baselineMs: timed.baselineMedianMs,
          ratio: timed.ratio,
          ratioQuartiles: timed.ratioQuartiles,
          memoryBytes: retainedBytes(() => planWith(prepare())),
          iterations: timed.iterations,
          plansPerSample: batch,
          allocatedBytesPerResource: allocatedPerResource,
          ...goalFields(goalOf(count, state, mode), timed.ratio, allocatedPerResource),
        };
      });
    });
  });

/**
 * Live objects after someone edited what matters at run time on every tenth resource (kubectl edit, its own
 * managedFields entry): a Deployment's image (rolls its pods), a Service's selector (moves traffic), a ConfigMap's
 * data (reaches its readers).
 */
const editedAtRunTime = (live: ReadonlyArray<Resource>): ReadonlyArray<Resource> =>
  live.map((object, i) => {
    if (i % 10 !== 0) return object;
    const edited = structuredClone(object) as Resource & {
      spec?: { template?: { spec: { containers: Array<{ image: string }> } }; selector?: Record<string, string> };
      data?: Record<string, string>;
      metadata: { managedFields?: Array<Record<string, unknown>> };
    };
    if (edited.kind === 'Deployment' && edited.spec?.template !== undefined)
      edited.spec.template.spec.containers[0]!.image = 'nginx:1.28.0';
    else if (edited.kind === 'Service' && edited.spec?.selector !== undefined) edited.spec.selector = { app: 'other' };
    else if (edited.data !== undefined) edited.data['app.properties'] = 'mode=debug\n';
    const kreconcile = edited.metadata.managedFields?.[0] ?? {};
    edited.metadata.managedFields = [
      ...(edited.metadata.managedFields ?? []),
      { ...kreconcile, manager: 'kubectl-edit' },
    ];
    return edited;
  });

/** The plan and what the CLI adds to it: each action's rollout impact and the other owners of each patched field. */
const planWithImpact = (inputs: Inputs): number => {
  const planned = planOf(inputs);
  const desired = planned.status.lastAppliedManifest ?? [];
  const impacts = rolloutImpacts({ actions: planned.actions, desired, live: inputs.live });
  return impacts.length + patchedFieldOwners(planned, inputs.live).length;
};

/**
 * Issue 38: impact and ownership add at most 20 % to a fresh plan of the 1 000-resource Application, edited at
 * run time on every tenth resource. The baseline is the same plan without them, on the same inputs.
 */
export const impactBenchmark = (count = 1000): Row => {
  const manifest = manifestOf(count);
  const inSync = manifest.map((resource, i) => asServed(resource, NAMESPACE, i, OWNER));
  const first = plan({ application: applicationOf(manifest), live: inSync, scopes: builtinScopes, now: NOW });
  const inputs: Inputs = {
    application: { ...applicationOf(manifest), status: first.status },
    live: editedAtRunTime(inSync),
  };
  const planned = planOf(inputs);
  const impacts = rolloutImpacts({
    actions: planned.actions,
    desired: planned.status.lastAppliedManifest ?? [],
    live: inputs.live,
  });
  if (planned.summary.patch !== Math.ceil(count / 10) || !impacts.some((impact) => impact.length > 0))
    throw new Error(`benchmark setup is wrong: ${JSON.stringify(planned.summary)}, no impact found`);
  // The two sides differ by about a tenth, less than one round's noise on a shared machine: 5 s of rounds, not 1.5.
  const sample = measurePair(() => freshCopy(inputs), planWithImpact, planOf, 5000);
  return {
    suite: 'core',
    case: `plan ${count} resources, edited at run time, fresh, with impact and field owners`,
    resources: count,
    valueMs: sample.medianMs,
    baselineName: 'the same plan without them',
    baselineMs: sample.baselineMedianMs,
    ratio: sample.ratio,
    ratioQuartiles: sample.ratioQuartiles,
    iterations: sample.iterations,
    goal: 'ratio ≤ 1.2',
    goalMet: sample.ratio <= 1.2,
  };
};
