/**
 * `kreconcile.io/depends-on`: creations wait until their dependencies are ready, deletions until
 * their dependents are gone, cycles and dangling references are spec errors naming them; and the
 * law, as a property: no resource is ever created before its dependencies are ready, nor deleted
 * while a resource depending on it exists, and a chain converges both ways.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEPENDS_ON_ANNOTATION, plan, refKey, refOf, type Plan, type Resource } from '../../core/internal.js';
import { afterPlan, application, execute, scopes, served } from './fixtures.js';

const configMap = (name: string, dependsOn?: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(dependsOn === undefined ? {} : { annotations: { [DEPENDS_ON_ANNOTATION]: dependsOn } }) },
  data: { name },
});
const deployment = (name: string, dependsOn?: string): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, ...(dependsOn === undefined ? {} : { annotations: { [DEPENDS_ON_ANNOTATION]: dependsOn } }) },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

const lines = (result: Plan): ReadonlyArray<string> =>
  result.actions.map(
    (action) =>
      `${action.type} ${action.ref.kind}/${action.ref.name}${action.type === 'wait' ? ` ${action.until} ${action.for.map((r) => `${r.kind}/${r.name}`).join(',')}` : ''}`,
  );
const stalled = (result: Plan) => result.status.conditions?.find((c) => c.type === 'Stalled');

// A chain: the Deployment `db` first, then ConfigMap `settings` (needs db), then Deployment `web` (needs settings).
const chain = [deployment('web', 'ConfigMap/settings'), configMap('settings', 'apps/Deployment/db'), deployment('db')];

describe('dependsOn: validation', () => {
  it('a cycle is a spec error naming the whole cycle, once', () => {
    const result = plan({
      application: application({
        manifest: [configMap('a', 'ConfigMap/b'), configMap('b', 'ConfigMap/c'), configMap('c', 'ConfigMap/a')],
      }),
      live: [],
      scopes,
      now: 'now',
    });
    expect(stalled(result)).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
    expect(stalled(result)?.message).toBe(
      'spec.manifest[0].metadata.annotations["kreconcile.io/depends-on"]: dependency cycle: ConfigMap/a → ConfigMap/b → ConfigMap/c → ConfigMap/a: remove one of these dependencies',
    );
    expect(result.actions.filter((a) => a.type !== 'addFinalizer')).toEqual([]);
  });

  it('a self-reference, a dangling reference and a malformed entry are errors too', () => {
    const message = (manifest: ReadonlyArray<Resource>) =>
      stalled(plan({ application: application({ manifest }), live: [], scopes, now: 'now' }))?.message;
    expect(message([configMap('a', 'ConfigMap/a')])).toContain('dependency cycle: ConfigMap/a → ConfigMap/a');
    expect(message([configMap('a', 'ConfigMap/missing, apps/Deployment/db')])).toBe(
      'spec.manifest[0].metadata.annotations["kreconcile.io/depends-on"]: ConfigMap/missing, apps/Deployment/db: not in spec.manifest (in this namespace); a resource can depend only on resources of the same Application',
    );
    expect(message([configMap('a', 'db')])).toContain('"db" is not a reference: write [group/]Kind/name');
  });
});

describe('dependsOn: the plan shows what waits on what', () => {
  it('from an empty cluster only what depends on nothing is created; the rest waits', () => {
    const result = plan({
      application: application({ manifest: chain }),
      live: [],
      scopes,
      now: 'now',
      options: { readiness: 'existence' },
    });
    expect(lines(result)).toEqual([
      'create Deployment/db',
      'wait Deployment/web DependenciesReady ConfigMap/settings',
      'wait ConfigMap/settings DependenciesReady Deployment/db',
    ]);
    expect(result.summary).toEqual({ create: 1, patch: 0, delete: 0, conflict: 0, wait: 2 });
  });

  it('a dependency that exists but is not ready (kstatus) still holds its dependents back', () => {
    const [created] = execute(
      [],
      plan({ application: application({ manifest: chain }), live: [], scopes, now: 'now' }).actions,
      served,
    );
    const db = created as Resource;
    const rolling = {
      ...db,
      status: { observedGeneration: 1, replicas: 1, updatedReplicas: 0, availableReplicas: 0 },
    } as Resource;
    const result = plan({ application: application({ manifest: chain }), live: [rolling], scopes, now: 'now' });
    expect(lines(result)).toContain('wait ConfigMap/settings DependenciesReady Deployment/db');
    // Waiting on a dependency comes before waiting for readiness: both requeue at the readiness delay.
    expect(result.outcome).toMatchObject({ _tag: 'RequeueAfter', reason: 'WaitingForDependencies' });
    const ready = {
      ...db,
      status: {
        observedGeneration: 1,
        replicas: 1,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
        conditions: [{ type: 'Available', status: 'True' }],
      },
    } as Resource;
    expect(lines(plan({ application: application({ manifest: chain }), live: [ready], scopes, now: 'now' }))).toEqual([
      'create ConfigMap/settings',
      'wait Deployment/web DependenciesReady ConfigMap/settings',
    ]);
  });

  it('only waits left: Progressing WaitingForDependencies, requeued at the readiness delay', () => {
    const manifest = [configMap('b', 'ConfigMap/a'), configMap('a')];
    const afterFirst = execute(
      [],
      plan({ application: application({ manifest }), live: [], scopes, now: 'now' }).actions,
      served,
    );
    // `a` exists but is terminating (held by a finalizer): not ready, so `b` keeps waiting.
    const terminating = afterFirst.map((o) => ({
      ...o,
      metadata: { ...o.metadata, deletionTimestamp: 't', finalizers: ['x'] },
    }));
    const waitingOnly = plan({ application: application({ manifest }), live: terminating, scopes, now: 'now' });
    expect(lines(waitingOnly)).toEqual(['wait ConfigMap/b DependenciesReady ConfigMap/a']);
    expect(waitingOnly.status.conditions?.find((c) => c.type === 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'WaitingForDependencies',
      message: 'waiting: v1 ConfigMap default/b (waits for v1 ConfigMap default/a) to be ready',
    });
    expect(waitingOnly.outcome).toEqual({ _tag: 'RequeueAfter', ms: 5_000, reason: 'WaitingForDependencies' });
  });

  it('deleting the Application deletes dependents first: a dependency waits until they are gone', () => {
    const live = chain.map((resource, i) =>
      served(
        {
          ...resource,
          metadata: {
            ...resource.metadata,
            namespace: 'default',
            labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
            annotations: { ...resource.metadata.annotations, 'kreconcile.io/owner': 'default/app' },
          },
        },
        i,
      ),
    );
    const result = plan({
      application: application({ manifest: chain }, { deleting: true }),
      live,
      scopes,
      now: 'now',
    });
    expect(lines(result)).toEqual([
      'delete Deployment/web',
      'wait Deployment/db DependentsGone ConfigMap/settings',
      'wait ConfigMap/settings DependentsGone Deployment/web',
    ]);
  });
});

/**
 * A random DAG over ConfigMaps: resource i may depend only on resources with a lower index, listed in a random order.
 */
