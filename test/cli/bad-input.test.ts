/**
 * Bad input: each problem is ONE clear line on stderr (file, position, document, JSON path, what
 * is wrong, what to do), nothing on stdout, exit 1; never a stack trace.
 */
import { describe, expect, it } from 'vitest';
import { linesOf, runCli, type CliResult } from './support/run-cli.js';

const APP_HEAD = `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: shop
spec:
`;

const CONFIGMAP = `  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web-config
      data:
        a: "1"
`;

const planFile = (text: string, extra: ReadonlyArray<string> = []): Promise<CliResult> =>
  runCli(['plan', '-f', 'app.yaml', ...extra], { files: { 'app.yaml': text } });

/** The single error line of a failed run. */
const oneError = (result: CliResult): string => {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  const lines = linesOf(result.stderr);
  expect(lines).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  return lines[0] ?? '';
};

describe('bad input: one clear line, exit 1', () => {
  it('malformed YAML names the line and column', async () => {
    const line = oneError(await planFile(`${APP_HEAD}  manifest: [\n    {apiVersion: v1\n`));
    expect(line).toBe(
      'error: app.yaml:9:1: document 1: malformed YAML: Flow map in block collection must be sufficiently indented and end with a }',
    );
  });

  it("a broken manifest entry does not hide the observer schema's problems: three problems, three lines", async () => {
    const text = `${APP_HEAD}  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata: {}
    - kind: Secret
      metadata:
        name: web-secret
    - apiVersion: v1
      kind: Service
      metadata:
        name: web
  observerSchema:
    - apiVersion: v1
      kind: Service
      metadata:
        name: web
      spec:
        type: 3
`;
    const result = await planFile(text);
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      'error: app.yaml:10:7: document 1 (Application shop/web): spec.manifest[0].metadata.name: expected non-empty string, got nothing',
      expect.stringMatching(
        /^error: app\.yaml:11:7: document 1 \(Application shop\/web\): spec\.manifest\[1\]\.apiVersion: /,
      ),
      expect.stringMatching(
        /^error: app\.yaml:24:9: document 1 \(Application shop\/web\): spec\.observerSchema\[0\]\.spec\.type: observed fields are marked true \(or null\), got 3/,
      ),
    ]);
  });

  it('a duplicate key is malformed YAML at its position, named', async () => {
    const line = oneError(await planFile(`${APP_HEAD}${CONFIGMAP}        a: "2"\n`));
    expect(line).toBe(
      'error: app.yaml:14:9: document 1: malformed YAML: duplicate key a: a key may appear once per map, remove one',
    );
  });

  it('every syntax problem of a file is reported, each at its place (docs/cli.md promises all)', async () => {
    const result = await planFile(
      `${APP_HEAD.replace('metadata:\n', 'metadata:\n  name: again\n')}${CONFIGMAP}        a: "2"\n      kind: Secret\n`,
    );
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      expect.stringMatching(/^error: app\.yaml:\d+:3: document 1: malformed YAML: duplicate key name: /),
      'error: app.yaml:15:9: document 1: malformed YAML: duplicate key a: a key may appear once per map, remove one',
      'error: app.yaml:16:7: document 1: malformed YAML: duplicate key kind: a key may appear once per map, remove one',
    ]);
  });

  it("an unknown kind is the plan's Stalled UnknownKind message, with what to do offline", async () => {
    const line = oneError(await runCli(['plan', '-f', 'examples/song-artist/app.yaml']));
    expect(line).toMatch(
      /^error: examples\/song-artist\/app\.yaml:22:7: document 1 \(Application music\/jukebox\): stalled \(UnknownKind\): spec\.manifest\[0\]: unknown kind Song in music\.example\.com\/v1: install its CustomResourceDefinition/,
    );
    expect(line).toContain('pass the CRD with -f');
  });

  it('an invalid observer schema names the JSON path of the offending field', async () => {
    const text = `${APP_HEAD}${CONFIGMAP}  observerSchema:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web-config
      data:
        a: 3
`;
    expect(oneError(await planFile(text))).toBe(
      'error: app.yaml:20:9: document 1 (Application shop/web): spec.observerSchema[0].data.a: observed fields are marked true (or null), got 3: write true to observe this field',
    );
  });

  it('a list schema without its control object', async () => {
    const text = `${APP_HEAD}  manifest:
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
      spec:
        ports:
          - port: null
`;
    expect(oneError(await planFile(text))).toMatch(
      /^error: app\.yaml:21:9: document 1 \(Application shop\/web\): spec\.observerSchema\[0\]\.spec\.ports: a list must end with a list control object/,
    );
  });

  it('a manifest resource without a name points at its metadata', async () => {
    const text = `${APP_HEAD}  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        labels: {a: b}
`;
    expect(oneError(await planFile(text))).toMatch(
      /^error: app\.yaml:10:7: document 1 \(Application shop\/web\): spec\.manifest\[0\]\.metadata\.name: expected non-empty string, got nothing$/,
    );
  });

  it('a YAML alias bomb is refused before it expands', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const name = String.fromCharCode(97 + i);
      const previous = String.fromCharCode(96 + i);
      levels.push(`${name}: &${name} [${Array.from({ length: 9 }, () => `*${previous}`).join(',')}]`);
    }
    const line = oneError(await planFile(`${levels.join('\n')}\n`));
    expect(line).toMatch(
      /^error: app\.yaml:1:1: document 1: too many YAML alias expansions \(a "billion laughs" document\?\)/,
    );
  });

  it('a huge input is refused before parsing', async () => {
    const line = oneError(await planFile(`# ${'x'.repeat(33 * 1024 * 1024)}\n`));
    expect(line).toBe('error: app.yaml: input is 33.0 MiB, more than the 32.0 MiB limit: split it into several files');
  });

  it('deep nesting beyond the limit is refused with its path', async () => {
    const deep = `${'['.repeat(250)}1${']'.repeat(250)}`;
    const line = oneError(await planFile(`${APP_HEAD}  manifest: ${deep}\n`));
    expect(line).toMatch(
      /^error: app\.yaml:7:\d+: document 1: spec\.manifest\[0\]\[0\].*: nesting is deeper than 200 levels/,
    );
  });

  it('nesting too deep for the parser itself is refused too', async () => {
    const line = oneError(await planFile(`${'['.repeat(100_000)}${']'.repeat(100_000)}\n`));
    expect(line).toMatch(/^error: app\.yaml:1:\d+: document 1: the document nests too deeply to parse/);
  });

  it.each([
    ['a list', '- apiVersion: v1\n- kind: Application\n'],
    ['a string', 'just some text\n'],
    ['a number', '42\n'],
  ])('a document that is %s, not an object', async (shape, text) => {
    expect(oneError(await planFile(text))).toBe(
      `error: app.yaml:1:1: document 1: the document is ${shape}, not an object: each document must be a Kubernetes object (or a List of them)`,
    );
  });

  it('a non-object document is reported with its document number', async () => {
    const result = await planFile(`${APP_HEAD}${CONFIGMAP}---\n- 1\n`);
    // The valid Application in document 1 is still planned (one bad document hides nothing), and the exit is 1.
    expect(result.stdout).toContain('+ v1 ConfigMap shop/web-config');
    expect(oneError({ ...result, stdout: '' })).toBe(
      'error: app.yaml:15:1: document 2: the document is a list, not an object: each document must be a Kubernetes object (or a List of them)',
    );
  });

  it('an object that is not an Application', async () => {
    expect(oneError(await planFile('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n'))).toBe(
      "error: app.yaml:2:1: document 1: kind: apps/v1 Deployment web is not an Application: list it in an Application's spec.manifest, or read plain manifests as one Application with --as-application NAME (live objects go in --snapshot)",
    );
  });

  it('an unsupported Application version', async () => {
    const line = oneError(await planFile(`${APP_HEAD.replace('v1alpha1', 'v1')}${CONFIGMAP}`));
    expect(line).toBe(
      'error: app.yaml:1:1: document 1 (Application shop/web): apiVersion: expected "kreconcile.io/v1alpha1", got string "kreconcile.io/v1"',
    );
  });

  it('values JSON cannot hold (.inf) are refused at their path', async () => {
    const line = oneError(await planFile(`${APP_HEAD}${CONFIGMAP.replace('a: "1"', 'a: .inf')}`));
    expect(line).toBe(
      'error: app.yaml:13:9: document 1: spec.manifest[0].data.a: Infinity is not a JSON number: quote it to make it a string',
    );
  });

  it('a missing file', async () => {
    expect(oneError(await runCli(['plan', '-f', 'does/not/exist.yaml']))).toBe(
      'error: does/not/exist.yaml: no such file: check the path',
    );
  });

  it('a snapshot object without a name', async () => {
    const result = await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--snapshot', 'live.yaml'], {
      files: {
        'live.yaml':
          'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    namespace: shop\n',
      },
    });
    expect(oneError(result)).toBe(
      'error: live.yaml:6:3: document 1 (ConfigMap shop/(unnamed)): metadata.name: expected non-empty string, got nothing (every live object has apiVersion, kind and metadata.name)',
    );
  });

  it('the same live object twice with different contents', async () => {
    const cm = (value: string): string =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: shop\ndata:\n  a: "${value}"\n`;
    const result = await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--snapshot', 'live.yaml'], {
      files: { 'live.yaml': `${cm('1')}---\n${cm('2')}` },
    });
    expect(oneError(result)).toBe(
      'error: live.yaml:9:1: document 2: v1 ConfigMap shop/x is also in live.yaml document 1, with different contents: keep one copy',
    );
  });

  it('an invalid --now', async () => {
    expect(oneError(await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--now', 'yesterday']))).toBe(
      'error: --now "yesterday" is not an RFC 3339 time: write e.g. 2026-01-31T12:00:00Z',
    );
  });

  it('--snapshot together with --kubeconfig', async () => {
    expect(
      oneError(await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--snapshot', 'a.yaml', '--kubeconfig', 'k'])),
    ).toMatch(/^error: --snapshot and --kubeconfig\/--context exclude each other/);
  });

  it('no -f at all', async () => {
    expect(oneError(await runCli(['plan']))).toBe(
      'error: name the Applications to plan with -f app.yaml (see kreconcile plan --help)',
    );
  });

  it("an unknown option (commander's own errors are one line too)", async () => {
    expect(oneError(await runCli(['plan', '--frobnicate']))).toBe("error: unknown option '--frobnicate' (see --help)");
  });

  it('an output format that does not exist', async () => {
    expect(oneError(await runCli(['plan', '-f', 'x', '-o', 'xml']))).toMatch(
      /^error: option '-o, --output <format>' argument 'xml' is invalid\. Allowed choices are text, json, yaml, markdown\. \(see --help\)$/,
    );
  });

  it('an empty input has no Application', async () => {
    expect(oneError(await planFile('# nothing here\n'))).toBe(
      'error: no Application (kreconcile.io/v1alpha1) in app.yaml: nothing to do (plain manifests are read as one Application with --as-application NAME)',
    );
  });

  it('a cluster that cannot be reached', async () => {
    const result = await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--context', 'prod'], {
      connect: async () => {
        throw new Error('cannot load kubeconfig: no context named prod');
      },
    });
    expect(oneError(result)).toBe(
      'error: cannot read the cluster (context prod): cannot load kubeconfig: no context named prod',
    );
  });
});

describe('__proto__ keys stay data', () => {
  it('a __proto__ key in a manifest is reported, and pollutes nothing', async () => {
    const text = `${APP_HEAD}${CONFIGMAP}        __proto__:\n          polluted: yes\n`;
    const line = oneError(await planFile(text));
    expect(line).toBe(
      'error: app.yaml:14:9: document 1 (Application shop/web): spec.manifest[0].data.__proto__: the key "__proto__" is not allowed: remove it',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('a __proto__ key in JSON input is reported the same way', async () => {
    const json = JSON.stringify({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} }] },
    }).replace('"data":{}', '"data":{"__proto__":{"polluted":"yes"}}');
    const result = await runCli(['plan', '-f', 'app.json'], { files: { 'app.json': json } });
    expect(oneError(result)).toMatch(
      /spec\.manifest\[0\]\.data\.__proto__: the key "__proto__" is not allowed: remove it$/,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a __proto__ key in a live object is carried as data, not onto the prototype', async () => {
    const live =
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: shop\ndata:\n  __proto__:\n    polluted: "yes"\n';
    const result = await runCli(
      ['plan', '-f', 'examples/webapp/app.yaml', '--snapshot', 'live.yaml', '--now', '2026-03-02T12:00:00Z'],
      { files: { 'live.yaml': live } },
    );
    expect(result.code).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('several problems: every one reported, each on its line', () => {
  it('reports the problems of every document and file', async () => {
    const bad = `${APP_HEAD}${CONFIGMAP}  observerSchema:\n    - apiVersion: v1\n      kind: ConfigMap\n      metadata:\n        name: nope\n      data:\n        a: true\n`;
    const result = await runCli(['plan', '-f', 'a.yaml', '-f', 'b.yaml'], {
      files: { 'a.yaml': bad, 'b.yaml': 'foo: [\n' },
    });
    expect(result.code).toBe(1);
    const lines = linesOf(result.stderr);
    expect(lines).toEqual([
      'error: a.yaml:15:7: document 1 (Application shop/web): spec.observerSchema[0]: observes v1 ConfigMap nope, which is not in spec.manifest: fix apiVersion, kind or metadata.name',
      'error: b.yaml:2:1: document 1: malformed YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });
});
