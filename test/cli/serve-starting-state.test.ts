/**
 * `kreconcile serve` starting from existing objects: plain manifests with `-f` (as `kubectl apply -f`
 * would create them) and a recorded snapshot with `--snapshot` (status included, owners re-linked
 * to the new uids), served to any client; a bad object is one line naming it, and nothing is served.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { runCli } from './support/run-cli.js';

const manifests = `
apiVersion: v1
kind: ConfigMap
metadata: { name: settings }
data: { mode: fast }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: shop }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: app, image: nginx:1.27 }] }
`;

const snapshot = `
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Namespace
    metadata: { name: legacy, uid: 0f4e8b2a-0000-4000-8000-000000000001, resourceVersion: "811" }
    status: { phase: Active }
  - apiVersion: apps/v1
    kind: ReplicaSet
    metadata:
      name: api-7d9f
      namespace: legacy
      uid: 0f4e8b2a-0000-4000-8000-000000000002
      resourceVersion: "812"
      creationTimestamp: "2026-01-01T00:00:00Z"
      labels: { app: api }
    spec:
      replicas: 1
      selector: { matchLabels: { app: api } }
      template:
        metadata: { labels: { app: api } }
        spec: { containers: [{ name: api, image: api:3 }] }
    status: { replicas: 1, readyReplicas: 1, availableReplicas: 1, fullyLabeledReplicas: 1, observedGeneration: 1 }
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: api-cache
      namespace: legacy
      uid: 0f4e8b2a-0000-4000-8000-000000000003
      ownerReferences:
        - { apiVersion: apps/v1, kind: ReplicaSet, name: api-7d9f, uid: 0f4e8b2a-0000-4000-8000-000000000002 }
        - { apiVersion: v1, kind: Secret, name: gone, uid: 0f4e8b2a-0000-4000-8000-00000000dead }
    data: { k: v }
`;

let dir: string;
let server: ChildProcess | undefined;
let output = '';
let url = '';

const get = async (path: string): Promise<any> => {
  const response = await fetch(`${url}${path}`);
  expect(response.status).toBe(200);
  return response.json();
};

describe('serve from existing objects', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kreconcile-serve-'));
    writeFileSync(join(dir, 'plain.yaml'), manifests);
    writeFileSync(join(dir, 'live.yaml'), snapshot);
    const kubeconfig = join(dir, 'kubeconfig');
    server = spawn(
      process.execPath,
      [
        'app/cli/kreconcile.js',
        'serve',
        '-f',
        join(dir, 'plain.yaml'),
        '--snapshot',
        join(dir, 'live.yaml'),
        '--write-kubeconfig',
        kubeconfig,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(() => expect(output).toContain('serving on'), 60_000);
    url = parse(readFileSync(kubeconfig, 'utf8')).clusters[0].cluster.server;
  }, 90_000);

  afterAll(() => {
    server?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('says what it loaded', () => {
    expect(output).toContain('with 0 Application(s) and 5 other object(s)');
  });

  it('creates plain manifests as kubectl apply -f would: the default namespace, namespaces made as needed', async () => {
    expect((await get('/api/v1/namespaces/default/configmaps/settings')).data).toEqual({ mode: 'fast' });
    const web = await get('/apis/apps/v1/namespaces/shop/deployments/web');
    expect(web.spec.replicas).toBe(2);
  });

  it('restores a snapshot: new uids, the recorded status, owners re-linked and dangling owners dropped', async () => {
    const replicaSet = await get('/apis/apps/v1/namespaces/legacy/replicasets/api-7d9f');
    expect(replicaSet.metadata.uid).not.toBe('0f4e8b2a-0000-4000-8000-000000000002');
    expect(replicaSet.status).toMatchObject({ replicas: 1, readyReplicas: 1, availableReplicas: 1 });
    const cache = await get('/api/v1/namespaces/legacy/configmaps/api-cache');
    expect(cache.metadata.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'api-7d9f', uid: replicaSet.metadata.uid },
    ]);
  });
});

describe('serve with an object it cannot load', () => {
  it('names the object and the reason in one line, and serves nothing', async () => {
    const result = await runCli(['serve', '-f', 'bad.yaml', '--write-kubeconfig', '/tmp/never-written'], {
      files: { 'bad.yaml': 'apiVersion: example.com/v1\nkind: Gadget\nmetadata: { name: g }\n' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: cannot load example\.com\/v1 Gadget g: .*no matches for kind "Gadget".*: load its CustomResourceDefinition with -f too\n$/,
    );
    expect(result.stdout).not.toContain('serving on');
  });
});
