/**
 * The fleet plan (core/fleet/) over generated fleets: Applications from the kit's arbitraries,
 * some sharing an object (a conflict), live objects perturbed, owned by their Application, by
 * another or by nobody. Totals equal the sum of the instance plans; grouping loses no instance;
 * a fleet plan equals planning each Application alone; every shared object is one conflict.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addSummaries,
  changeSignature,
  EMPTY_SUMMARY,
  identityOf,
  liveObjectsFor,
  objectKey,
  ownerMark,
  plan,
  planFleet,
  withKey,
  type Application,
  type ObjectRef,
  type Resource,
} from '../../core/internal.js';
import {
  arbitraryScopes,
  foreignOwnerArbitrary,
  livePerturbationArbitrary,
  ownedBy,
} from '../../core/model/resource.arbitrary.js';
import { applicationArbitrary } from '../../app/testing/arbitraries.js';

const NOW = '2026-03-02T12:00:00Z';
const scopes = arbitraryScopes;

/** An Application renamed to be the fleet's `index`th, in one of two namespaces. */
const instance = (application: Application, index: number): Application => ({
  ...application,
  metadata: { ...application.metadata, name: `app-${index}`, namespace: index % 2 === 0 ? 'team-a' : 'team-b' },
});

/** Where an object of `application` lives: its identity, namespace filled in as the planner does. */
const placed = (resource: Resource, application: Application): Resource => {
  const ref = identityOf(resource, scopes, application.metadata.namespace ?? 'default');
  return ref.namespace === undefined
    ? resource
    : withKey(resource, 'metadata', { ...resource.metadata, namespace: ref.namespace });
};

type Fleet = { readonly applications: ReadonlyArray<Application>; readonly live: ReadonlyArray<Resource> };

/** 1–6 Applications; some take another's first object too (so two declare it); live copies of some objects. */
const fleetArbitrary: fc.Arbitrary<Fleet> = fc
  .array(applicationArbitrary({ maxResources: 3 }), { minLength: 1, maxLength: 6 })
  .chain((drawn) => {
    const named = drawn.map(instance);
    return fc.tuple(
      fc.constant(named),
      fc.array(fc.boolean(), { minLength: named.length, maxLength: named.length }),
      fc.array(fc.constantFrom('own', 'foreign', 'absent', 'fleet'), { minLength: 12, maxLength: 12 }),
    );
  })
  .chain(([named, sharing, liveness]) => {
    // An Application "sharing" declares its predecessor's first object too, in the predecessor's namespace.
    const applications = named.map((application, index) => {
      const before = named[index - 1];
      const shared = before?.spec.manifest?.[0];
      if (!sharing[index] || before === undefined || shared === undefined) return application;
      const copy = placed(shared, before);
      return { ...application, spec: { ...application.spec, manifest: [...(application.spec.manifest ?? []), copy] } };
    });
    const candidates = applications.flatMap((application) =>
      (application.spec.manifest ?? []).map((resource) => ({ application, resource: placed(resource, application) })),
    );
    const live = candidates.slice(0, liveness.length).flatMap(({ application, resource }, index) => {
      const how = liveness[index];
      if (how === 'absent') return [];
      const owner =
        how === 'own'
          ? fc.constant(
              ownerMark({ namespace: application.metadata.namespace ?? 'default', name: application.metadata.name }),
            )
          : how === 'fleet'
            ? fc.constant('team-a/app-0')
            : foreignOwnerArbitrary;
      return [fc.tuple(livePerturbationArbitrary(resource, 2), owner).map(([object, mark]) => ownedBy(object, mark))];
    });
    return fc.tuple(fc.constant(applications), fc.tuple(...live));
  })
  .map(([applications, live]) => ({ applications, live: uniqueByRef(live) }));

