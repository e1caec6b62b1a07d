/**
 * `apply` checks every write of a saved plan against the kind schemas before the first one: a
 * plan made from bad input is refused whole (nothing written), and the advice names the input
 * file, the manifest object and the field to fix.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryCluster, type MemoryCluster } from '../../adapters/memory/index.js';
import type { Resource } from '../../core/internal.js';
import { linesOf, runCli, type RunOptions } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const appYaml = (replicas: string, extra = ''): string => `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: shop
spec:
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web-config
      data:
        a: b
    - apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
      spec:
        replicas: ${replicas}${extra}
        selector:
          matchLabels: { app: web }
        template:
          metadata:
            labels: { app: web }
          spec:
            containers:
              - name: web
                image: nginx
`;

describe('apply: a saved plan is checked against the schemas before its first write', () => {
  let dir: string;
  let cluster: MemoryCluster;
  let writes: number;
  const live = (): RunOptions => ({
    connect: async () => cluster,
    connectWritable: async () => ({
      ...cluster,
      create: (object: Resource, options) => {
        // The plan's writes: the inventory apply keeps beside them (decision 0028) is not one.
        if (!object.metadata.name.startsWith('kreconcile-inventory.')) writes++;
        return cluster.create(object, options);
      },
      patch: (ref, patch, options) => {
        writes++;
        return cluster.patch(ref, patch, options);
      },
    }),
    builtinSchemas: true,
  });
  const planAndApply = async (text: string) => {
    const app = join(dir, 'app.yaml');
    const planFile = join(dir, 'plan.json');
    writeFileSync(app, text);
    const planned = await runCli(['plan', '-f', app, '--kubeconfig', 'kc', '--now', NOW, '--out', planFile], live());
    expect(planned.code).toBe(0);
    return { app, applied: await runCli(['apply', planFile, '--kubeconfig', 'kc'], live()) };
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kr-saved-plan-schema-'));
    cluster = createMemoryCluster();
    writes = 0;
    const namespace = await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
    expect(E.isRight(namespace)).toBe(true);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a plan whose created object has an unknown field and a wrong type, writing nothing', async () => {
    const { app, applied } = await planAndApply(appYaml('"3"', '\n        replica: 3'));
    expect(applied.code).toBe(1);
    expect(writes).toBe(0);
    expect(applied.stdout).toBe('');
    expect(linesOf(applied.stderr)).toEqual([
      `error: ${app}: document 1 (Application shop/web): spec.manifest apps/v1 Deployment web: spec.replicas: expected integer, got string "3" (the Kubernetes v1.36.3 schema of apps/v1 Deployment); nothing was applied: fix it in the Application, then plan and apply again`,
      `error: ${app}: document 1 (Application shop/web): spec.manifest apps/v1 Deployment web: spec.replica: unknown field of apps/v1 Deployment (the API server would refuse or drop it): did you mean \`replicas\`?; nothing was applied: fix it in the Application, then plan and apply again`,
    ]);
  });

  it('refuses a plan whose patch sets a value of the wrong type, and applies a valid one', async () => {
    const first = await planAndApply(appYaml('2'));
    expect(first.applied.code).toBe(0);
    expect(writes).toBe(2);
    const second = await planAndApply(appYaml('"3"'));
    expect(second.applied.code).toBe(1);
    expect(writes).toBe(2);
    expect(linesOf(second.applied.stderr)).toEqual([
      `error: ${second.app}: document 1 (Application shop/web): spec.manifest apps/v1 Deployment web: spec.replicas: expected integer, got string "3" (the Kubernetes v1.36.3 schema of apps/v1 Deployment); nothing was applied: fix it in the Application, then plan and apply again`,
    ]);
    expect(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8'))).toMatchObject({
      applications: [{ actions: [{ type: 'patch', patch: [{ op: 'replace', path: '/spec/replicas', value: '3' }] }] }],
    });
  });
});
