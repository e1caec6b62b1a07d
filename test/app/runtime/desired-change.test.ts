/**
 * `planDesiredChange` / `planDesiredChangeLive` (app/runtime/desired-change.ts, issue 38): a fleet of
 * 40 `Site` primaries converged by the embedded operator running the old `desired()` on the memory
 * cluster, then checked against a new `desired()` that bumps the default image — 37 instances
 * follow the default, 3 pin their own image. The report must say 37 patch the Deployment's pod
 * template (rolling their pods) and 3 change nothing, from the live cluster and from a snapshot alike.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import {
  planDesiredChange,
  planDesiredChangeLive,
  startEmbeddedOperator,
  type Operator,
  type PrimaryReconciler,
} from '../../../app/runtime/index.js';
import * as E from 'fp-ts/lib/Either.js';
import { isDenied, type GuardPolicy } from '../../../core/internal.js';
import { isReady, SITE, SITE_CRD, siteReconciler } from '../../support/site-operator.js';

const NOW = '2026-03-02T12:00:00Z';

const PINNED = new Set(['site-07', 'site-21', 'site-33']);
const siteNames = Array.from({ length: 40 }, (_, i) => `site-${String(i).padStart(2, '0')}`);

const must = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

let operator: Operator | undefined;
afterEach(async () => {
  await operator?.stop(1_000);
  operator = undefined;
});

const ready = (cluster: MemoryCluster): number =>
  cluster.objects().filter((object) => object.kind === 'Site' && isReady(object)).length;

/** The fleet as the old operator left it: 40 Sites (3 pinned), every one Ready. */
const convergedFleet = async (withConfig = true): Promise<MemoryCluster> => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, workloads: true });
  await must(cluster.create(SITE_CRD));
  await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'web' } }));
  await cluster.settle();
  await clock.advance(1_000);
  for (const name of siteNames)
    await must(
      cluster.create({
        ...SITE,
        metadata: { name, namespace: 'web' },
        spec: { replicas: 2, ...(PINNED.has(name) ? { image: 'nginx:1.26' } : {}) },
      }),
    );
  operator = await startEmbeddedOperator({
    cluster,
    clock,
    random: () => 0.5,
    reconciler: siteReconciler('nginx:1.27', withConfig),
  });
  for (let ms = 0; ms < 120_000 && ready(cluster) < siteNames.length; ms += 100) {
    await flushMicrotasks();
    await clock.advance(100);
  }
  expect(ready(cluster)).toBe(siteNames.length);
  await operator.stop(1_000);
  operator = undefined;
  return cluster;
};

