/**
 * On a real API server (issue 36 items 3 and 4): the inventory `kreconcile apply` keeps lets an
 * operator-less plan prune a kind removed from the manifest, and an operator taking the Application
 * over prunes it too; a plan within --policy shows an object in another namespace that exists but
 * is not ours as the conflict the operator then reports (NotOwned); and `plan --server-dry-run` on a
 * cluster without the plan's Namespace and CRD refuses nothing falsely and still finds the real problem.
 * The CLI runs in-process through `run(argv, io)`, connected to the real server.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { connectKubernetes, connectWritable } from '../../app/cli/live/kubernetes.js';
import { run } from '../../app/cli/main.js';
import { intentKindsOf } from '../../app/reconcile/intent-kinds.js';
import { inventoryOf } from '../../app/reconcile/inventory.js';
import { startOperator } from '../../app/runtime/operator.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type ObjectRef, type Resource } from '../../core/internal.js';
import { testIo } from '../cli/support/run-cli.js';
import { applicationRef, readObject, reconcileLog, waitForCondition } from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespaces, must, uniqueName } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

type CliRun = { readonly code: number; readonly stdout: string; readonly stderr: string };

const config = (name: string, namespace?: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  data: { mode: 'a' },
});
const denyAll: Resource = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'deny-all' },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
};
const application = (namespace: string, name: string, manifest: ReadonlyArray<Resource>): Resource => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  metadata: { name, namespace },
  spec: { manifest: [...manifest] },
});

describeWithApiServer('the inventory, cross-namespace conflicts and server dry runs on a real API server', (env) => {
  let cluster: KubernetesCluster;
  let team: string;
  let other: string;
  let cleanup: () => Promise<void>;
  let dir: string;

  const cli = async (argv: ReadonlyArray<string>): Promise<CliRun> => {
    const { io, out, err } = testIo({ connect: connectKubernetes, connectWritable, builtinSchemas: true });
    const code = await run(argv, io);
    return { code, stdout: out.join(''), stderr: err.join('') };
  };
  const file = async (name: string, value: unknown): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
    return path;
  };
  const planAndApply = async (app: string, label: string): Promise<{ planned: CliRun; applied: CliRun }> => {
    const out = join(dir, `${label}.plan.json`);
    const planned = await cli(['plan', '-f', app, '--kubeconfig', env.kubeconfigPath, '--out', out]);
    expect(planned.stderr).toBe('');
    const applied = await cli(['apply', out, '--kubeconfig', env.kubeconfigPath]);
    return { planned, applied };
  };

  beforeAll(async () => {
    cluster = connect(env);
    ({
      namespaces: [team = '', other = ''],
      cleanup,
    } = await freshNamespaces(cluster, ['kr-inventory', 'kr-inventory-other']));
    dir = await mkdtemp(join(tmpdir(), 'kr-inventory-'));
  });
  afterAll(async () => {
    await cleanup?.();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('operator-less: apply records what it wrote, and the next plan prunes the kind removed; then the operator takes over and prunes it too', async () => {
    const name = 'web';
    const full = await file('full.json', application(team, name, [config('web-config'), denyAll]));
    const without = await file('without.json', application(team, name, [config('web-config')]));
    const policyRef: ObjectRef = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      namespace: team,
      name: 'deny-all',
    };
    const inventory: ObjectRef = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: team,
      name: `kreconcile-inventory.${name}`,
    };

    const first = await planAndApply(full, 'full');
    expect(first.applied).toMatchObject({ code: 0, stderr: '' });
    expect(first.applied.stdout).toContain('Applied: 2 created, 0 patched, 0 deleted.');
    const recorded = inventoryOf(await readObject(cluster, inventory));
    expect(recorded.kinds.map((k) => k.kind).sort()).toEqual(['ConfigMap', 'NetworkPolicy']);
    expect(recorded.objects).toContainEqual(policyRef);

    const second = await planAndApply(without, 'without');
    expect(second.planned.stdout).toContain(
      `- networking.k8s.io/v1 NetworkPolicy ${team}/deny-all (removed from spec)`,
    );
    expect(second.applied).toMatchObject({ code: 0, stderr: '' });
    expect(second.applied.stdout).toContain('Applied: 0 created, 0 patched, 1 deleted.');
    expect(await readObject(cluster, policyRef)).toBeUndefined();
    expect(inventoryOf(await readObject(cluster, inventory)).kinds.map((k) => k.kind)).toEqual(['ConfigMap']);

    // Back to the full manifest with the CLI, then the Application without the NetworkPolicy goes to the operator.
    expect((await planAndApply(full, 'full-again')).applied).toMatchObject({ code: 0, stderr: '' });
    expect(await readObject(cluster, policyRef)).toBeDefined();
    await must(cluster.create(application(team, name, [config('web-config')])));
    const log = reconcileLog();
    const operator = await startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace: team,
      readiness: 'existence',
      onReconciled: log.onReconciled,
    });
    try {
      await eventually(async () => expect(await readObject(cluster, policyRef)).toBeUndefined(), 30_000);
      const handedOver = await waitForCondition(cluster, applicationRef(team, name), 'Ready', { status: 'True' });
      // The operator recorded the kind it took over in its own record (written before the delete).
      expect(intentKindsOf(handedOver).map((k) => k.kind)).toContain('NetworkPolicy');
      expect(
        await readObject(cluster, { ...policyRef, kind: 'ConfigMap', apiVersion: 'v1', name: 'web-config' }),
      ).toBeDefined();
    } finally {
      expect(await operator.stop(10_000)).toBe(true);
    }
  });

  it('a plan within --policy shows an object in another namespace that is not ours as a conflict, and the operator says NotOwned', async () => {
    const name = 'cross';
    await must(cluster.create(config('shared', other)));
    const app = await file('cross.json', application(team, name, [config('shared', other), config('cross-own')]));
    const policy = await file('policy.yaml', `destinations: [{from: ${team}, to: [${other}]}]\n`);
    const tenancy = { destinations: [{ from: team, to: [other] }] };

    const planned = await cli(['plan', '-f', app, '--kubeconfig', env.kubeconfigPath, '--policy', policy]);
    expect(planned.stdout).toContain(
      `! v1 ConfigMap ${other}/shared: exists but is not managed by this Application; set spec.adopt: true to take it over`,
    );
    expect(planned.stdout).toContain('Plan: 1 to create, 0 to patch, 0 to delete, 1 conflict');
    const recorded = await cli([
      'snapshot',
      '-f',
      app,
      '--kubeconfig',
      env.kubeconfigPath,
      '--policy',
      policy,
      '-o',
      'json',
    ]);
    expect(recorded).toMatchObject({ code: 0, stderr: '' });
    expect(
      (JSON.parse(recorded.stdout) as { items: Resource[] }).items.map(
        (o) => `${o.metadata.namespace}/${o.metadata.name}`,
      ),
    ).toContain(`${other}/shared`);

    await must(cluster.create(application(team, name, [config('shared', other), config('cross-own')])));
    const operator = await startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace: team,
      readiness: 'existence',
      tenancy,
    });
    try {
      await waitForCondition(cluster, applicationRef(team, name), 'Stalled', { status: 'True', reason: 'NotOwned' });
    } finally {
      expect(await operator.stop(10_000)).toBe(true);
    }
  });

  it('--server-dry-run with a Namespace and a CRD in the plan: no false refusal, the real problem found', async () => {
    const fresh = uniqueName('kr-dry-new');
    const group = `${uniqueName('dry')}.kreconcile.test`;
    const crd: Resource = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 10 } } } },
              },
            },
          },
        ],
      },
    };
    const gadget = (name: string, size: number, namespace: string): Resource => ({
      apiVersion: `${group}/v1`,
      kind: 'Gadget',
      metadata: { name, namespace },
      spec: { size },
    });
    const manifest = (extra: ReadonlyArray<Resource>) =>
      application(team, 'stack', [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: fresh } },
        crd,
        config('conf', fresh),
        gadget('small', 3, fresh),
        config('here'),
        ...extra,
      ]);
    const policy = await file(
      'dry-policy.yaml',
      `destinations: [{from: ${team}, to: ["*"]}]\nclusterKinds: [{from: ${team}, kinds: [Namespace, apiextensions.k8s.io/CustomResourceDefinition]}]\n`,
    );
    const dryRun = (app: string) =>
      cli(['plan', '-f', app, '--kubeconfig', env.kubeconfigPath, '--policy', policy, '--server-dry-run']);

    const fine = await dryRun(await file('dry-fine.json', manifest([])));
    expect(fine.stderr).toBe('');
    expect(fine.code).toBe(0);
    const lines = fine.stdout
      .slice(fine.stdout.indexOf('Server dry run'))
      .split('\n')
      .filter((l) => /^ {2}\S/.test(l));
    expect(lines).toEqual([
      `  ✓ create v1 Namespace ${fresh}: stored as planned`,
      `  ✓ create apiextensions.k8s.io/v1 CustomResourceDefinition gadgets.${group}: stored as planned`,
      `  · create v1 ConfigMap ${fresh}/conf: not sent (its Namespace ${fresh} is created by this plan; a dry run stores nothing, so the server cannot see it yet): checked offline against its schema instead: valid`,
      `  ✓ create v1 ConfigMap ${team}/here: stored as planned`,
      `  · create ${group}/v1 Gadget ${fresh}/small: not sent (its CustomResourceDefinition gadgets.${group} is created by this plan; a dry run stores nothing, so the server cannot see it yet): checked offline against its schema instead: valid`,
    ]);
    // A dry run stores nothing.
    expect(await readObject(cluster, { apiVersion: 'v1', kind: 'Namespace', name: fresh })).toBeUndefined();

    const bad = await dryRun(await file('dry-bad.json', manifest([gadget('big', 30, team)])));
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(
      `  ✗ create ${group}/v1 Gadget ${team}/big: not sent (its CustomResourceDefinition gadgets.${group} is created by this plan; a dry run stores nothing, so the server cannot see it yet): checked offline against its schema instead: 1 problem(s)\n      ✗ spec.size: Invalid value: 30: spec.size in body should be less than or equal to 10`,
    );
  });
});
