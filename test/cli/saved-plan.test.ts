/**
 * Saved plans in-process against the in-memory API server: `plan --out` → `show` → `apply`
 * carries out exactly the saved actions (and the cluster then needs none), a stale plan is
 * refused before any write, a race after the check is stopped by the per-write guards, and
 * Secret values are never saved without consent.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryCluster, type MemoryCluster } from '../../adapters/memory/index.js';
import type { PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import type { SavedPlanV1 } from '../../app/cli/saved-plan/format.js';
import {
  getIn,
  type ClusterReader,
  type ClusterWriter,
  type Discovery,
  type ObjectRef,
  type Resource,
} from '../../core/internal.js';
import { expectGolden } from './support/golden.js';
import { runCli, type RunOptions } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const APP = 'examples/webapp/app.yaml';
const configRef: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'web-config' };
const deploymentRef: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };

const must = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

const read = async (cluster: MemoryCluster, ref: ObjectRef): Promise<Resource | undefined> =>
  O.toUndefined(await must(cluster.get(ref)));

describe('saved plans: plan --out, show, apply', () => {
  let dir: string;
  let cluster: MemoryCluster;
  let planFile: string;
  const live = (writer: ClusterReader & ClusterWriter & Discovery = cluster): RunOptions => ({
    connect: async () => writer,
    connectWritable: async () => writer,
  });
  const planOut = (extra: ReadonlyArray<string> = [], app = APP) =>
    runCli(['plan', '-f', app, '--kubeconfig', 'kc', '--now', NOW, '--out', planFile, ...extra], live());
  const apply = (writer?: ClusterReader & ClusterWriter & Discovery) =>
    runCli(['apply', planFile, '--kubeconfig', 'kc'], live(writer));
  const planExitCode = () => runCli(['plan', '-f', APP, '--kubeconfig', 'kc', '--now', NOW, '--exit-code'], live());

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kr-saved-plan-'));
    planFile = join(dir, 'plan.json');
    cluster = createMemoryCluster();
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('saves the plan, shows it like plan does, and apply carries it out so that nothing is left to do', async () => {
    const planned = await planOut();
    expect(planned).toMatchObject({ code: 0, stderr: '' });
    expect(planned.stdout).toContain(`Saved the plan to ${planFile}`);
    const saved = JSON.parse(readFileSync(planFile, 'utf8')) as SavedPlanV1;
    expect(saved).toMatchObject({
      apiVersion: 'kreconcile.io/saved-plan/v1',
      kind: 'SavedPlan',
      metadata: { createdAt: NOW, kreconcileVersion: '0.0.0-test', secretValues: false },
    });
    expect(saved.metadata.scopes).toEqual({
      '/ConfigMap': 'Namespaced',
      '/Service': 'Namespaced',
      'apps/Deployment': 'Namespaced',
      'networking.k8s.io/Ingress': 'Namespaced',
    });
    // Finalizer bookkeeping is the operator's: only the four creations are saved, each expecting no object.
    expect(
      saved.applications[0]?.actions.map((a) => [a.type, a.resource.kind, 'guard' in a ? a.guard : undefined]),
    ).toEqual([
      ['create', 'ConfigMap', { absent: true }],
      ['create', 'Service', { absent: true }],
      ['create', 'Deployment', { absent: true }],
      ['create', 'Ingress', { absent: true }],
    ]);

    const shown = await runCli(['show', planFile]);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expectGolden('test/cli/golden/saved-plan/show-create.txt', shown.stdout.replace(planFile, 'plan.json'));
    const shownJson = JSON.parse((await runCli(['show', planFile, '-o', 'json'])).stdout) as PlanDocumentV1;
    const planJson = JSON.parse(
      (await runCli(['plan', '-f', APP, '--kubeconfig', 'kc', '--now', NOW, '-o', 'json'], live())).stdout,
    ) as PlanDocumentV1;
    // A saved plan keeps each action's rollout impact as the plan computed it (docs/plan-output.md).
    expect(shownJson.applications[0]?.actions).toEqual(
      planJson.applications[0]?.actions.filter((a) => a.type !== 'addFinalizer'),
    );
    expect(shownJson.applications[0]?.actions.find((a) => a.resource.kind === 'Deployment')?.impact).toEqual([
      expect.objectContaining({ type: 'start', pods: 3 }),
    ]);
    expect(shownJson.summary).toEqual(planJson.summary);

    const applied = await apply();
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toContain('Applied: 4 created, 0 patched, 0 deleted.');
    expect((await read(cluster, configRef))?.data).toEqual({
      NGINX_WORKER_PROCESSES: '2',
      SHOP_API_URL: 'http://api.shop.svc.cluster.local:8080',
    });
    // Converged: a new plan against the cluster has nothing to do.
    expect(await planExitCode()).toMatchObject({ code: 0 });
  });

  it('applies a drift correction guarded by the resourceVersion it was planned against', async () => {
    await planOut();
    await apply();
    const config = await read(cluster, configRef);
    await must(cluster.patch(configRef, { type: 'merge', body: { data: { NGINX_WORKER_PROCESSES: '9' } } }));
    expect((await planOut()).code).toBe(0);
    const saved = JSON.parse(readFileSync(planFile, 'utf8')) as SavedPlanV1;
    const [patch] = saved.applications[0]?.actions ?? [];
    expect(patch?.type).toBe('patch');
    expect(patch !== undefined && 'guard' in patch ? patch.guard : undefined).toEqual({
      resourceVersion: (await read(cluster, configRef))?.metadata.resourceVersion,
      uid: config?.metadata.uid,
    });
    expect(await apply()).toMatchObject({ code: 0, stderr: '' });
    expect(getIn(await read(cluster, configRef), ['data', 'NGINX_WORKER_PROCESSES'])).toBe('2');
    expect(await planExitCode()).toMatchObject({ code: 0 });
  });

  it('refuses a stale plan before writing anything, naming what moved', async () => {
    await planOut();
    await apply();
    await must(cluster.patch(configRef, { type: 'merge', body: { data: { NGINX_WORKER_PROCESSES: '9' } } }));
    await must(cluster.patch(deploymentRef, { type: 'merge', body: { spec: { replicas: 7 } } }));
    expect((await planOut()).code).toBe(0);
    // Another actor changes the Deployment again after the plan was made.
    await must(cluster.patch(deploymentRef, { type: 'merge', body: { spec: { replicas: 8 } } }));
    const before = await read(cluster, configRef);
    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    const lines = refused.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error: .*plan\.json: the cluster moved since the plan was made, nothing was applied: apps\/v1 Deployment shop\/web changed \(resourceVersion \d+ → \d+\): plan again/,
    );
    // Nothing written: the ConfigMap, which still matched its guard, was not patched.
    expect(await read(cluster, configRef)).toEqual(before);
  });

  it('refuses a plan whose creations now exist', async () => {
    await planOut();
    await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'web-config', namespace: 'shop' },
        data: { other: 'actor' },
      }),
    );
    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /v1 ConfigMap shop\/web-config exists now \(resourceVersion \d+\), the plan would create it/,
    );
    expect(await read(cluster, { ...configRef, kind: 'Service', name: 'web' })).toBeUndefined();
  });

  it('stops at a write whose object changed after the check (per-write guard), naming it', async () => {
    await planOut();
    await apply();
    await must(cluster.patch(configRef, { type: 'merge', body: { data: { NGINX_WORKER_PROCESSES: '9' } } }));
    await planOut();
    // A writer that lets another actor change the object between the check and the write.
    const racing: ClusterReader & ClusterWriter & Discovery = {
      ...cluster,
      patch: (ref, patch, options) => async () => {
        await cluster.patch(ref, { type: 'merge', body: { metadata: { annotations: { raced: 'yes' } } } })();
        return cluster.patch(ref, patch, options)();
      },
    };
    const raced = await apply(racing);
    expect(raced.code).toBe(1);
    expect(raced.stderr).toMatch(
      /^error: Application shop\/web: v1 ConfigMap shop\/web-config: changed while the plan was applied \(.*\); 0 of 1 actions were applied: plan again/,
    );
    expect(getIn(await read(cluster, configRef), ['data', 'NGINX_WORKER_PROCESSES'])).toBe('9');
  });

  it('guards deletions with a resourceVersion precondition (plan from a snapshot)', async () => {
    await planOut();
    await apply();
    const trimmed = join(dir, 'app-without-ingress.yaml');
    const text = readFileSync(APP, 'utf8');
    writeFileSync(trimmed, text.slice(0, text.indexOf('    - apiVersion: networking.k8s.io/v1')));
    const ingressRef: ObjectRef = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      namespace: 'shop',
      name: 'web',
    };
    // A recording holding the Ingress, which the Application no longer wants (kubectl get -o json).
    const snapshot = join(dir, 'live.json');
    const recordAndPlan = async (): Promise<void> => {
      writeFileSync(
        snapshot,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: await Promise.all(
            [configRef, deploymentRef, { ...deploymentRef, apiVersion: 'v1', kind: 'Service' }, ingressRef].map((ref) =>
              read(cluster, ref),
            ),
          ),
        }),
      );
      expect(
        (await runCli(['plan', '-f', trimmed, '--snapshot', snapshot, '--now', NOW, '--out', planFile])).code,
      ).toBe(0);
    };
    await recordAndPlan();
    const saved = JSON.parse(readFileSync(planFile, 'utf8')) as SavedPlanV1;
    expect(saved.applications[0]?.actions.map((a) => `${a.type} ${a.resource.kind}`)).toEqual(['delete Ingress']);
    const racing: ClusterReader & ClusterWriter & Discovery = {
      ...cluster,
      delete: (ref, options) => async () => {
        await cluster.patch(ref, { type: 'merge', body: { metadata: { annotations: { raced: 'yes' } } } })();
        return cluster.delete(ref, options)();
      },
    };
    const raced = await apply(racing);
    expect(raced.stderr).toMatch(
      /Ingress shop\/web: changed while the plan was applied \(Conflict \(409\).*the ResourceVersion in the precondition/,
    );
    expect(await read(cluster, ingressRef)).toBeDefined();
    expect((await apply()).stderr).toMatch(/networking.k8s.io\/v1 Ingress shop\/web changed \(resourceVersion/);
    await recordAndPlan();
    expect(await apply()).toMatchObject({ code: 0, stderr: '' });
    expect(await read(cluster, ingressRef)).toBeUndefined();
  });

  it('carries out a saved recreation: the object is replaced, guarded by the resourceVersion it had', async () => {
    const app = join(dir, 'recreate.json');
    const write = (app_: string) =>
      writeFileSync(
        app,
        JSON.stringify({
          apiVersion: 'kreconcile.io/v1alpha1',
          kind: 'Application',
          metadata: { name: 'web', namespace: 'shop' },
          spec: {
            manifest: [
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                metadata: { name: 'web', annotations: { 'kreconcile.io/recreate': 'true' } },
                spec: {
                  selector: { matchLabels: { app: app_ } },
                  template: {
                    metadata: { labels: { app: app_ } },
                    spec: { containers: [{ name: 'c', image: 'nginx' }] },
                  },
                },
              },
            ],
          },
        }),
      );
    write('v1');
    await planOut([], app);
    await apply();
    const before = await read(cluster, deploymentRef);
    write('v2');
    expect((await planOut([], app)).stdout).toContain(
      '-/+ apps/v1 Deployment shop/web (recreate: spec.selector cannot change in place)',
    );
    const saved = JSON.parse(readFileSync(planFile, 'utf8')) as SavedPlanV1;
    expect(saved.applications[0]?.actions.map((a) => ['guard' in a ? a.guard : undefined, a.type])).toEqual([
      [{ resourceVersion: before?.metadata.resourceVersion, uid: before?.metadata.uid }, 'recreate'],
    ]);
    const applied = await apply();
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toContain('Applied: 0 created, 0 patched, 0 deleted, 1 recreated.');
    const after = await read(cluster, deploymentRef);
    expect(after?.metadata.uid).not.toBe(before?.metadata.uid);
    expect(getIn(after, ['spec', 'selector'])).toEqual({ matchLabels: { app: 'v2' } });
  });

  it('never saves Secret values unless --allow-secret-values', async () => {
    const app = join(dir, 'secret-app.yaml');
    writeFileSync(
      app,
      JSON.stringify({
        apiVersion: 'kreconcile.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'vault', namespace: 'shop' },
        spec: {
          manifest: [
            { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { password: 's3cr3t-value' } },
          ],
        },
      }),
    );
    const refused = await planOut([], app);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^error: .*secret-app\.yaml: document 1 \(Application shop\/vault\): cannot save the plan: v1 Secret shop\/db: the plan writes Secret values.*--allow-secret-values/,
    );
    expect(refused.stderr).not.toContain('s3cr3t-value');
    expect(() => readFileSync(planFile)).toThrow();
    expect((await planOut(['--allow-secret-values'], app)).code).toBe(0);
    expect((JSON.parse(readFileSync(planFile, 'utf8')) as SavedPlanV1).metadata.secretValues).toBe(true);
    expect((await runCli(['show', planFile])).stdout).toContain('it holds Secret values');
    expect(await apply()).toMatchObject({ code: 0 });
    expect((await read(cluster, { apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 'db' }))?.data).toEqual({
      password: Buffer.from('s3cr3t-value').toString('base64'),
    });
  });

  it('rejects files that are not saved plans, and plans from another version, with one line each', async () => {
    const notPlan = await runCli(['show', APP]);
    expect(notPlan.code).toBe(1);
    expect(notPlan.stderr).toMatch(
      /^error: examples\/webapp\/app\.yaml:\d+:\d+: document 1: not a saved plan \(apiVersion "kreconcile.io\/v1alpha1", expected kreconcile.io\/saved-plan\/v1\): give a file written by kreconcile plan --out\n$/,
    );
    await planOut();
    const saved = JSON.parse(readFileSync(planFile, 'utf8')) as SavedPlanV1;
    const damaged = {
      ...saved,
      applications: [{ ...saved.applications[0], actions: [{ type: 'create', resource: { kind: 'ConfigMap' } }] }],
    };
    const broken = await runCli(['apply', 'broken.json'], { files: { 'broken.json': JSON.stringify(damaged) } });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('the saved plan is damaged');
    const other = await runCli(['apply', 'old.json'], {
      files: { 'old.json': JSON.stringify({ ...saved, metadata: { ...saved.metadata, kreconcileVersion: '0.0.1' } }) },
    });
    expect(other.stderr).toBe(
      'error: old.json: made by kreconcile 0.0.1, this is 0.0.0-test: a plan is applied by the version that made it; plan again (kreconcile plan … --out old.json) and apply the new plan\n',
    );
  });

  it('refuses a saved plan edited to print terminal control sequences, naming the field', async () => {
    await planOut();
    const saved = JSON.parse(readFileSync(planFile, 'utf8')) as SavedPlanV1;
    const app = saved.applications[0];
    if (app === undefined) throw new Error('the saved plan has no Application');
    // ESC [2J clears the reviewer's screen; ESC ]8 could hide a link in show's output.
    const edited = { ...saved, applications: [{ ...app, message: 'all fine\u001b[2J\u001b]8;;http://x\u0007' }] };
    const shown = await runCli(['show', 'edited.json'], { files: { 'edited.json': JSON.stringify(edited) } });
    expect(shown.code).toBe(1);
    expect(shown.stdout).toBe('');
    expect(shown.stderr).toContain('the saved plan is damaged');
    expect(shown.stderr).not.toContain('\u001b');
  });

  it('a saved template bump and config change carry their impact: saved, shown in every format, printed by apply', async () => {
    await planOut();
    await apply();
    const bumped = join(dir, 'bumped.yaml');
    writeFileSync(
      bumped,
      readFileSync(APP, 'utf8')
        .replace('nginx-unprivileged:1.27-alpine', 'nginx-unprivileged:1.28-alpine')
        .replace('NGINX_WORKER_PROCESSES: "2"', 'NGINX_WORKER_PROCESSES: "4"'),
    );
    expect((await planOut([], bumped)).code).toBe(0);
    const saved = JSON.parse(readFileSync(planFile, 'utf8')) as SavedPlanV1;
    const impactOf = (kind: string) =>
      saved.applications[0]?.actions.find((a) => a.resource.kind === kind)?.impact?.map((i) => i.type);
    expect(impactOf('Deployment')).toEqual(['rollout']);
    expect(impactOf('ConfigMap')).toEqual(['configRollout']);

    const shown = await runCli(['show', planFile]);
    expect(shown.stdout).toMatch(
      /~ apps\/v1 Deployment shop\/web\n.*\n\s+⇒ rolls 3 pods of apps\/v1 Deployment shop\/web/,
    );
    const planJson = JSON.parse(
      (await runCli(['plan', '-f', bumped, '--kubeconfig', 'kc', '--now', NOW, '-o', 'json'], live())).stdout,
    ) as PlanDocumentV1;
    const shownJson = JSON.parse((await runCli(['show', planFile, '-o', 'json'])).stdout) as PlanDocumentV1;
    // The same actions and impact as plan prints (finalizer bookkeeping is the operator's, never saved).
    expect(shownJson.applications[0]?.actions).toEqual(
      planJson.applications[0]?.actions.filter((a) => a.type !== 'addFinalizer'),
    );
    expect((await runCli(['show', planFile, '-o', 'markdown'])).stdout).toContain('  - ⇒ rolls 3 pods of');

    const applied = await apply();
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toContain('      ⇒ rolls 3 pods of apps/v1 Deployment shop/web');
  });

  it('a saved plan keeps who owns the fields it patches, and the fields left to their controllers', async () => {
    const recorded = readFileSync('examples/webapp/snapshots/drifted-observed.yaml', 'utf8');
    const scale = '      manager: kubectl\n      operation: Update\n      subresource: scale\n';
    const byHpa = recorded.replace(scale, scale.replace('kubectl', 'kube-controller-manager'));
    const planAgainst = async (snapshot: string) => {
      writeFileSync(join(dir, 'live.yaml'), snapshot);
      const args = ['plan', '-f', APP, '--snapshot', join(dir, 'live.yaml'), '--now', NOW, '--out', planFile];
      expect((await runCli(args)).code).toBe(0);
      return JSON.parse(readFileSync(planFile, 'utf8')) as SavedPlanV1;
    };
    const byPerson = await planAgainst(recorded);
    expect(byPerson.applications[0]?.fieldOwners?.find((o) => o.path === 'spec.replicas')?.owners).toMatchObject([
      { manager: 'kubectl', subresource: 'scale' },
    ]);
    const shown = (await runCli(['show', planFile])).stdout;
    expect(shown).toContain('  Patched fields other managers own now:');
    expect(shown).toContain('    apps/v1 Deployment shop/web spec.replicas: kubectl (Update via /scale');

    const byController = await planAgainst(byHpa);
    expect(byController.applications[0]?.contestedFields).toMatchObject([
      { path: 'spec.replicas', manager: 'kube-controller-manager' },
    ]);
    const fight = await runCli(['show', planFile]);
    expect(fight.stdout).toContain('  Left to their controllers (not patched back, see status.contestedFields):');
    expect(fight.stdout).toContain('to end it: stop observing spec.replicas of Deployment web');
    const fightJson = JSON.parse((await runCli(['show', planFile, '-o', 'json'])).stdout) as PlanDocumentV1;
    expect(fightJson.applications[0]?.status.contestedFields).toMatchObject([{ path: 'spec.replicas' }]);
  });

  it('a plan saved before impact and field owners were kept still shows and applies', async () => {
    const old = readFileSync('test/fixtures/saved-plan/v1-before-impact.json', 'utf8');
    expect(old).not.toContain('"impact"');
    const shown = await runCli(['show', 'old.json'], { files: { 'old.json': old } });
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toContain('+ apps/v1 Deployment shop/web');
    expect(shown.stdout).not.toContain('⇒');
    const shownJson = JSON.parse(
      (await runCli(['show', 'old.json', '-o', 'json'], { files: { 'old.json': old } })).stdout,
    ) as PlanDocumentV1;
    expect(shownJson.summary).toMatchObject({ create: 4, changes: true });
    // Applied by this version (a plan is applied by the version that made it: the fixture's is set to it).
    writeFileSync(planFile, old.replace(/"kreconcileVersion": "[^"]*"/, '"kreconcileVersion": "0.0.0-test"'));
    const applied = await apply();
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toContain('Applied: 4 created, 0 patched, 0 deleted.');
    expect(await planExitCode()).toMatchObject({ code: 0 });
  });
});