const dagArbitrary = fc.integer({ min: 1, max: 6 }).chain((size) =>
  fc.record({
    edges: fc.tuple(...Array.from({ length: size }, (_, i) => fc.subarray(Array.from({ length: i }, (_, j) => j)))),
    order: fc.shuffledSubarray(
      Array.from({ length: size }, (_, i) => i),
      { minLength: size, maxLength: size },
    ),
  }),
);

const manifestOf = (
  edges: ReadonlyArray<ReadonlyArray<number>>,
  order: ReadonlyArray<number>,
): ReadonlyArray<Resource> =>
  order.map((i) =>
    configMap(`cm-${i}`, edges[i]!.length === 0 ? undefined : edges[i]!.map((j) => `ConfigMap/cm-${j}`).join(', ')),
  );

describe('dependsOn: property', () => {
  it('no resource is created before its dependencies exist (ready), none deleted while a dependent exists; both directions converge', () => {
    fc.assert(
      fc.property(dagArbitrary, ({ edges, order }) => {
        const manifest = manifestOf(edges, order);
        const dependenciesOf = (name: string): ReadonlyArray<string> =>
          edges[Number(name.slice(3))]!.map((j) => `cm-${j}`);
        let app = application({ manifest });
        let live: ReadonlyArray<Resource> = [];
        for (let round = 0; round <= edges.length + 1; round++) {
          const result = plan({ application: app, live, scopes, now: 'now', options: { readiness: 'existence' } });
          const existing = new Set(live.map((o) => o.metadata.name));
          for (const action of result.actions.filter((a) => a.type === 'create')) {
            expect(dependenciesOf(action.ref.name).filter((d) => !existing.has(d))).toEqual([]);
          }
          live = execute(live, result.actions, served);
          app = afterPlan(app, result);
        }
        expect(live.map((o) => o.metadata.name).sort()).toEqual(manifest.map((r) => r.metadata.name).sort());
        expect(
          plan({ application: app, live, scopes, now: 'now', options: { readiness: 'existence' } }).actions,
        ).toEqual([]);
        // Deleting the Application: dependents always go first.
        app = { ...app, metadata: { ...app.metadata, deletionTimestamp: 't' } };
        for (let round = 0; round <= edges.length + 1 && live.length > 0; round++) {
          const result = plan({ application: app, live, scopes, now: 'now' });
          const remaining = new Set(live.map((o) => o.metadata.name));
          const deleted = new Set(result.actions.filter((a) => a.type === 'delete').map((a) => a.ref.name));
          for (const name of deleted) {
            const dependents = [...remaining].filter((other) => dependenciesOf(other).includes(name));
            expect(dependents).toEqual([]);
          }
          live = execute(live, result.actions);
        }
        expect(live.map((o) => refKey(refOf(o)))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
