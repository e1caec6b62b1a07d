/**
 * Guards fail closed (issue 36): every kind of typo in a guard rule (a misspelt, plural or
 * wrongly grouped kind, a misspelt field at any depth, a field the kind lacks, a rule that can
 * match nothing) is an error at file:line with the closest known name, never a weaker guard.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const APP = `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata: { name: db, namespace: shop }
spec:
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata: { name: settings }
      data: { mode: a }
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: certificates.cert-manager.io }
spec:
  group: cert-manager.io
  scope: Namespaced
  names: { kind: Certificate, plural: certificates, singular: certificate, listKind: CertificateList }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { secretName: { type: string } } }
`;

const guardWith = (deny: string): string => `rules:\n  - name: r\n    deny: ${deny}\n`;

const plan = (deny: string, extra: ReadonlyArray<string> = []) =>
  runCli(['plan', '-f', 'app.yaml', '--guard', 'guard.yaml', '--now', NOW, ...extra], {
    files: { 'app.yaml': APP, 'guard.yaml': guardWith(deny), 'crd.yaml': CRD },
    builtinSchemas: true,
  });

describe('guard rules fail closed', () => {
  it.each([
    [
      'a misspelt kind',
      '{ kinds: [Deploymnet] }',
      'rules[0].deny.kinds[0]: unknown kind "Deploymnet" (did you mean "Deployment"?)',
    ],
    [
      'a plural kind',
      '{ actions: [delete], kinds: [PersistentVolumeClaims] }',
      'rules[0].deny.kinds[0]: unknown kind "PersistentVolumeClaims" (did you mean "PersistentVolumeClaim"?)',
    ],
    [
      'a wrong group',
      '{ kinds: [app/Deployment] }',
      'rules[0].deny.kinds[0]: unknown kind "app/Deployment" (did you mean "apps/Deployment"?)',
    ],
    ['core for a grouped kind', '{ kinds: [core/Deployment] }', 'unknown kind "core/Deployment"'],
    [
      'the second kind of a list',
      '{ kinds: [Service, Ingres] }',
      'rules[0].deny.kinds[1]: unknown kind "Ingres" (did you mean "Ingress"?)',
    ],
    [
      'a misspelt path',
      '{ kinds: [Deployment], paths: [spec.selectr] }',
      'rules[0].deny.paths[0]: Deployment has no field "spec.selectr" (did you mean "spec.selector"?)',
    ],
    [
      'a misspelt deep path',
      '{ kinds: [apps/Deployment], paths: [spec.template.spec.containres] }',
      'has no field "spec.template.spec.containres" (did you mean "spec.template.spec.containers"?)',
    ],
    [
      'a misspelt metadata path',
      '{ kinds: [Service], paths: [metadata.lables] }',
      'Service has no field "metadata.lables" (did you mean "metadata.labels"?)',
    ],
    [
      'a path of any kind',
      '{ paths: [spec.selectorr] }',
      'any known kind has no field "spec.selectorr" (did you mean "spec.selector"?)',
    ],
    [
      'a path the kind lacks',
      '{ kinds: [ConfigMap], paths: [spec.selector] }',
      'ConfigMap has no field "spec.selector"',
    ],
    [
      'paths on actions that change no field',
      '{ actions: [create, delete], kinds: [Deployment], paths: [spec.selector] }',
      'rules[0].deny.paths: paths match only patch and recreate actions, and this rule names only create, delete: it can match nothing',
    ],
    ['a custom kind without its CRD', '{ kinds: [Certificate] }', 'unknown kind "Certificate"'],
  ])('%s is an error at file:line', async (_what, deny, message) => {
    const result = await plan(deny);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: guard\.yaml:3:\d+: document 1: /);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it.each([
    ['a built-in kind and its path', '{ actions: [patch], kinds: [apps/Deployment], paths: [spec.selector] }'],
    ['a core kind', '{ actions: [delete], kinds: [core/PersistentVolumeClaim] }'],
    ['a map key below a known map', '{ kinds: [Service], paths: [\'metadata.labels["app.kubernetes.io/name"]\'] }'],
    ['a list index', '{ kinds: [Pod], paths: ["spec.containers[0].image"] }'],
    ['any kind', '{ kinds: ["*"], names: [data] }'],
  ])('%s passes', async (_what, deny) => {
    expect(await plan(deny)).toMatchObject({ code: 0, stderr: '' });
  });

  it('a custom kind is known once its CRD is given (-f or --crd), and its schema checks the paths', async () => {
    expect((await plan('{ kinds: [Certificate] }', ['-f', 'crd.yaml'])).code).toBe(0);
    expect(
      (await plan('{ kinds: [cert-manager.io/Certificate], paths: [spec.secretName] }', ['--crd', 'crd.yaml'])).code,
    ).toBe(0);
    const typo = await plan('{ kinds: [Certificate], paths: [spec.secretNam] }', ['--crd', 'crd.yaml']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('Certificate has no field "spec.secretNam" (did you mean "spec.secretName"?)');
  });

  it('kreconcile run --guard refuses a misspelt built-in kind or path before it starts; a custom kind it cannot see is left to the cluster', async () => {
    const run = (deny: string) =>
      runCli(
        ['run', '--memory', '-f', 'app.yaml', '--guard', 'guard.yaml', '--exit-when-converged', '--timeout', '20s'],
        {
          files: { 'app.yaml': APP, 'guard.yaml': guardWith(deny) },
          builtinSchemas: true,
        },
      );
    for (const [deny, message] of [
      [
        '{ kinds: [PersistentVolumeClaims] }',
        'unknown kind "PersistentVolumeClaims" (did you mean "PersistentVolumeClaim"?)',
      ],
      ['{ kinds: [apps/Deploymnet] }', 'unknown kind "apps/Deploymnet"'],
      [
        '{ kinds: [Deployment], paths: [spec.selectr] }',
        'Deployment has no field "spec.selectr" (did you mean "spec.selector"?)',
      ],
    ] as const) {
      const refused = await run(deny);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^error: guard\.yaml:3:\d+: document 1: /);
      expect(refused.stderr).toContain(message);
    }
    const custom = await run('{ kinds: [cert-manager.io/Certificate], paths: [spec.secretName] }');
    expect(custom.stderr).not.toContain('guard.yaml');
    expect(custom.code).toBe(0);
  }, 60_000);
});
