/**
 * `spec.dependsOn` between Applications (core/plan/depends-on.ts): the pure decision, the plan that
 * holds an Application back, the codec's bounds, and properties over random dependency graphs.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applicationsViewOf,
  conditionOf,
  decodeApplication,
  dependsOnDecision,
  plan,
  type Application,
  type ApplicationSpec,
  type Resource,
  type TenancyPolicy,
} from '../../core/internal.js';
import { application, marked, scopes } from './fixtures.js';

const NOW = '2026-01-01T00:00:00Z';

/** A stored Application `namespace/name`, Ready (for its generation) unless told otherwise. */
const stored = (
  name: string,
  options: {
    readonly namespace?: string;
    readonly dependsOn?: ApplicationSpec['dependsOn'];
    readonly ready?: 'True' | 'False' | 'none';
    readonly generation?: number;
    readonly observedGeneration?: number;
    readonly deleting?: boolean;
  } = {},
): Resource => {
  const generation = options.generation ?? 1;
  const ready = options.ready ?? 'True';
  return {
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      generation,
      ...(options.deleting === true ? { deletionTimestamp: NOW } : {}),
    },
    spec: { manifest: [], ...(options.dependsOn === undefined ? {} : { dependsOn: options.dependsOn }) },
    status: {
      observedGeneration: options.observedGeneration ?? generation,
      conditions:
        ready === 'none'
          ? []
          : [
              {
                type: 'Ready',
                status: ready,
                reason: ready === 'True' ? 'Reconciled' : 'WaitingForReadiness',
                message: '',
                lastTransitionTime: NOW,
              },
            ],
    },
  };
};

const asApplication = (object: Resource): Application => {
  const decoded = decodeApplication(object);
  if (decoded._tag === 'Left') throw new Error(`fixture does not decode: ${JSON.stringify(decoded.left)}`);
  return decoded.right;
};

const decide = (self: Resource, others: ReadonlyArray<Resource>, policy?: TenancyPolicy) =>
  dependsOnDecision({
    application: asApplication(self),
    view: applicationsViewOf([self, ...others]),
    ...(policy === undefined ? {} : { policy }),
  });

const configMap = (name: string): Resource => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} });

