/**
 * Issue 38 item 3 on a real API server: an Application observes `spec.replicas` of its Deployment
 * (the manifest says 1); a HorizontalPodAutoscaler (minReplicas 3, kube-controller-manager's HPA
 * controller) scales it through /scale. The operator leaves the field to the HPA from the first
 * reconcile that sees its claim, reports it in `status.contestedFields`, and writes the Deployment no
 * more; `kreconcile plan --kubeconfig` forecasts the same, with the cure (docs/field-owners.md).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { connectKubernetes } from '../../app/cli/live/kubernetes.js';
import { run } from '../../app/cli/main.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { getIn, type Resource } from '../../core/internal.js';
import { testIo } from '../cli/support/run-cli.js';
import { applicationRef, readApplication, readObject } from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';
import { startPrivateControlPlane, type PrivatePlane } from '../support/private-control-plane.js';

const SCALE_MS = 90_000;

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10' }] },
    },
  },
};

// The shared control plane runs no HPA controller (it would scale what other suites' HPAs target):
// this file starts one of its own.
describeWithApiServer('end to end: an HPA owns the replicas an Application observes (issue 38, field owners)', () => {
  let plane: PrivatePlane | undefined;
  let env: PrivatePlane['env'];
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator | undefined;
  let dir: string;

  beforeAll(async () => {
    plane = await startPrivateControlPlane(['horizontal-pod-autoscaler-controller']);
    env = plane.env;
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-owners'));
    dir = await mkdtemp(join(tmpdir(), 'kr-owners-'));
    operator = await startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace,
      readiness: 'existence',
    });
  }, 120_000);

  afterAll(async () => {
    await operator?.stop(10_000);
    await cleanup();
    await rm(dir, { recursive: true, force: true });
    await plane?.stop();
  });

  it('the operator leaves spec.replicas to the HPA and says so; the plan forecasts it', async () => {
    const app: Resource = {
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'scaled', namespace },
      spec: { manifest: [deployment] },
    };
    await must(cluster.create(app));
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' };
    await eventually(async () => expect(await readObject(cluster, ref)).toBeDefined(), 30_000);
    await must(
      cluster.create({
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'web', namespace },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          minReplicas: 3,
          maxReplicas: 5,
        },
      }),
    );
    const contested = await eventually(async () => {
      const status = (await readApplication(cluster, applicationRef(namespace, 'scaled')))?.['status'];
      const fields = getIn(status ?? null, ['contestedFields']);
      expect(fields).toMatchObject([
        { path: 'spec.replicas', manager: 'kube-controller-manager', subresource: 'scale' },
      ]);
      return fields;
    }, SCALE_MS);
    expect(JSON.stringify(contested)).toContain('HorizontalPodAutoscaler');
    // Announced once as a Warning Event on the Application (Events are sent after the reconcile).
    await eventually(async () => {
      const events = (await must(cluster.list({ apiVersion: 'v1', kind: 'Event', namespace }))).items.filter(
        (event) =>
          getIn(event, ['involvedObject', 'name']) === 'scaled' && getIn(event, ['reason']) === 'FieldsContested',
      );
      expect(events.map((event) => getIn(event, ['message']))).toEqual([
        expect.stringContaining(`Deployment ${namespace}/web: spec.replicas (HorizontalPodAutoscaler`),
      ]);
    }, 15_000);

    // No fight: the replicas stay the HPA's, and the Deployment is written by nobody for ten seconds.
    const before = await readObject(cluster, ref);
    expect(getIn(before ?? null, ['spec', 'replicas'])).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const after = await readObject(cluster, ref);
    expect(getIn(after ?? null, ['spec', 'replicas'])).toBe(3);
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);

    // The plan against the cluster: no patch of the Deployment, the fight and its cure printed.
    const appFile = join(dir, 'app.yaml');
    await writeFile(appFile, JSON.stringify(app));
    const { io, out, err } = testIo({ connect: connectKubernetes });
    const code = await run(['plan', '-f', appFile, '--kubeconfig', env.kubeconfigPath], io);
    expect(err.join('')).toBe('');
    expect(code).toBe(0);
    const printed = out.join('');
    expect(printed).not.toContain('spec.replicas: 3 → 1');
    expect(printed).toContain(`apps/v1 Deployment ${namespace}/web spec.replicas: owned by HorizontalPodAutoscaler`);
    expect(printed).toContain('to end it: stop observing spec.replicas of Deployment web');
  });
});
