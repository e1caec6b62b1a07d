/**
 * `kreconcile plan --server-dry-run` on a real API server with a mutating admission webhook
 * served here on loopback (TLS from a CA generated for the test): every create and patch goes
 * with dryRun=All (the webhook sees `dryRun: true`, nothing is stored), the plan shows what the
 * server would store — the webhook's label, the Deployment's defaults — and flags each planned
 * field stored otherwise: the webhook's rewrite of a ConfigMap value and the canonical `1` of a
 * `1000m` CPU limit, both of which would never converge.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as O from 'fp-ts/lib/Option.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { connectKubernetes, connectWritable } from '../../app/cli/live/kubernetes.js';
import { run } from '../../app/cli/main.js';
import type { Resource } from '../../core/internal.js';
import { generatePki } from '../../tools/envtest/pki.js';
import { testIo } from '../cli/support/run-cli.js';
import { connect, describeWithApiServer, freshNamespace, must, uniqueName } from '../support/kubernetes-env.js';

type Review = { request: { uid: string; dryRun?: boolean; object: Resource } };

describeWithApiServer('plan --server-dry-run on a real API server with a mutating webhook', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let dir: string;
  let server: Server;
  const webhookName = uniqueName('kr-dry-run');
  const reviews: Review[] = [];

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-dry-run'));
    dir = await mkdtemp(join(tmpdir(), 'kr-dry-run-'));
    const pki = await generatePki(dir);
    // The webhook: labels every ConfigMap it is asked about and rewrites data.mode.
    server = createServer(
      { cert: await readFile(pki.servingCert), key: await readFile(pki.servingKey) },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
          reviews.push(review);
          const patch = [
            { op: 'add', path: '/metadata/labels/injected', value: 'true' },
            { op: 'replace', path: '/data/mode', value: 'mutated' },
          ];
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(
            JSON.stringify({
              apiVersion: 'admission.k8s.io/v1',
              kind: 'AdmissionReview',
              response: {
                uid: review.request.uid,
                allowed: true,
                patchType: 'JSONPatch',
                patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
              },
            }),
          );
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await must(
      cluster.create({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: webhookName },
        webhooks: [
          {
            name: 'label.kreconcile.test',
            clientConfig: {
              url: `https://127.0.0.1:${port}/mutate`,
              caBundle: (await readFile(pki.caCert)).toString('base64'),
            },
            rules: [
              { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
            ],
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
            // Without sideEffects None the server refuses to call a webhook for a dry run.
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Fail',
            timeoutSeconds: 10,
          },
        ],
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await cluster?.delete({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      name: webhookName,
    })();
    await new Promise((resolve) => server?.close(resolve));
    await cleanup?.();
    await rm(dir, { recursive: true, force: true });
  });

  it('shows the mutation and the defaults, flags the fields that would not converge, and stores nothing', async () => {
    const app = join(dir, 'app.json');
    await writeFile(
      app,
      JSON.stringify({
        apiVersion: 'kreconcile.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'shop', namespace },
        spec: {
          manifest: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'settings' },
              data: { mode: 'planned', keep: 'x' },
            },
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: 'web' },
              spec: {
                selector: { matchLabels: { app: 'web' } },
                template: {
                  metadata: { labels: { app: 'web' } },
                  spec: {
                    containers: [{ name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '1000m' } } }],
                  },
                },
              },
            },
          ],
        },
      }),
    );
    // Writes must not happen: the ConfigMap stays absent.
    const { io, out, err } = testIo({ connect: connectKubernetes, connectWritable });
    const code = await run(['plan', '-f', app, '--kubeconfig', env.kubeconfigPath, '--server-dry-run'], io);
    const stdout = out.join('');
    expect(err.join('')).toContain('the server dry run refused a write, would store a field otherwise');
    expect(code).toBe(1);
    expect(stdout).toContain('Server dry run (dryRun=All: what the API server would store):');
    expect(stdout).toContain(`! create v1 ConfigMap ${namespace}/settings: 1 field(s) stored differently`);
    expect(stdout).toContain('      ! data.mode: the server would store "mutated", the plan sets "planned"');
    expect(stdout).toContain('      + metadata.labels.injected: "true" (set by the server)');
    // `cpu: 1000m` in the manifest: the plan sends the server's canonical form ("1"), so it is stored as planned.
    expect(stdout).toContain(`✓ create apps/v1 Deployment ${namespace}/web: stored as planned`);
    expect(stdout).not.toContain('resources.limits.cpu');
    expect(stdout).toContain('      + spec.strategy.type: "RollingUpdate" (set by the server)');
    expect(stdout).toContain(
      '      + spec.template.spec.containers[0].imagePullPolicy: "IfNotPresent" (set by the server)',
    );
    expect(reviews.length).toBeGreaterThan(0);
    expect(reviews.every((review) => review.request.dryRun === true)).toBe(true);
    expect(
      O.isNone(await must(cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' }))),
    ).toBe(true);
    expect(
      O.isNone(await must(cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' }))),
    ).toBe(true);
  }, 60_000);
});
