/**
 * The lean load of @kubernetes/client-node (adapters/kubernetes/lean-client-node.ts): the adapter
 * works as before — TLS with the kubeconfig's CA, an exec credential plugin's token on every
 * request — while none of the client's generated API classes and models is loaded. Each case runs
 * in a process of its own (a module hook is process-wide), once lean and once as before.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { genIndexImports, LEAN_GEN_EXPORTS } from '../../../adapters/kubernetes/lean-client-node.js';
import { generatePki } from '../../../tools/envtest/pki.js';

const adapterDir = resolve('adapters/kubernetes');
const configJs = resolve('node_modules/@kubernetes/client-node/dist/config.js');

// Records every module the process loads, then loads the adapter (lean or not) and sends one GET.
// Generated code is any API class, model or ObjectParamAPI type; gen/apis/exception.js (ApiException) is the adapter's
// own import.
const childScript = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load: (url, context, next) => { loaded.push(url); return next(url, context); } });
const lean = await import(${JSON.stringify(pathToFileURL(join(adapterDir, 'lean-client-node.ts')).href)});
if (process.argv[2] === 'lean' && !lean.registerLeanClientNode()) throw new Error('no registerHooks');
await import(${JSON.stringify(pathToFileURL(join(adapterDir, 'index.ts')).href)});
const { loadKubeConfig } = await import(${JSON.stringify(pathToFileURL(join(adapterDir, 'kube-config.ts')).href)});
const { createRestClient } = await import(${JSON.stringify(pathToFileURL(join(adapterDir, 'rest-client.ts')).href)});
const kubeConfig = loadKubeConfig({ kubeconfigYaml: process.env.LEAN_TEST_KUBECONFIG });
if (kubeConfig._tag === 'Left') throw new Error(kubeConfig.left);
const answer = await createRestClient(kubeConfig.right, 10_000).send({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/settings' })();
const generated = loaded.filter((url) => /client-node\\/dist\\/(gen\\/(models|types)\\/|gen\\/apis\\/(?!exception\\.js)|api\\.js|index\\.js)/.test(url));
console.log(JSON.stringify({ answer, generated: generated.length, sample: generated.slice(0, 3) }));
`;

type ChildResult = {
  readonly answer: { readonly _tag: string; readonly right?: unknown };
  readonly generated: number;
  readonly sample: ReadonlyArray<string>;
};

describe('the lean load of @kubernetes/client-node', () => {
  let dir: string;
  let server: Server;
  let kubeconfigYaml: string;
  const authorizations: Array<string | undefined> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kreconcile-lean-'));
    const pki = await generatePki(dir);
    server = createServer(
      { cert: readFileSync(pki.servingCert), key: readFileSync(pki.servingKey) },
      (request, response) => {
        authorizations.push(request.headers.authorization);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'settings' } }));
      },
    );
    await new Promise<void>((done) => {
      server.listen(0, '127.0.0.1', done);
    });
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 'exec-token' },
    };
    kubeconfigYaml = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'local',
          cluster: {
            server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
            'certificate-authority-data': readFileSync(pki.caCert).toString('base64'),
          },
        },
      ],
      users: [
        {
          name: 'plugin',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: process.execPath,
              args: ['-e', `process.stdout.write(${JSON.stringify(JSON.stringify(credential))})`],
              interactiveMode: 'Never',
            },
          },
        },
      ],
      contexts: [{ name: 'local', context: { cluster: 'local', user: 'plugin' } }],
      'current-context': 'local',
    });
    writeFileSync(join(dir, 'child.mts'), childScript);
  }, 60_000);

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((done) => {
      server.close(() => done());
    });
    rmSync(dir, { recursive: true, force: true });
  });

  const runChild = async (mode: 'lean' | 'full'): Promise<ChildResult> => {
    return new Promise((done, fail) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'child.mts'), mode], {
        env: { ...process.env, LEAN_TEST_KUBECONFIG: kubeconfigYaml },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('exit', (code) => {
        if (code !== 0) fail(new Error(`child (${mode}) exited ${code}: ${stderr}`));
        else done(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ChildResult);
      });
    });
  };

  it('answers over TLS with the exec plugin token, without loading any generated API class or model', async () => {
    authorizations.length = 0;
    const lean = await runChild('lean');
    expect(lean.answer._tag).toBe('Right');
    expect(lean.answer.right).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'settings' } });
    expect(authorizations).toEqual(['Bearer exec-token']);
    expect(lean.sample).toEqual([]);
    expect(lean.generated).toBe(0);
  }, 60_000);

  it('loads them without the hook (what the lean load saves), with the same answer', async () => {
    authorizations.length = 0;
    const full = await runChild('full');
    expect(full.answer._tag).toBe('Right');
    expect(authorizations).toEqual(['Bearer exec-token']);
    expect(full.generated).toBeGreaterThan(100);
  }, 60_000);

  it("stands in for exactly what the client's config.js imports from ./gen/index.js", () => {
    const names = genIndexImports(readFileSync(configJs, 'utf8'));
    expect(names, "config.js no longer imports from './gen/index.js': review lean-client-node.ts").not.toEqual([]);
    expect([...names].sort()).toEqual(Object.keys(LEAN_GEN_EXPORTS).sort());
    for (const [name, file] of Object.entries(LEAN_GEN_EXPORTS))
      expect(readFileSync(resolve('node_modules/@kubernetes/client-node/dist', file), 'utf8')).toMatch(
        new RegExp(`export (function|class|const) ${name}\\b`),
      );
  });

  // A client release whose config.js imports a name the stand-in lacks: the real index loads instead of a link error.
  const fakeClient = (configImports: string): string => {
    const root = mkdtempSync(join(tmpdir(), 'kreconcile-lean-fake-'));
    const dist = join(root, 'node_modules', '@kubernetes', 'client-node', 'dist');
    mkdirSync(join(dist, 'gen'), { recursive: true });
    writeFileSync(join(dist, 'gen', 'configuration.js'), 'export function createConfiguration() { return 1; }\n');
    writeFileSync(join(dist, 'gen', 'servers.js'), 'export class ServerConfiguration {}\n');
    writeFileSync(
      join(dist, 'gen', 'index.js'),
      "globalThis.fullIndexLoaded = true;\nexport * from './configuration.js';\nexport * from './servers.js';\nexport const NewName = 2;\n",
    );
    writeFileSync(
      join(dist, 'config.js'),
      `import { ${configImports} } from './gen/index.js';\nexport const imported = [${configImports}].length;\n`,
    );
    return join(dist, 'config.js');
  };

  const loadWithHook = (configPath: string): { imported: number; fullIndexLoaded: boolean } => {
    const script = [
      `const lean = await import(${JSON.stringify(pathToFileURL(join(adapterDir, 'lean-client-node.ts')).href)});`,
      "if (!lean.registerLeanClientNode()) throw new Error('no registerHooks');",
      `const config = await import(${JSON.stringify(pathToFileURL(configPath).href)});`,
      'console.log(JSON.stringify({ imported: config.imported, fullIndexLoaded: globalThis.fullIndexLoaded === true }));',
    ].join('\n');
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    return JSON.parse(output.trim().split('\n').at(-1) ?? '') as { imported: number; fullIndexLoaded: boolean };
  };

  it('answers config.js with the stand-in only when it provides every name config.js imports', () => {
    expect(loadWithHook(fakeClient('createConfiguration, ServerConfiguration'))).toEqual({
      imported: 2,
      fullIndexLoaded: false,
    });
    expect(loadWithHook(fakeClient('createConfiguration, ServerConfiguration, NewName'))).toEqual({
      imported: 3,
      fullIndexLoaded: true,
    });
  }, 60_000);

  it('reads the names a module imports from ./gen/index.js, renamed ones by their exported name', () => {
    expect(
      genIndexImports(
        "import { a, b as c } from './gen/index.js';\nimport { d } from \"./gen/index.js\";\nimport { e } from './other.js';",
      ),
    ).toEqual(['a', 'b', 'd']);
  });
});