describe('dependsOnDecision', () => {
  it('proceeds when every dependency is Ready for its current generation', () => {
    const web = stored('web', { dependsOn: [{ name: 'db' }, { name: 'cache', namespace: 'default' }] });
    expect(decide(web, [stored('db'), stored('cache')])).toEqual({ _tag: 'Proceed' });
  });

  it('waits, naming each dependency and whether it is missing, not ready or stale', () => {
    const web = stored('web', { dependsOn: [{ name: 'db' }, { name: 'cache' }, { name: 'queue' }, { name: 'ok' }] });
    const decision = decide(web, [
      stored('cache', { ready: 'False' }),
      stored('queue', { generation: 3, observedGeneration: 2 }),
      stored('ok'),
    ]);
    expect(decision).toMatchObject({ _tag: 'Waiting', reason: 'DependencyNotReady' });
    if (decision._tag !== 'Waiting') return;
    expect(decision.on.map((key) => key.name)).toEqual(['db', 'cache', 'queue']);
    expect(decision.message).toContain('default/db (not found)');
    expect(decision.message).toContain('default/cache (not ready: WaitingForReadiness)');
    expect(decision.message).toContain('default/queue (stale: status is for generation 2, the spec is at 3)');
    expect(decision.message).not.toContain('default/ok');
  });

  it('a dependency without a Ready condition or being deleted is not ready', () => {
    const web = stored('web', { dependsOn: [{ name: 'a' }, { name: 'b' }] });
    const decision = decide(web, [stored('a', { ready: 'none' }), stored('b', { deleting: true })]);
    expect(decision._tag === 'Waiting' && decision.message).toContain('default/a (not ready: no Ready condition yet)');
    expect(decision._tag === 'Waiting' && decision.message).toContain('default/b (being deleted)');
  });

  it('stalls a self-dependency and every member of a longer cycle, naming the cycle', () => {
    const self = stored('a', { dependsOn: [{ name: 'a' }] });
    expect(decide(self, [])).toMatchObject({
      _tag: 'Stalled',
      reason: 'DependencyCycle',
      message: expect.stringContaining('default/a → default/a'),
    });
    const a = stored('a', { dependsOn: [{ name: 'b' }], ready: 'False' });
    const b = stored('b', { dependsOn: [{ name: 'c' }], ready: 'False' });
    const c = stored('c', { dependsOn: [{ name: 'a' }], ready: 'False' });
    expect(decide(a, [b, c])).toMatchObject({
      _tag: 'Stalled',
      message: expect.stringContaining('default/a → default/b → default/c → default/a'),
    });
    expect(decide(b, [a, c])).toMatchObject({
      _tag: 'Stalled',
      message: expect.stringContaining('default/b → default/c → default/a → default/b'),
    });
    // Not a member: depending on a cycle only waits (its members are not Ready).
    const outside = stored('d', { dependsOn: [{ name: 'a' }] });
    expect(decide(outside, [a, b, c])).toMatchObject({ _tag: 'Waiting', reason: 'DependencyNotReady' });
  });

  it('stalls a dependency in a namespace the tenancy policy does not allow, and follows one it allows', () => {
    const web = stored('web', { namespace: 'shop', dependsOn: [{ name: 'db', namespace: 'data' }] });
    const db = stored('db', { namespace: 'data' });
    expect(decide(web, [db])).toMatchObject({
      _tag: 'Stalled',
      reason: 'DependencyForbidden',
      message: expect.stringContaining('data/db'),
    });
    const allowed: TenancyPolicy = { destinations: [{ from: 'shop', to: ['data'] }] };
    expect(decide(web, [db], allowed)).toEqual({ _tag: 'Proceed' });
    expect(decide(web, [db], { destinations: [{ from: '*', to: ['*'] }] })).toEqual({ _tag: 'Proceed' });
  });

  it('a deleted Application waits for its dependants that are not being deleted, naming them', () => {
    const db = stored('db', { deleting: true });
    const web = stored('web', { dependsOn: [{ name: 'db' }] });
    const api = stored('api', { dependsOn: [{ name: 'db' }], deleting: true });
    const decision = decide(db, [web, api]);
    expect(decision).toMatchObject({ _tag: 'Waiting', reason: 'DependantsExist' });
    expect(decision._tag === 'Waiting' && decision.message).toContain('default/web');
    expect(decision._tag === 'Waiting' && decision.message).not.toContain('default/api');
    expect(decide(db, [api])).toEqual({ _tag: 'Proceed' });
  });

  it('a dependant in a namespace the policy does not let reach this one cannot hold its deletion', () => {
    const db = stored('db', { namespace: 'data', deleting: true });
    const intruder = stored('web', { namespace: 'other', dependsOn: [{ name: 'db', namespace: 'data' }] });
    expect(decide(db, [intruder])).toEqual({ _tag: 'Proceed' });
    expect(decide(db, [intruder], { destinations: [{ from: 'other', to: ['data'] }] })).toMatchObject({
      _tag: 'Waiting',
      reason: 'DependantsExist',
    });
  });

  it('a dependency whose stored fields do not decode counts as not ready, never throws', () => {
    const web = stored('web', { dependsOn: [{ name: 'db' }] });
    const hostile = { ...stored('db'), spec: 'x', status: { conditions: 'Ready' } } as unknown as Resource;
    expect(decide(web, [hostile])).toMatchObject({ _tag: 'Waiting', reason: 'DependencyNotReady' });
  });
});

describe('plan with spec.dependsOn', () => {
  const options = (others: ReadonlyArray<Resource>) => ({ applications: applicationsViewOf(others) });

  it('writes nothing while waiting (no create, patch, prune or finalizer), and says why', () => {
    const app = application(
      { manifest: [configMap('new')], dependsOn: [{ name: 'db' }] },
      { finalizer: true, generation: 2, status: { lastAppliedManifest: [configMap('old')] } },
    );
    const live = [
      { ...marked(configMap('old')), metadata: { ...marked(configMap('old')).metadata, namespace: 'default' } },
    ];
    const held = plan({
      application: app,
      live,
      scopes,
      now: NOW,
      options: options([stored('db', { ready: 'False' })]),
    });
    expect(held.actions).toEqual([]);
    expect(held.outcome).toEqual({ _tag: 'AwaitChange' });
    expect(held.status.observedGeneration).toBe(2);
    expect(conditionOf(held.status.conditions, 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'DependencyNotReady',
      message: expect.stringContaining('default/db (not ready: WaitingForReadiness)'),
    });
    expect(conditionOf(held.status.conditions, 'Ready')?.status).toBe('False');
    // Its dependency Ready: the same input plans the create and the prune.
    const free = plan({ application: app, live, scopes, now: NOW, options: options([stored('db')]) });
    expect(free.actions.map((action) => action.type).sort()).toEqual(['create', 'delete']);
    // Without a view dependsOn is not checked (the caller decides).
    expect(plan({ application: app, live, scopes, now: NOW }).actions.length).toBe(2);
  });

  it('a cycle is Stalled with no action', () => {
    const app = application({ manifest: [configMap('x')], dependsOn: [{ name: 'other' }] });
    const other = stored('other', { dependsOn: [{ name: 'app' }] });
    const held = plan({ application: app, scopes, now: NOW, options: options([other]) });
    expect(held.actions).toEqual([]);
    expect(conditionOf(held.status.conditions, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'DependencyCycle',
      message: expect.stringContaining('default/app → default/other → default/app'),
    });
  });

  it('deletion keeps the finalizer and the children while a dependant exists', () => {
    const app = application({ manifest: [configMap('a')] }, { deleting: true });
    const live = [
      { ...marked(configMap('a')), metadata: { ...marked(configMap('a')).metadata, namespace: 'default' } },
    ];
    const dependant = stored('web', { dependsOn: [{ name: 'app' }] });
    const held = plan({ application: app, live, scopes, now: NOW, options: options([dependant]) });
    expect(held.actions).toEqual([]);
    expect(conditionOf(held.status.conditions, 'Reconciling')).toMatchObject({
      reason: 'DependantsExist',
      message: expect.stringContaining('default/web'),
    });
    const gone = plan({ application: app, live, scopes, now: NOW, options: options([]) });
    expect(gone.actions.map((action) => action.type)).toEqual(['delete']);
  });
});