const uniqueByRef = (objects: ReadonlyArray<Resource>): ReadonlyArray<Resource> => {
  const seen = new Set<string>();
  return objects.filter((object) => {
    const key = objectKey(refOfObject(object));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

const refOfObject = (object: Resource): ObjectRef => ({
  apiVersion: object.apiVersion,
  kind: object.kind,
  ...(object.metadata.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
  name: object.metadata.name,
});

const RUNS = { numRuns: 60 };

describe('fleet plan over generated fleets (core/fleet)', () => {
  it('equals planning each Application alone', () => {
    fc.assert(
      fc.property(fleetArbitrary, ({ applications, live }) => {
        const fleet = planFleet({ applications, live, scopes, now: NOW });
        expect(fleet.members.map((m) => m.application)).toEqual(applications);
        applications.forEach((application, index) => {
          const alone = plan({ application, live: liveObjectsFor(application, live, scopes), scopes, now: NOW });
          expect(fleet.members[index]?.plan).toEqual(alone);
        });
      }),
      RUNS,
    );
  });

  it('has totals equal to the sum of the instance plans', () => {
    fc.assert(
      fc.property(fleetArbitrary, ({ applications, live }) => {
        const { members, report } = planFleet({ applications, live, scopes, now: NOW });
        expect(report.summary).toEqual(members.map((m) => m.plan.summary).reduce(addSummaries, EMPTY_SUMMARY));
        const objects = (action: string): number =>
          report.totals.filter((t) => t.action === action).reduce((sum, t) => sum + t.objects, 0);
        expect(objects('create')).toBe(report.summary.create);
        expect(objects('patch')).toBe(report.summary.patch);
        expect(objects('delete')).toBe(report.summary.delete);
        expect(objects('conflict')).toBe(report.summary.conflict);
        expect(objects('recreate')).toBe(report.summary.recreate ?? 0);
        for (const total of report.totals) {
          const having = members.filter((m) =>
            m.plan.actions.some((a) => a.type === total.action && a.ref.kind === total.kind),
          ).length;
          expect(total.instances).toBeLessThanOrEqual(having);
        }
      }),
      RUNS,
    );
  });

  it('groups every instance exactly once, each group one identical change', () => {
    fc.assert(
      fc.property(fleetArbitrary, ({ applications, live }) => {
        const { members, report } = planFleet({ applications, live, scopes, now: NOW });
        const grouped = report.groups.flatMap((g) => g.instances);
        expect([...grouped].sort((a, b) => a - b)).toEqual(members.map((_, index) => index));
        for (const group of report.groups) {
          const signatures = new Set(
            group.instances.map((i) => changeSignature(members[i]?.plan ?? fleetPlanMissing())),
          );
          expect(signatures.size).toBe(1);
        }
        const distinct = new Set(members.map((m) => changeSignature(m.plan)));
        expect(report.groups).toHaveLength(distinct.size);
      }),
      RUNS,
    );
  });

  it('reports each object two Applications declare as one conflict, the owner mark deciding who wins', () => {
    const winners = new Set<string>();
    fc.assert(
      fc.property(fleetArbitrary, ({ applications, live }) => {
        const { report } = planFleet({ applications, live, scopes, now: NOW });
        const declared = new Map<string, Set<number>>();
        applications.forEach((application, index) => {
          for (const resource of application.spec.manifest ?? []) {
            const key = objectKey(identityOf(resource, scopes, application.metadata.namespace ?? 'default'));
            declared.set(key, (declared.get(key) ?? new Set()).add(index));
          }
        });
        const shared = [...declared].filter(([, who]) => who.size > 1).map(([key]) => key);
        expect(report.conflicts.map((c) => objectKey(c.object)).sort()).toEqual(shared.sort());
        const owners = new Map(
          live.map((o) => [objectKey(refOfObject(o)), o.metadata.annotations?.['kreconcile.io/owner']]),
        );
        for (const conflict of report.conflicts) {
          winners.add(conflict.winner.type);
          const key = objectKey(conflict.object);
          const owner = owners.get(key);
          if (!owners.has(key)) expect(conflict.winner.type).toBe('FirstToCreate');
          else if (owner === undefined) expect(conflict.winner.type).toBe('Unowned');
          else if (conflict.winner.type === 'Owner') {
            const winner = applications[conflict.winner.index];
            expect(winner === undefined ? undefined : `${winner.metadata.namespace}/${winner.metadata.name}`).toBe(
              owner,
            );
          } else expect(conflict.winner).toEqual({ type: 'OwnedElsewhere', owner });
        }
      }),
      { numRuns: 150 },
    );
    // Not vacuous: the fleets hold shared objects absent, owned by one of them, elsewhere and unmarked.
    expect([...winners].sort()).toEqual(['FirstToCreate', 'OwnedElsewhere', 'Owner', 'Unowned']);
  });
});

const fleetPlanMissing = (): never => {
  throw new Error('a group names an instance the fleet does not have');
};

describe('fleet plan: field fights (core/fleet/fleet-report.ts)', () => {
  const deployment = (replicas: number): Resource => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    },
  });
  const web = (namespace: string): Application => ({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace },
    spec: { manifest: [deployment(3)] },
  });
  /** The live Deployment: `replicas` last written through /scale by `manager`. */
  const liveIn = (namespace: string, replicas: number, manager: string): Resource => {
    const object = ownedBy(placed(deployment(replicas), web(namespace)), `${namespace}/web`);
    return withKey(object, 'metadata', {
      ...object.metadata,
      managedFields: [
        {
          manager,
          operation: 'Update',
          subresource: 'scale',
          apiVersion: 'apps/v1',
          time: '2026-03-02T08:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:replicas': {} } },
        },
      ],
    });
  };

  it('names each instance that leaves a field to its controller, and never groups it with one that does not', () => {
    const applications = [web('team-a'), web('team-b'), web('team-c')];
    const live = [
      liveIn('team-a', 7, 'kube-controller-manager'),
      liveIn('team-b', 3, 'kube-controller-manager'),
      liveIn('team-c', 3, 'kube-controller-manager'),
    ];
    const { members, report } = planFleet({ applications, live, scopes, now: NOW });
    // The HPA scaled team-a's Deployment to 7: not patched back, reported as the fight it would be.
    expect(members[0]?.plan.actions.some((action) => action.type === 'patch')).toBe(false);
    expect(report.fights).toEqual([
      { instance: 0, fields: [expect.objectContaining({ path: 'spec.replicas', manager: 'kube-controller-manager' })] },
    ]);
    // Same actions as team-b and team-c, yet a group of its own: its example shows the fight.
    const [fighting, calm] = members.map((member) => changeSignature(member.plan));
    expect(fighting).not.toBe(calm);
    expect(report.groups.map((group) => group.instances)).toEqual([[1, 2], [0]]);
  });
});
