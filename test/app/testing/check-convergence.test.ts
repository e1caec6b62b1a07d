/**
 * The test kit on real controllers: kreconcile's own reconciler converges under faults (and
 * the core's convergence property holds against the in-memory API server with defaulting on),
 * while a naive controller that diffs whole objects is caught looping.
 */
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applicationArbitrary,
  arbitraryScopes,
  checkConvergence,
  faultProfiles,
  reconcileAllApplications,
} from '../../../app/testing/index.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  jsonEqual,
  type Cluster,
  type JsonValue,
  type Resource,
} from '../../../core/internal.js';
import {
  APP_NAMES,
  applicationOf,
  childrenArbitrary,
  observedFieldOf,
  problems,
  type AppSpec,
} from '../model/world.js';
import { setIn } from '../model/helpers.js';
import { OPEN_TENANCY } from '../../core/fixtures.js';

const specArbitrary: fc.Arbitrary<AppSpec> = fc
  .constantFrom(...APP_NAMES)
  .chain((name) => childrenArbitrary(name).map((children) => ({ namespace: 'default', name, children })));

describe('checkConvergence', () => {
  it("passes for kreconcile's reconciler under flaky faults while another actor edits observed fields", async () => {
    await checkConvergence({
      world: specArbitrary,
      setup: async ({ cluster, world }) => {
        await cluster.create(applicationOf(world))();
      },
      reconcile: async (cluster, clock) => {
        await reconcileAllApplications(cluster, clock);
      },
      perturb: async ({ cluster, world }, step) => {
        const child = world.children[step % world.children.length];
        if (child === undefined) return;
        const live = await cluster.get({
          apiVersion: child.kind === 'Deployment' ? 'apps/v1' : 'v1',
          kind: child.kind,
          namespace: 'default',
          name: child.name,
        })();
        if (E.isRight(live) && live.right._tag === 'Some')
          await cluster.update(
            setIn(live.right.value, observedFieldOf(child).path, observedFieldOf(child).value) as Resource,
          )();
      },
      converged: async ({ cluster, world }) => {
        const found = problems(cluster, new Map([[`default/${world.name}`, world]]), new Map());
        return found.length === 0 ? true : found.join('; ');
      },
      faults: faultProfiles.flaky,
      numRuns: 40,
    });
  }, 120_000);

  it('catches a naive controller that re-applies whole objects (server defaulting makes it loop)', async () => {
    const naive = async (cluster: Cluster): Promise<void> => {
      const apps = await cluster.list({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND })();
      if (E.isLeft(apps)) return;
      for (const app of apps.right.items) {
        for (const wanted of (app.spec as { manifest: ReadonlyArray<Resource> }).manifest) {
          const ref = {
            apiVersion: wanted.apiVersion,
            kind: wanted.kind,
            namespace: 'default',
            name: wanted.metadata.name,
          };
          const live = await cluster.get(ref)();
          if (E.isLeft(live)) continue;
          if (live.right._tag === 'None') {
            await cluster.create({ ...wanted, metadata: { ...wanted.metadata, namespace: 'default' } })();
            continue;
          }
          const current = live.right.value;
          // the classic mistake: compare the whole spec with what the server returns
          if (!jsonEqual(current.spec, wanted.spec))
            await cluster.update({ ...current, spec: wanted.spec } as Resource)();
        }
      }
    };
    const failure = await checkConvergence({
      world: fc.constant<AppSpec>({
        namespace: 'default',
        name: 'shop',
        children: [{ kind: 'Deployment', name: 'shop-web', replicas: 2, image: 'nginx:1.27' }],
      }),
      setup: async ({ cluster, world }) => {
        await cluster.create(applicationOf(world))();
      },
      reconcile: (cluster) => naive(cluster),
      converged: async () => true,
      numRuns: 1,
    }).then(
      () => undefined,
      (error: unknown) => error as Error & { cause?: Error },
    );
    expect(failure?.cause?.message ?? failure?.message).toMatch(/still writing/);
    // The report names what keeps being written: the verb and the object.
    expect(failure?.cause?.message).toMatch(/its last pass wrote: update apps\/v1 Deployment default\/shop-web/);
  });

  it('core convergence against the in-memory API server (defaulting on): a quiet cluster plans nothing', async () => {
    await checkConvergence({
      world: applicationArbitrary({ namespace: 'default' }),
      setup: async ({ cluster, world }) => {
        cluster.registerKind({
          group: 'music.example',
          version: 'v1',
          kind: 'Song',
          plural: 'songs',
          scope: 'Namespaced',
        });
        cluster.registerKind({
          group: 'music.example',
          version: 'v1',
          kind: 'Label',
          plural: 'labels',
          scope: 'Cluster',
        });
        await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } })();
        await cluster.create(world)();
      },
      reconcile: async (cluster, clock) => {
        await reconcileAllApplications(cluster, clock, arbitraryScopes, { tenancy: OPEN_TENANCY });
      },
      converged: async ({ cluster, clock }) => {
        const [application] = cluster.objects().filter((o) => o.kind === APPLICATION_KIND);
        const stalled = (
          application?.status as
            { conditions?: ReadonlyArray<{ type: string; status: string; reason: string }> } | undefined
        )?.conditions?.find((c) => c.type === 'Stalled');
        // A resource the API server refuses (e.g. an invalid label key) stalls the Application: quiet, not looping.
        if (stalled?.status === 'True' && stalled.reason === 'InvalidSpec') return true;
        const [result] = await reconcileAllApplications(cluster, clock, arbitraryScopes, { tenancy: OPEN_TENANCY });
        if (result === undefined) return 'the Application is gone';
        if (result._tag !== 'Done')
          return `last reconcile failed: ${JSON.stringify(result._tag === 'Failed' ? result.error : result)}`;
        const { create, patch } = result.plan.summary;
        return create + patch + result.plan.summary.delete === 0
          ? true
          : `still planning ${JSON.stringify(result.plan.actions)}`;
      },
      numRuns: 200,
    });
  }, 300_000);

  describe('reports what a failure needs to be understood', () => {
    const configMap = (name: string): Resource => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default' },
    });

    it("the controller's last error, with its stack, and the faults injected, by kind and count", async () => {
      const failure = (await checkConvergence({
        world: fc.constant('settings'),
        setup: async () => undefined,
        reconcile: async (cluster) => {
          await cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' })();
          throw new TypeError('cannot read the desired state');
        },
        converged: async ({ cluster, world }) =>
          cluster.objects().some((o) => o.metadata.name === world) ? true : `no ConfigMap ${world}`,
        faults: { errors: [{ tag: 'TooManyRequests', rate: 1, verbs: ['list'], retryAfterMs: 1000 }] },
        numRuns: 1,
      }).catch((error: unknown) => error)) as Error & { cause?: Error };
      const message = failure.cause?.message ?? '';
      expect(message).toMatch(/^not converged: no ConfigMap settings/);
      expect(message).toMatch(/faults injected: TooManyRequests on list ×5/);
      expect(message).toMatch(
        /the controller's last error \(pass \d+ of \d+\): TypeError: cannot read the desired state\n\s+at /,
      );
      expect(failure.message).toContain(message.split('\n')[0]);
    });

    it('what each value of the counterexample is', async () => {
      const failure = (await checkConvergence({
        world: fc.constant('settings'),
        setup: async () => undefined,
        reconcile: async (cluster) => {
          await cluster.create(configMap('other'))();
        },
        converged: async ({ world }) => `no ConfigMap ${world}`,
        numRuns: 1,
      }).catch((error: unknown) => error)) as Error;
      expect(failure.message).toMatch(/counterexample: world = "settings" \(your world arbitrary's value\)/);
      expect(failure.message).toMatch(/cluster seed = \d+ \(seeds the in-memory cluster: which calls get faults/);
      expect(failure.message).toMatch(/faults injected: none/);
      expect(failure.message).toMatch(/the controller threw no error/);
    });
  });
});
