/**
 * End to end on a real API server (issue 13, item 6): `kreconcile plan --out` against the live
 * cluster, then `kreconcile apply plan.json` carries out exactly the saved actions — a fresh plan
 * is applied (and the cluster then needs nothing more), a stale one is refused before any write,
 * and a change racing the apply is stopped by the per-write guard. No operator runs.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { connectKubernetes, connectWritable } from '../../app/cli/live/kubernetes.js';
import { run } from '../../app/cli/main.js';
import type { SavedPlanV1 } from '../../app/cli/saved-plan/format.js';
import { getIn, type ClusterReader, type ClusterWriter, type Discovery } from '../../core/internal.js';
import { testIo } from '../cli/support/run-cli.js';
import { applicationObject, children, readExisting, shopManifest } from '../support/e2e-application.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';

const NOW = '2026-03-02T12:00:00Z';

type CliRun = { readonly code: number; readonly stdout: string; readonly stderr: string };

describeWithApiServer('end to end: saved plans applied to a real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let dir: string;
  let appFile: string;
  let planFile: string;
  let refs: ReturnType<typeof children>;

  const cli = async (
    argv: ReadonlyArray<string>,
    writable: (target: object) => Promise<ClusterReader & ClusterWriter & Discovery> = connectWritable,
  ): Promise<CliRun> => {
    const { io, out, err } = testIo({ connect: connectKubernetes, connectWritable: writable });
    const code = await run(argv, io);
    return { code, stdout: out.join(''), stderr: err.join('') };
  };
  const planOut = () =>
    cli(['plan', '-f', appFile, '--kubeconfig', env.kubeconfigPath, '--now', NOW, '--out', planFile]);
  const apply = (writable?: (target: object) => Promise<ClusterReader & ClusterWriter & Discovery>) =>
    cli(['apply', planFile, '--kubeconfig', env.kubeconfigPath], writable);
  const savedActions = async (): Promise<ReadonlyArray<string>> =>
    (JSON.parse(await readFile(planFile, 'utf8')) as SavedPlanV1).applications.flatMap((a) =>
      a.actions.map((action) => `${action.type} ${action.resource.kind}/${action.resource.name}`),
    );
  const data = async (): Promise<unknown> => getIn(await readExisting(cluster, refs.config), ['data', 'LOG_LEVEL']);
  const replicas = async (): Promise<unknown> =>
    getIn(await readExisting(cluster, refs.deployment), ['spec', 'replicas']);

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-e2e-saved'));
    refs = children(namespace);
    dir = await mkdtemp(join(tmpdir(), 'kr-e2e-saved-'));
    appFile = join(dir, 'app.json');
    planFile = join(dir, 'plan.json');
    // The Application is only a file: a pipeline without an operator never stores it.
    await writeFile(appFile, JSON.stringify(applicationObject(namespace, 'shop', shopManifest())));
  });
  afterAll(async () => {
    await cleanup?.();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  describe('in order', () => {
    it('applies a fresh plan exactly, after which a new plan has nothing to do', async () => {
      expect(await planOut()).toMatchObject({ code: 0, stderr: '' });
      expect(await savedActions()).toEqual([
        'create ConfigMap/web-config',
        'create ConfigMap/web-extra',
        'create Service/web',
        'create Deployment/web',
        'create Widget/web-widget',
      ]);
      const applied = await apply();
      expect(applied).toMatchObject({ code: 0, stderr: '' });
      expect(applied.stdout).toContain('Applied: 5 created, 0 patched, 0 deleted.');
      for (const ref of Object.values(refs))
        expect((await readExisting(cluster, ref)).metadata.annotations?.['kreconcile.io/owner']).toBe(
          `${namespace}/shop`,
        );
      const again = await cli(['plan', '-f', appFile, '--kubeconfig', env.kubeconfigPath, '--now', NOW, '--exit-code']);
      expect(again.code).toBe(0);
    });

    it('refuses a stale plan (an object changed after planning) and writes nothing', async () => {
      await must(cluster.patch(refs.config, { type: 'merge', body: { data: { LOG_LEVEL: 'debug' } } }));
      await must(cluster.patch(refs.deployment, { type: 'merge', body: { spec: { replicas: 5 } } }));
      expect((await planOut()).code).toBe(0);
      expect(await savedActions()).toEqual(['patch ConfigMap/web-config', 'patch Deployment/web']);
      // Another actor scales the Deployment after the plan was made.
      await must(cluster.patch(refs.deployment, { type: 'merge', body: { spec: { replicas: 6 } } }));
      const refused = await apply();
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(
        new RegExp(
          `^error: .*plan\\.json: the cluster moved since the plan was made, nothing was applied: apps/v1 Deployment ${namespace}/web changed \\(resourceVersion \\d+ → \\d+\\): plan again .*\\n$`,
        ),
      );
      expect({ logLevel: await data(), replicas: await replicas() }).toEqual({ logLevel: 'debug', replicas: 6 });
    });

    it('stops at a write raced after the check: the resourceVersion test fails on the server, the write is not made', async () => {
      expect((await planOut()).code).toBe(0);
      const racing = async (target: object): Promise<ClusterReader & ClusterWriter & Discovery> => {
        const real = await connectWritable(target);
        return {
          ...real,
          patch: (ref, patch, options) => async () => {
            await real.patch(ref, { type: 'merge', body: { metadata: { annotations: { raced: 'yes' } } } })();
            return real.patch(ref, patch, options)();
          },
        };
      };
      const raced = await apply(racing);
      expect(raced.code).toBe(1);
      expect(raced.stderr).toMatch(
        new RegExp(
          `v1 ConfigMap ${namespace}/web-config: changed while the plan was applied \\(.*\\); 0 of 2 actions were applied`,
        ),
      );
      expect(await data()).toBe('debug');
    });

    it('a new plan of the moved cluster applies, and converges', async () => {
      expect((await planOut()).code).toBe(0);
      expect(await apply()).toMatchObject({ code: 0, stderr: '' });
      expect({ logLevel: await data(), replicas: await replicas() }).toEqual({ logLevel: 'info', replicas: 2 });
      expect(
        (await cli(['plan', '-f', appFile, '--kubeconfig', env.kubeconfigPath, '--now', NOW, '--exit-code'])).code,
      ).toBe(0);
    });
  });
});
