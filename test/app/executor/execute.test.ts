/**
 * The executor's waves: writes of one kind and type, side by side in the plan, are sent together
 * (bounded); kinds still go in plan order, and a failure stops every later wave.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { executePlan, WAVE_CONCURRENCY } from '../../../app/executor/execute.js';
import { builtinScopes, clusterError, decodeApplication, getIn, plan, type Resource } from '../../../core/internal.js';
import { applicationOf, type Child } from '../model/world.js';

type Write = { readonly start: number; readonly end: number; readonly kind: string; readonly name: string };

/** The memory cluster with every create logged as an interval on a counter of writes started and finished. */
const recording = (cluster: MemoryCluster, failing: ReadonlySet<string> = new Set()) => {
  const writes: Write[] = [];
  let tick = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const create = (object: Resource) => async () => {
    const start = tick++;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // Give every other write of the wave the chance to start before this one answers.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    const result = failing.has(object.metadata.name)
      ? await TE.left(clusterError('Internal', 'injected', { code: 500 }))()
      : await cluster.create(object)();
    inFlight--;
    writes.push({ start, end: tick++, kind: object.kind, name: object.metadata.name });
    return result;
  };
  return { writer: { ...cluster, create }, writes, maxInFlight: () => maxInFlight };
};

const configs = (count: number): ReadonlyArray<Child> =>
  Array.from({ length: count }, (_, i) => ({
    kind: 'ConfigMap' as const,
    name: `config-${i}`,
    data: { i: String(i) },
  }));
const services: ReadonlyArray<Child> = [
  { kind: 'Service', name: 'web-a', port: 80 },
  { kind: 'Service', name: 'web-b', port: 8080 },
];

const planned = async (cluster: MemoryCluster, children: ReadonlyArray<Child>) => {
  const created = await cluster.create(applicationOf({ namespace: 'default', name: 'shop', children }))();
  if (E.isLeft(created)) throw new Error(created.left.message);
  const application = decodeApplication(created.right);
  if (E.isLeft(application)) throw new Error('does not decode');
  return {
    application: application.right,
    plan: plan({ application: application.right, live: [], scopes: builtinScopes, now: '2026-01-01T00:00:00Z' }),
  };
};

const overlapping = (a: Write, b: Write): boolean => a.start < b.end && b.start < a.end;

describe('executing a plan in waves', () => {
  it('sends the creates of one kind together, at most WAVE_CONCURRENCY at a time, and the next kind only after', async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(), seed: 1 });
    const { application, plan: toRun } = await planned(cluster, [...services, ...configs(6)]);
    const { writer, writes, maxInFlight } = recording(cluster);
    const execution = await executePlan({ plan: toRun, application, cluster: writer });
    expect(execution.failure).toBeUndefined();
    expect(execution.done.map(({ action }) => (action.type === 'create' ? action.ref.name : action.type))).toEqual(
      toRun.actions.map((action) => (action.type === 'create' ? action.ref.name : action.type)),
    );
    const configWrites = writes.filter((w) => w.kind === 'ConfigMap');
    const serviceWrites = writes.filter((w) => w.kind === 'Service');
    expect(maxInFlight()).toBe(WAVE_CONCURRENCY);
    expect(configWrites.some((a) => configWrites.some((b) => a !== b && overlapping(a, b)))).toBe(true);
    // ConfigMaps come before Services in the install order: no Service write starts before every ConfigMap is answered.
    expect(Math.min(...serviceWrites.map((w) => w.start))).toBeGreaterThan(Math.max(...configWrites.map((w) => w.end)));
    // The status records every answer, in plan order.
    expect(execution.status.lastObservedManifest?.map((entry) => getIn(entry, ['metadata', 'name']))).toEqual(
      toRun.actions.flatMap((action) => (action.type === 'create' ? [action.ref.name] : [])),
    );
  });

  it("a failed write stops every later wave; the failure is the first in plan order and its wave's successes are done", async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(), seed: 1 });
    const { application, plan: toRun } = await planned(cluster, [...services, ...configs(4)]);
    const { writer, writes } = recording(cluster, new Set(['config-1', 'config-2']));
    const execution = await executePlan({ plan: toRun, application, cluster: writer });
    expect(execution.failure?.action.ref.name).toBe('config-1');
    expect(execution.done.flatMap(({ action }) => (action.type === 'create' ? [action.ref.name] : []))).toEqual([
      'config-0',
      'config-3',
    ]);
    expect(writes.filter((w) => w.kind === 'Service')).toEqual([]);
    expect(
      cluster
        .objects()
        .filter((object) => object.kind === 'ConfigMap')
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual(['config-0', 'config-3']);
  });

  it('a skip (a write withheld by kreconcile.io/apply) is neither sent nor reported as done; the writes around it are', async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(), seed: 1 });
    const { application, plan: toRun } = await planned(cluster, configs(2));
    const [first, ...rest] = toRun.actions;
    const body: Resource = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'theirs', namespace: 'default' } };
    const withSkips = {
      ...toRun,
      actions: [
        ...(first === undefined ? [] : [first]),
        {
          type: 'skip' as const,
          ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'theirs' },
          apply: 'Ignore' as const,
          withheld: 'create' as const,
          changes: [],
        },
        ...rest,
      ],
    };
    const { writer, writes } = recording(cluster);
    const execution = await executePlan({ plan: withSkips, application, cluster: writer });
    expect(execution.failure).toBeUndefined();
    expect(execution.done.map(({ action }) => action.type)).toEqual(toRun.actions.map((action) => action.type));
    expect(writes.map((w) => w.name).sort()).toEqual(['config-0', 'config-1']);
    expect(cluster.objects().some((object) => object.metadata.name === body.metadata.name)).toBe(false);
  });
});
