/**
 * `kreconcile validate` against kind schemas: Kubernetes 1.36's built-in kinds offline (the
 * committed schema file), custom resources against CRDs from the input or `--crd`; every problem
 * at once, each at its file:line with the path and the closest known field or kind.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linesOf, runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kr-validate-schemas-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const APP = `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: shop
spec:
  manifest:
    - apiVersion: apps/v1
      kind: Deployment
      metdata:
        name: web
      metadata:
        name: web
      spec:
        replica: 3
        replicas: "3"
        selector:
          matchLabels: { app: web }
        template:
          metadata:
            labels: [app=web]
          spec:
            containers:
              - name: web
                image: nginx
                imagePullPolicy: Sometimes
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: c
      data: [a, b]
    - apiVersion: v1
      kind: ConfigMapp
      metadata:
        name: d
    - apiVersion: example.com/v1
      kind: Song
      metadata:
        name: s
      spec:
        titel: So What
        genre: blues
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: songs.example.com
spec:
  group: example.com
  names: { kind: Song, plural: songs }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [title]
              properties:
                title: { type: string }
                genre: { type: string, enum: [rock, jazz] }
`;

describe('kreconcile validate: manifests against kind schemas', () => {
  it('reports every problem of built-in kinds offline, each at its line, with did-you-mean', async () => {
    const app = file('app.yaml', APP);
    const result = await runCli(['validate', '-f', app], { builtinSchemas: true });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const where = `${app}`;
    expect(linesOf(result.stderr)).toEqual([
      `error: ${where}:10:7: document 1 (Application shop/web): spec.manifest[0].metdata: unknown field of apps/v1 Deployment (the API server would refuse or drop it): did you mean \`metadata\`?`,
      `error: ${where}:15:9: document 1 (Application shop/web): spec.manifest[0].spec.replica: unknown field of apps/v1 Deployment (the API server would refuse or drop it): did you mean \`replicas\`?`,
      `error: ${where}:16:9: document 1 (Application shop/web): spec.manifest[0].spec.replicas: expected integer, got string "3" (the Kubernetes v1.36.3 schema of apps/v1 Deployment)`,
      `error: ${where}:21:13: document 1 (Application shop/web): spec.manifest[0].spec.template.metadata.labels: expected object, got a list (the Kubernetes v1.36.3 schema of apps/v1 Deployment)`,
      `error: ${where}:26:17: document 1 (Application shop/web): spec.manifest[0].spec.template.spec.containers[0].imagePullPolicy: "Sometimes" is not one of "Always", "IfNotPresent", "Never" (the Kubernetes v1.36.3 schema of apps/v1 Deployment)`,
      `error: ${where}:31:7: document 1 (Application shop/web): spec.manifest[1].data: expected object, got a list (the Kubernetes v1.36.3 schema of v1 ConfigMap)`,
      `error: ${where}:33:7: document 1 (Application shop/web): spec.manifest[2].kind: unknown kind ConfigMapp in v1: did you mean \`ConfigMap\`?`,
    ]);
  });

  it('checks a custom resource against its CRD from --crd or from the input, and not without one', async () => {
    const app = file('songs.yaml', APP);
    const crd = file('crd.yaml', CRD);
    const songLines = (stderr: string): ReadonlyArray<string> =>
      linesOf(stderr).filter((line) => line.includes('spec.manifest[3]'));
    const expected = [
      `error: ${app}:40:7: document 1 (Application shop/web): spec.manifest[3].spec.title: Required value (the schema of CustomResourceDefinition songs.example.com of example.com/v1 Song)`,
      `error: ${app}:41:9: document 1 (Application shop/web): spec.manifest[3].spec.titel: unknown field of example.com/v1 Song (the API server would refuse or drop it): did you mean \`title\`?`,
      `error: ${app}:42:9: document 1 (Application shop/web): spec.manifest[3].spec.genre: Unsupported value: "blues": supported values: "rock", "jazz" (the schema of CustomResourceDefinition songs.example.com of example.com/v1 Song)`,
    ];
    const flagged = await runCli(['validate', '-f', app, '--crd', crd], { builtinSchemas: true });
    expect(songLines(flagged.stderr)).toEqual(expected);
    const inInput = await runCli(['validate', '-f', app, '-f', crd], { builtinSchemas: true });
    expect(songLines(inInput.stderr)).toEqual(expected);
    const without = await runCli(['validate', '-f', app], { builtinSchemas: true });
    expect(songLines(without.stderr)).toEqual([]);
  });

  it('refuses a --crd file that holds no CRD', async () => {
    const app = file('ok.yaml', APP);
    const result = await runCli(['validate', '-f', app, '--crd', app], { builtinSchemas: true });
    expect(result.stderr).toContain('is not a CustomResourceDefinition: --crd reads CRDs only (Applications go in -f)');
  });

  it.each([
    'webapp/app.yaml',
    'song-artist/app.yaml',
    'list-control/app.yaml',
    'hooks/complete.yaml',
    'hooks/shutdown.yaml',
  ])('accepts the example %s against the built-in schemas', async (example) => {
    const result = await runCli(['validate', '-f', `examples/${example}`], { builtinSchemas: true });
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });
});