describe('spec.dependsOn codec', () => {
  const decodes = (dependsOn: unknown): boolean =>
    decodeApplication({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'a', namespace: 'default' },
      spec: { dependsOn },
    })._tag === 'Right';

  it('takes names and namespaces, refuses bad names, duplicates and more than 32 entries', () => {
    expect(decodes([{ name: 'db' }, { name: 'db', namespace: 'data' }])).toBe(true);
    expect(decodes([{ name: 'Db' }])).toBe(false);
    expect(decodes([{ name: 'db', namespace: 'a.b' }])).toBe(false);
    expect(decodes([{ name: '' }])).toBe(false);
    expect(decodes([{ namespace: 'x' }])).toBe(false);
    expect(decodes([{ name: 'db' }, { name: 'db' }])).toBe(false);
    expect(decodes(Array.from({ length: 32 }, (_, i) => ({ name: `a${i}` })))).toBe(true);
    expect(decodes(Array.from({ length: 33 }, (_, i) => ({ name: `a${i}` })))).toBe(false);
  });
});

describe('dependsOn properties', () => {
  /** A random graph over n Applications of one namespace: edges[i] lists the indexes i depends on. */
  const graphs = fc.integer({ min: 1, max: 7 }).chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 3 }), {
        minLength: n,
        maxLength: n,
      }),
      fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    ),
  );

  /** Whether `from` reaches `to` along the edges (at least one step). */
  const reaches = (edges: ReadonlyArray<ReadonlyArray<number>>, from: number, to: number): boolean => {
    const seen = new Set<number>();
    const stack = [...(edges[from] ?? [])];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (next === to) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(edges[next] ?? []));
    }
    return false;
  };

  it('stalls exactly the members of a cycle; the others proceed exactly when every dependency is Ready', () => {
    fc.assert(
      fc.property(graphs, ([n, edges, ready]) => {
        const objects = Array.from({ length: n }, (_, i) =>
          stored(`a${i}`, {
            dependsOn: (edges[i] ?? []).map((j) => ({ name: `a${j}` })),
            ready: ready[i] === true ? 'True' : 'False',
          }),
        );
        const view = applicationsViewOf(objects);
        objects.forEach((object, i) => {
          const decision = dependsOnDecision({ application: asApplication(object), view });
          const inCycle = reaches(edges, i, i);
          expect(decision._tag === 'Stalled').toBe(inCycle);
          if (inCycle) {
            // The named cycle is a real path: each step is an edge, it starts and ends here.
            const names = decision._tag === 'Stalled' ? /cycle (.*): remove/.exec(decision.message)?.[1] : undefined;
            const path = (names ?? '').split(' → ').map((key) => Number(key.replace('default/a', '')));
            expect(path[0]).toBe(i);
            expect(path[path.length - 1]).toBe(i);
            path.slice(1).forEach((to, k) => expect(edges[path[k]!]).toContain(to));
            return;
          }
          const allReady = (edges[i] ?? []).every((j) => ready[j] === true);
          expect(decision._tag).toBe(allReady ? 'Proceed' : 'Waiting');
        });
      }),
      { numRuns: 300 },
    );
  });

  it('the decision does not depend on the order the view lists the Applications in', () => {
    fc.assert(
      fc.property(
        graphs.chain((graph) =>
          fc.tuple(fc.constant(graph), fc.shuffledSubarray([...Array(graph[0]).keys()], { minLength: graph[0] })),
        ),
        ([[n, edges, ready], order]) => {
          const objects = Array.from({ length: n }, (_, i) =>
            stored(`a${i}`, {
              dependsOn: (edges[i] ?? []).map((j) => ({ name: `a${j}` })),
              ready: ready[i] === true ? 'True' : 'False',
            }),
          );
          const shuffled = order.map((i) => objects[i]!);
          for (const object of objects)
            expect(
              dependsOnDecision({ application: asApplication(object), view: applicationsViewOf(shuffled) })._tag,
            ).toBe(dependsOnDecision({ application: asApplication(object), view: applicationsViewOf(objects) })._tag);
        },
      ),
    );
  });
});
