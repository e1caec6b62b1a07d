/**
 * `plan -o markdown` (issue 22): the plan as a pull request comment. Golden output with a Secret
 * (its values never appear), a deletion and a guard denial listed first; GitHub's comment limit.
 */
import { describe, expect, it } from 'vitest';
import { GITHUB_COMMENT_LIMIT } from '../../app/cli/render/markdown.js';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const CANARY = 'hunter2-canary-5b1e';
const OLD = 'old-canary-value-91c2';
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

const APP = `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata: { name: web, namespace: shop }
spec:
  manifest:
    - apiVersion: v1
      kind: Secret
      metadata: { name: db }
      data: { password: ${b64(CANARY)} }
    - apiVersion: v1
      kind: ConfigMap
      metadata: { name: settings }
      data: { mode: "b", note: "a \`\`\` fence | and <b>markup</b>" }
    - apiVersion: apps/v1
      kind: Deployment
      metadata: { name: web }
      spec:
        replicas: 2
        selector: { matchLabels: { app: web } }
        template:
          metadata: { labels: { app: web } }
          spec: { containers: [{ name: web, image: "nginx:1.27" }] }
`;

const marks = `labels: { app.kubernetes.io/managed-by: kreconcile }
    annotations: { kreconcile.io/owner: shop/web }`;

const LIVE = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Secret
  type: Opaque
  metadata:
    name: db
    namespace: shop
    resourceVersion: "7"
    ${marks}
  data: { password: ${b64(OLD)} }
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    namespace: shop
    resourceVersion: "8"
    ${marks}
  data: { mode: "a" }
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata:
    name: data
    namespace: shop
    resourceVersion: "9"
    ${marks}
  spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
- apiVersion: kreconcile.io/v1alpha1
  kind: Application
  metadata: { name: web, namespace: shop, uid: app-uid, resourceVersion: "3", generation: 1, finalizers: [kreconcile.io/cleanup] }
  spec: { manifest: [] }
  status:
    lastAppliedManifest:
    - { apiVersion: v1, kind: Secret, metadata: { name: db, namespace: shop } }
    - { apiVersion: v1, kind: ConfigMap, metadata: { name: settings, namespace: shop } }
    - { apiVersion: v1, kind: PersistentVolumeClaim, metadata: { name: data, namespace: shop } }
`;

const GUARD = 'rules:\n  - name: keep-volumes\n    deny: { actions: [delete], kinds: [PersistentVolumeClaim] }\n';

const files = { 'app.yaml': APP, 'live.yaml': LIVE, 'guard.yaml': GUARD };

describe('kreconcile plan -o markdown', () => {
  it('totals, then deletes and guard denials first, then collapsible changes; Secret values masked', async () => {
    const result = await runCli(
      ['plan', '-f', 'app.yaml', '--snapshot', 'live.yaml', '--now', NOW, '-o', 'markdown', '--guard', 'guard.yaml'],
      { files, builtinSchemas: true },
    );
    expect(result.code).toBe(3);
    expectGolden('test/cli/golden/markdown/plan.md', result.stdout);
    for (const secret of [CANARY, b64(CANARY), OLD, b64(OLD)]) expect(result.stdout).not.toContain(secret);
    // The deletion is listed before any Application's details.
    expect(result.stdout.indexOf('**delete** v1 PersistentVolumeClaim shop/data')).toBeLessThan(
      result.stdout.indexOf('<details>'),
    );
    expect(result.stdout).toContain(':no_entry: **denied** by guard rule `keep-volumes`');
    // Without --guard: the same plan, no denial.
    const plain = await runCli(['plan', '-f', 'app.yaml', '--snapshot', 'live.yaml', '--now', NOW, '-o', 'markdown'], {
      files,
    });
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain('denied');
  });

  it('fits a GitHub comment: Applications that do not fit are left out with a note', async () => {
    const children = Array.from(
      { length: 100 },
      (_, i) =>
        `    - { apiVersion: v1, kind: ConfigMap, metadata: { name: config-map-with-a-long-name-${i} }, data: { a: "1" } }`,
    ).join('\n');
    const many = Array.from(
      { length: 20 },
      (_, i) => `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata: { name: app-${i}, namespace: shop }
spec:
  manifest:
${children}
`,
    ).join('---\n');
    const result = await runCli(['plan', '-f', 'many.yaml', '--now', NOW, '-o', 'markdown'], {
      files: { 'many.yaml': many },
    });
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(result.stdout).toMatch(
      /> Truncated to fit a GitHub comment: the changes of \d+ of 20 Applications are left out/,
    );
    expect(result.stdout).toContain('| create | ConfigMap | 2000 |');
  });
});