describe('planDesiredChange: a new desired() against the old one over a fleet', () => {
  it('a default image bump: 37 of 40 instances patch spec.template and roll 2 pods each, 3 pinned ones change nothing', async () => {
    const cluster = await convergedFleet();
    const reconcilers = { before: siteReconciler('nginx:1.27'), after: siteReconciler('nginx:1.28'), now: NOW };
    const live = await planDesiredChangeLive({ ...reconcilers, cluster });
    if (E.isLeft(live)) throw new Error(live.left.message);
    const change = live.right;

    expect(change.problems).toEqual([]);
    // The old desired() finds the fleet in sync: everything the new one plans is its change.
    expect(change.before.members).toHaveLength(40);
    expect(change.before.report.totals).toEqual([]);
    expect(change.after.report.totals).toEqual([
      { action: 'patch', kind: 'Deployment', fields: ['spec.template'], instances: 37, objects: 37 },
    ]);
    expect(change.after.report.summary).toMatchObject({ create: 0, patch: 37, delete: 0, conflict: 0 });
    expect(change.changed).toHaveLength(37);
    const names = (indexes: ReadonlyArray<number>) =>
      indexes.map((index) => change.after.members[index]?.application.metadata.name);
    expect(names(change.changed).some((name) => PINNED.has(name ?? ''))).toBe(false);
    const [bumped, unchanged, ...more] = change.after.report.groups;
    expect(more).toEqual([]);
    expect(bumped?.instances).toHaveLength(37);
    expect(bumped?.summary).toMatchObject({ patch: 1, create: 0, delete: 0 });
    expect(new Set(names(unchanged?.instances ?? []))).toEqual(PINNED);
    const example = change.after.members[bumped?.instances[0] ?? -1];
    expect(example?.plan.actions[0]?.changes).toEqual([
      { path: 'spec.template.spec.containers[0].image', from: 'nginx:1.27', to: 'nginx:1.28' },
    ]);
    expect(example?.impacts[0]).toEqual([
      expect.objectContaining({ type: 'rollout', pods: 2, message: expect.stringContaining('rolls 2 pods') }),
    ]);

    // The same fleet from a snapshot of the cluster's objects: the same report.
    const snapshot = planDesiredChange({ ...reconcilers, objects: cluster.objects() });
    expect(snapshot.after.report.totals).toEqual(change.after.report.totals);
    expect(snapshot.after.report.groups.map((g) => g.instances.length)).toEqual([37, 3]);
    expect(snapshot.changed).toHaveLength(37);

    // A guard over the new side: a rule on pod-template patches denies the 37, passes the 3 (no approvals here).
    const guard: GuardPolicy = {
      rules: [{ name: 'no-template-changes', deny: { actions: ['patch'], paths: ['spec.template'] } }],
    };
    const guarded = planDesiredChange({ ...reconcilers, objects: cluster.objects(), guard });
    expect(guarded.after.report.verdicts).toHaveLength(40);
    expect(guarded.after.report.verdicts.filter(isDenied)).toHaveLength(37);
    expect(guarded.before.report.verdicts).toEqual([]);
  }, 60_000);

  it('a child the new desired() drops is found by its owner mark: 40 ConfigMaps deleted; a desired() that throws is a problem', async () => {
    const cluster = await convergedFleet();
    const change = planDesiredChange({
      before: siteReconciler('nginx:1.27'),
      after: siteReconciler('nginx:1.27', false),
      objects: cluster.objects(),
      now: NOW,
    });
    expect(change.after.report.totals).toEqual([
      { action: 'delete', kind: 'ConfigMap', fields: [], instances: 40, objects: 40 },
    ]);
    const throwing: PrimaryReconciler = {
      ...SITE,
      desired: (site) => {
        if (site.metadata.name === 'site-05') throw new Error('no template for site-05');
        return { manifest: [] };
      },
    };
    const broken = planDesiredChange({
      before: siteReconciler('nginx:1.27'),
      after: throwing,
      objects: cluster.objects(),
      now: NOW,
    });
    expect(broken.problems).toEqual([
      {
        primary: 'web/site-05',
        side: 'after',
        issues: [{ path: 'spec', message: 'desired(Site) threw: no template for site-05' }],
      },
    ]);
    expect(broken.after.members).toHaveLength(39);
  }, 60_000);

  it('docs/runtime.md: its example runs against such a fleet and prints the output the page shows', async () => {
    const cluster = await convergedFleet(false);
    const section =
      readFileSync('docs/runtime.md', 'utf8').split('### Checking a new `desired()` against the fleet')[1] ?? '';
    const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const shown =
      /```\n([\s\S]*?)```/.exec(section.slice(section.indexOf(snippet) + snippet.length + '```'.length))?.[1] ?? '';
    expect(shown).toContain('37 of 40 changed');
    const dir = mkdtempSync(join(tmpdir(), 'kreconcile-runtime-doc-'));
    try {
      writeFileSync(
        join(dir, 'fleet.json'),
        JSON.stringify({ apiVersion: 'v1', kind: 'List', items: cluster.objects() }),
      );
      const script = snippet
        .replace("from 'kreconcile/runtime'", `from ${JSON.stringify(resolve('app/runtime/index.ts'))}`)
        .replace("from 'kreconcile'", `from ${JSON.stringify(resolve('core/index.ts'))}`)
        .replace("from 'io-ts'", `from ${JSON.stringify(resolve('node_modules/io-ts/lib/index.js'))}`)
        .replace("readFileSync('fleet.json'", `readFileSync(${JSON.stringify(join(dir, 'fleet.json'))}`);
      writeFileSync(join(dir, 'snippet.mts'), script);
      const result = spawnSync(process.execPath, ['--import', 'tsx', join(dir, 'snippet.mts')], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout).toBe(shown);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
