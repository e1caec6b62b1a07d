/** `kreconcile validate`: spec and observer-schema validation only, every error with its path. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { run } from '../../app/cli/main.js';
import type { ClusterTarget } from '../../app/cli/io.js';
import type { JsonObject } from '../../core/internal.js';
import { linesOf, runCli, testIo } from './support/run-cli.js';

const APP = (name: string, body: string): string => `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: ${name}
spec:
${body}`;

describe('kreconcile validate', () => {
  it.each(['webapp', 'song-artist', 'list-control'])('accepts the %s example', async (example) => {
    const result = await runCli(['validate', '-f', `examples/${example}/app.yaml`]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      new RegExp(`^Application \\S+ \\(examples/${example}/app\\.yaml, document 1\\): valid\\n$`),
    );
  });

  it("needs no cluster and no CRD: unknown kinds are the plan's business", async () => {
    expect((await runCli(['validate', '-f', 'examples/song-artist/app.yaml'])).code).toBe(0);
  });

  it('reports every error of every Application, each with its path, and exits 1', async () => {
    const first = APP(
      'first',
      `  manifest:
    - apiVersion: v1
      kind: Service
      metadata:
        name: web
      spec:
        ports:
          - port: 80
  observerSchema:
    - apiVersion: v1
      kind: Service
      metadata:
        name: web
        namespace: shop
      spec:
        ports:
          - port: null
          - observer_schema_list_min_length: 2
            observer_schema_list_max_length: 1
`,
    );
    const second = APP(
      'second',
      `  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: c
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: c
`,
    );
    const result = await runCli(['validate', '-f', 'apps.yaml'], { files: { 'apps.yaml': `${first}---\n${second}` } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(linesOf(result.stderr)).toEqual([
      'error: apps.yaml:19:9: document 1 (Application default/first): spec.observerSchema[0].metadata.namespace: metadata.namespace may only be true or null (observed): the namespace of a resource is set in its manifest',
      'error: apps.yaml:23:13: document 1 (Application default/first): spec.observerSchema[0].spec.ports[1]: observer_schema_list_max_length (1) is below observer_schema_list_min_length (2); use 0 for no maximum',
      'error: apps.yaml:36:7: document 2 (Application default/second): spec.manifest[1]: the same resource as spec.manifest[0]: each resource may appear once',
    ]);
  });

  it('reports a spec without manifest', async () => {
    const result = await runCli(['validate', '-f', 'a.yaml'], { files: { 'a.yaml': APP('empty', '  hooks: []\n') } });
    expect(linesOf(result.stderr)).toEqual([
      'error: a.yaml:5:1: document 1 (Application default/empty): spec.manifest: the spec needs a non-empty manifest (or tosca/csar): list the resources to manage',
    ]);
  });

  it('checks each spec.readiness CEL expression, reporting a bad one at its field with the position inside it', async () => {
    const rules = `  readiness:
    - kind: Widget
      ready: self.status.phase == "Ready"
    - kind: Gadget
      ready: self.status.phase == "Ready"
      failed: self.status.conditions.exists(c, self.status.conditions.exists(d, d == c))
    - kind: Other
      ready: self.status.phase ==
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web
`;
    const result = await runCli(['validate', '-f', 'a.yaml'], { files: { 'a.yaml': APP('rules', rules) } });
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      'error: a.yaml:11:7: document 1 (Application default/rules): spec.readiness[1].failed: invalid CEL expression: line 1 column 34 exists() inside another comprehension: nested comprehensions are not bounded, use one: write a CEL expression over self, the live object, that gives a boolean (docs/application.md, spec.readiness)',
      'error: a.yaml:13:7: document 1 (Application default/rules): spec.readiness[2].ready: invalid CEL expression: line 1 column 21 Unexpected token: EOF: write a CEL expression over self, the live object, that gives a boolean (docs/application.md, spec.readiness)',
    ]);
  });

  it('refuses a rule whose estimated cost is over the limit, naming the rule, the cost and the limit (issue 37 item 1)', async () => {
    const rules = `  readiness:
    - kind: ConfigMap
      ready: self.data.big.split('').map(c, self.data.big.contains(c)).size() > 0
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web
`;
    const result = await runCli(['validate', '-f', 'a.yaml'], { files: { 'a.yaml': APP('costly', rules) } });
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      expect.stringMatching(
        /^error: a\.yaml:8:7: document 1 \(Application default\/costly\): spec\.readiness\[0\]\.ready: invalid CEL expression: estimated cost \d+ exceeds the limit of 10000000 \(for an object of up to 1048576 bytes\): iterate over fewer elements, or do less per element/,
      ),
    ]);
  });

  it('refuses a readiness timeout that is no duration, as the CRD does', async () => {
    const rules = `  readiness:
    - kind: Widget
      ready: "true"
      timeout: 5 minutes
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web
`;
    const result = await runCli(['validate', '-f', 'a.yaml'], { files: { 'a.yaml': APP('rules', rules) } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('spec.readiness[0].timeout: expected a duration such as 90s, 5m or 1h30m');
  });

  it('uses -n for Applications without a namespace', async () => {
    const result = await runCli(['validate', '-n', 'shop', '-f', 'a.yaml'], {
      files: { 'a.yaml': APP('web', '  manifest:\n    - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n') },
    });
    expect(result.stdout).toBe('Application shop/web (a.yaml, document 1): valid\n');
  });

  it('reads several Applications from a List', async () => {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: ['a', 'b'].map((name) => ({
        apiVersion: 'kreconcile.io/v1alpha1',
        kind: 'Application',
        metadata: { name, namespace: 'x' },
        spec: { manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }] },
      })),
    };
    const result = await runCli(['validate', '-f', 'apps.json'], { files: { 'apps.json': JSON.stringify(list) } });
    expect(linesOf(result.stdout)).toEqual([
      'Application x/a (apps.json, document 1): valid',
      'Application x/b (apps.json, document 1): valid',
    ]);
  });

  it('rejects the same Application twice', async () => {
    const text = APP('web', '  manifest:\n    - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n');
    const result = await runCli(['validate', '-f', 'a.yaml', '-f', 'b.yaml'], {
      files: { 'a.yaml': text, 'b.yaml': text },
    });
    expect(linesOf(result.stderr)).toEqual([
      'error: b.yaml:4:3: document 1 (Application default/web): metadata.name: the same Application as a.yaml document 1: each Application may appear once',
    ]);
  });
});

describe('unknown fields: refused by validate and by plan alike', () => {
  const typo = APP(
    'web',
    '  manifest:\n    - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {A: x}}\n  observerSchemas:\n    - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {A: true}}\n',
  );
  const expected =
    'error: a.yaml:8:3: document 1 (Application default/web): spec.observerSchemas: unknown field (the API server would refuse or drop it): did you mean `observerSchema`?';

  it.each([['validate'], ['plan']])('%s exits 1 naming the closest field', async (command) => {
    const result = await runCli([command, '-f', 'a.yaml'], { files: { 'a.yaml': typo } });
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([expected]);
  });
});

describe("validate --kubeconfig: manifests against the cluster's OpenAPI schemas", () => {
  /** The core group's document, reduced to ConfigMap (data: a map of strings). */
  const coreDocument: JsonObject = {
    components: {
      schemas: {
        'io.k8s.api.core.v1.ConfigMap': {
          type: 'object',
          'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'ConfigMap' }],
          properties: {
            apiVersion: { type: 'string' },
            kind: { type: 'string' },
            metadata: { type: 'object', properties: { name: { type: 'string' } } },
            data: { type: 'object', additionalProperties: { type: 'string' } },
            immutable: { type: 'boolean' },
          },
        },
      },
    },
  };
  const app = APP(
    'web',
    '  manifest:\n    - apiVersion: v1\n      kind: ConfigMap\n      metadata: {name: c}\n      data: {A: 1}\n      imutable: true\n',
  );

  const validate = async (
    argv: ReadonlyArray<string>,
    fetchOpenApi: (
      target: ClusterTarget,
      apiVersions: ReadonlyArray<string>,
    ) => Promise<ReadonlyMap<string, JsonObject>>,
  ) => {
    const { io, out, err } = testIo({ files: { 'a.yaml': app } });
    const code = await run(['validate', '-f', 'a.yaml', ...argv], { ...io, fetchOpenApi });
    return { code, stdout: out.join(''), stderr: err.join('') };
  };

  it("reports what the cluster would refuse or drop, located in the file, after asking only for the manifests' group-versions", async () => {
    const asked: Array<{ readonly target: ClusterTarget; readonly apiVersions: ReadonlyArray<string> }> = [];
    const result = await validate(
      ['--kubeconfig', 'kube.yaml', '--context', 'staging'],
      async (target, apiVersions) => {
        asked.push({ target, apiVersions });
        return new Map([['v1', coreDocument]]);
      },
    );
    expect(asked).toEqual([{ target: { kubeconfigPath: 'kube.yaml', context: 'staging' }, apiVersions: ['v1'] }]);
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      "error: a.yaml:10:14: document 1 (Application default/web): spec.manifest[0].data.A: expected string, got number 1 (the cluster's schema of v1 ConfigMap)",
      'error: a.yaml:11:7: document 1 (Application default/web): spec.manifest[0].imutable: unknown field of v1 ConfigMap (the API server would refuse or drop it): did you mean `immutable`?',
    ]);
  });

  it("offline, the same file is valid: the cluster's schemas are consulted only when asked", async () => {
    const result = await validate([], async () => {
      throw new Error('not to be called');
    });
    expect({ code: result.code, stdout: result.stdout }).toEqual({
      code: 0,
      stdout: 'Application default/web (a.yaml, document 1): valid\n',
    });
  });

  it('an unreachable cluster is one error line and exit 1', async () => {
    const result = await validate(['--kubeconfig', 'kube.yaml'], async () => {
      throw new Error("reading the cluster's OpenAPI schemas (/openapi/v3): Unavailable (0): connect ECONNREFUSED");
    });
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      "error: reading the cluster's OpenAPI schemas (/openapi/v3): Unavailable (0): connect ECONNREFUSED",
    ]);
  });
});

describe('true markers in plan', () => {
  it('plans a schema written with true markers exactly as the same schema written with null (Krake) markers', async () => {
    const krake = readFileSync('examples/song-artist/app.yaml', 'utf8');
    const marked = krake.replace(/: null$/gm, ': true').replace(/- null$/gm, '- true');
    expect(marked).not.toContain('null');
    const live = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: music\n';
    const planOf = async (app: string) =>
      runCli(
        [
          'plan',
          '-f',
          'app.yaml',
          '-f',
          'examples/song-artist/crds.yaml',
          '--snapshot',
          'live.yaml',
          '--now',
          '2026-03-02T12:00:00Z',
          '-o',
          'json',
        ],
        { files: { 'app.yaml': app, 'live.yaml': live } },
      );
    const [fromNull, fromTrue] = [await planOf(krake), await planOf(marked)];
    expect(fromTrue.code).toBe(0);
    expect(fromTrue.stdout).toBe(fromNull.stdout);
    expect(fromTrue.stdout).toContain('"mangledObserverSchema"');
  });
});
