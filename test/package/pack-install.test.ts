/**
 * The package as a user gets it: `npm pack` of this working tree (its prepack builds dist/),
 * installed with `--omit=dev` into an empty project, then imported and run on the project's
 * pinned Node (the `node` devDependency) with nothing from this repository on the module path.
 * The operator image's install stage (Dockerfile) is laid out from the same tarball with the
 * lockfile's production dependencies, and its entrypoint is run here: no container builder needed.
 *
 * Packing happens in a copy of the working tree (node_modules linked, not copied) so the build
 * never leaves a dist/ in the checkout. Installing resolves production dependencies through npm's
 * cache first (`--prefer-offline`: `npm ci` has filled it), reaching the registry only on a miss.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  type Dirent,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { execForm, instructions } from './dockerfile.js';

const run = promisify(execFile);
const REPO = resolve('.');
/** The pinned Node (devDependency `node`), first on PATH so npm, npx and the bin's shebang use it. */
const PINNED_BIN = join(REPO, 'node_modules', '.bin');
const PINNED_NODE = join(PINNED_BIN, 'node');
const NOW = '2026-03-02T12:00:00Z';

/** Where npm keeps its cache and finds its registry: kept, so that CI's settings (and `npm ci`'s cache) apply. */
const KEPT_NPM_SETTINGS = new Set([
  'npm_config_cache',
  'npm_config_registry',
  'npm_config_userconfig',
  'npm_config_cafile',
]);

/**
 * The environment of a user's shell: no npm_* variables leaking from an `npm test` that started
 * vitest (npm_config_local_prefix would make every npm below treat this repository as the project).
 */
const userEnv = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.toLowerCase().startsWith('npm_') || KEPT_NPM_SETTINGS.has(key.toLowerCase()),
    ),
  ),
  PATH: `${PINNED_BIN}:${process.env.PATH ?? ''}`,
  NO_COLOR: '1',
});

type Packed = {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: ReadonlyArray<{ readonly path: string }>;
};

let work: string;
let consumer: string;
let packed: Packed;
/** The operator image's /opt/kreconcile, laid out as the Dockerfile's install stage does. */
let image: string;

const npm = (cwd: string, args: ReadonlyArray<string>) =>
  run('npm', [...args], { cwd, env: userEnv(), maxBuffer: 64 * 1024 * 1024 });
const node = (cwd: string, script: string) =>
  run(PINNED_NODE, ['--input-type=module', '-e', script], { cwd, env: userEnv() });
const npx = (args: ReadonlyArray<string>) =>
  run('npx', ['--no-install', 'kreconcile', ...args], { cwd: consumer, env: userEnv() });
/** Stderr without npm's own notices (a machine's npmrc may make npx warn about its settings). */
const withoutNpmNotices = (text: string): string =>
  text
    .split('\n')
    .filter((line) => !line.startsWith('npm warn '))
    .join('\n');
const failure = async (promise: Promise<unknown>): Promise<{ code?: number; stdout?: string; stderr?: string }> =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: { code?: number; stdout?: string; stderr?: string }) => error,
  );

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'kreconcile-pack-'));
  const tree = join(work, 'tree');
  const skipped = new Set(['node_modules', '.git', 'dist', '.ci']);
  cpSync(REPO, tree, {
    recursive: true,
    filter: (source) => !skipped.has(source.slice(REPO.length + 1).split('/')[0] ?? ''),
  });
  symlinkSync(join(REPO, 'node_modules'), join(tree, 'node_modules'));
  const { stdout } = await npm(tree, ['pack', '--json', '--pack-destination', work]);
  packed = (JSON.parse(stdout) as Packed[])[0] as Packed;
  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await npm(consumer, [
    'install',
    '--omit=dev',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    join(work, packed.filename),
  ]);
  // Examples from the installed package, at the paths the golden plans show.
  cpSync(join(consumer, 'node_modules', 'kreconcile', 'examples'), join(consumer, 'examples'), { recursive: true });
  // The Dockerfile's install stage: the tarball's files, production dependencies at the locked versions.
  image = join(work, 'image');
  mkdirSync(image);
  await run('tar', ['-xzf', join(work, packed.filename), '--strip-components=1', '-C', image]);
  cpSync('package-lock.json', join(image, 'package-lock.json'));
  await npm(image, ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund']);
  rmSync(join(image, 'package-lock.json'));
  process.stdout.write(
    `kreconcile tarball: ${packed.filename}, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${packed.entryCount} files\n`,
  );
}, 600_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** A Node older than the package needs, on this machine's PATH (many machines have 20), or undefined. */
const OLD_NODE = spawnSync('sh', ['-c', 'which -a node'], { encoding: 'utf8' })
  .stdout.split('\n')
  .find((path) => {
    const [major = 0, minor = 0] = (spawnSync(path || 'false', ['--version'], { encoding: 'utf8' }).stdout ?? '')
      .trim()
      .replace(/^v/, '')
      .split('.')
      .map(Number);
    return path !== '' && major > 0 && (major < 22 || (major === 22 && minor < 19));
  });

/** package.json `exports`: a path, or conditions (import/require/types/default) nested to any depth. */
type ExportTarget = string | { readonly [condition: string]: ExportTarget };

const exportTargets = (target: ExportTarget): ReadonlyArray<string> =>
  typeof target === 'string' ? [target] : Object.values(target).flatMap(exportTargets);

/**
 * A TypeScript project next to the consumer (its node_modules), type-checked with NodeNext resolution; tsc's output.
 */
const typeCheck = async (name: string, manifest: object, source: string): Promise<string> => {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2023',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ['check.ts'],
    }),
  );
  writeFileSync(join(dir, 'check.ts'), source);
  symlinkSync(join(consumer, 'node_modules'), join(dir, 'node_modules'));
  const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  const checked = await run(PINNED_NODE, [tsc, '-p', 'tsconfig.json'], { cwd: dir, env: userEnv() }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
  );
  return checked.stdout;
};

// Each step spawns npm, tsc or Node: generous limits for a loaded CI machine.
describe('the packed kreconcile package', { timeout: 180_000 }, () => {
  it('ships the build, docs and examples, and no sources, tests or tools', () => {
    const paths = packed.files.map((file) => file.path);
    const tops = new Set(paths.map((path) => path.split('/')[0]));
    expect([...tops].sort()).toEqual(['README.md', 'dist', 'docs', 'examples', 'package.json', 'schemas']);
    expect(paths).toContain('schemas/kubernetes-1.36.json');
    expect(paths.filter((path) => /\.[cm]?ts$/.test(path) && !/\.d\.c?ts$/.test(path))).toEqual([]);
    expect(paths.filter((path) => path.endsWith('.map'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules', 'kreconcile', 'package.json'), 'utf8')) as {
      exports: ExportTarget;
      bin: Record<string, string>;
      engines: { node: string };
    };
    const targets = exportTargets(manifest.exports);
    // ESM and CommonJS consumers each get declarations of their own module kind (see the kit type test below).
    expect(targets.filter((target) => target.endsWith('.d.cts'))).toHaveLength(4);
    for (const target of [...targets, ...Object.values(manifest.bin)])
      expect(paths, target).toContain(target.replace(/^\.\//, ''));
    expect(
      readFileSync(join(consumer, 'node_modules', 'kreconcile', manifest.bin.kreconcile as string), 'utf8'),
    ).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it('installs without devDependencies: no tsx, typescript, vitest or fast-check', () => {
    const installed = readdirSync(join(consumer, 'node_modules'));
    expect(installed).toContain('kreconcile');
    for (const dev of ['tsx', 'typescript', 'vitest', 'eslint', 'fast-check', 'node'])
      expect(installed).not.toContain(dev);
  });

  it('runs on the pinned Node', async () => {
    const { stdout } = await node(consumer, 'process.stdout.write(process.versions.node)');
    const pinned = (JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: { node: string } })
      .devDependencies.node;
    expect(stdout.split('.')[0]).toBe(/\d+/.exec(pinned)?.[0]);
  });

  it('imports the core, the runtime and the Kubernetes adapter, which do not need fast-check', async () => {
    const { stdout } = await node(
      consumer,
      `
      import { plan, decodeApplication, builtinScopes } from 'kreconcile';
      import { startOperator, Controller } from 'kreconcile/runtime';
      import { createKubernetesCluster } from 'kreconcile/kubernetes';
      const app = decodeApplication({ apiVersion: 'kreconcile.io/v1alpha1', kind: 'Application', metadata: { name: 'web', namespace: 'shop' },
        spec: { manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' }, data: { a: '1' } }] } });
      if (app._tag !== 'Right') throw new Error('decode failed');
      const planned = plan({ application: app.right, live: [], scopes: builtinScopes, now: '${NOW}' });
      console.log(planned.actions.map((action) => action.type + (action.ref ? ' ' + action.ref.kind : '')).join(','));
      console.log([typeof startOperator, typeof Controller, typeof createKubernetesCluster].join(' '));
    `,
    ).catch((error: { stderr?: string }) => {
      throw new Error(error.stderr ?? String(error));
    });
    expect(stdout.trim().split('\n')).toEqual([
      'addFinalizer Application,create ConfigMap',
      'function function function',
    ]);
  });

  it('gives TypeScript consumers the types of every entry point (NodeNext resolution through exports)', async () => {
    const dir = join(work, 'typed');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2023',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['check.ts'],
      }),
    );
    writeFileSync(
      join(dir, 'check.ts'),
      `
      import { plan, builtinScopes, type Application, type Plan } from 'kreconcile';
      import { startOperator, type OperatorOptions } from 'kreconcile/runtime';
      import { createKubernetesCluster } from 'kreconcile/kubernetes';
      export const planned = (application: Application): Plan => plan({ application, live: [], scopes: builtinScopes, now: '${NOW}' });
      export const start = (options: OperatorOptions) => startOperator(options);
      export const connect = () => createKubernetesCluster({ kubeconfigPath: 'kc' });
      // @ts-expect-error the types are real: plan needs its scopes
      export const wrong = (application: Application) => plan({ application, now: '${NOW}' });
    `,
    );
    symlinkSync(join(consumer, 'node_modules'), join(dir, 'node_modules'));
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await run(PINNED_NODE, [tsc, '-p', 'tsconfig.json'], { cwd: dir, env: userEnv() }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
    );
    expect(checked.stdout).toBe('');
  });

  it('imports the test kit once fast-check (its optional peer) is installed', async () => {
    const missing = await failure(node(consumer, "await import('kreconcile/testing')"));
    expect(missing.stderr).toMatch(/Cannot find package 'fast-check'/);
    const locked = (
      JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { version: string }> }
    ).packages['node_modules/fast-check']?.version;
    await npm(consumer, [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--save-dev',
      `fast-check@${locked}`,
    ]);
    const { stdout } = await node(
      consumer,
      `
      import { createMemoryCluster, checkConvergence, ManualClock } from 'kreconcile/testing';
      const cluster = createMemoryCluster({ clock: new ManualClock(0) });
      console.log(typeof cluster.create, typeof checkConvergence);
    `,
    ).catch((error: { stderr?: string }) => {
      throw new Error(error.stderr ?? String(error));
    });
    expect(stdout.trim()).toBe('function function');
  });

  it.each([
    // What `npm init -y` makes: a CommonJS package, whose fast-check types are fast-check's CommonJS declarations.
    ['CommonJS', { name: 'kit-cjs', version: '1.0.0', private: true }],
    ['ESM', { name: 'kit-esm', version: '1.0.0', private: true, type: 'module' }],
  ])("types a kit test in a %s consumer with the consumer's own fast-check", async (kind, manifest) => {
    const output = await typeCheck(
      `kit-${kind}`,
      manifest,
      `
      import fc from 'fast-check';
      import { checkConvergence, applicationArbitrary, type ConvergenceOptions } from 'kreconcile/testing';
      const world = fc.record({ name: fc.constantFrom('a', 'b'), apps: fc.array(applicationArbitrary({ namespace: 'default' })) });
      export const options: ConvergenceOptions<{ name: string }> = {
        world,
        setup: async ({ api, world }) => { await api.list({ apiVersion: 'v1', kind: 'ConfigMap' }); void world.name; },
        reconcile: async () => undefined,
        converged: async () => true,
      };
      export const run = () => checkConvergence(options);
      // @ts-expect-error the types are real: converged answers true or a message
      export const wrong = () => checkConvergence({ ...options, converged: async () => 1 });
    `,
    );
    expect(output).toBe('');
  });

  it("runs the packed operator against a Kubernetes API endpoint (the kit's memory cluster over HTTP, through client-node) to Ready", async () => {
    // Everything from the installed package: the kit serves the cluster, the bin applies nothing
    // itself (crd prints the CRD, the script creates it), `run --kubeconfig` reconciles.
    writeFileSync(
      join(consumer, 'operator-over-http.mjs'),
      `
      import { execFile, spawn, spawnSync } from 'node:child_process';
      import { readFileSync } from 'node:fs';
      import { promisify } from 'node:util';
      import { parse } from 'yaml';
      import { createMemoryCluster, promiseCluster, serveMemoryCluster } from 'kreconcile/testing';
      const memory = createMemoryCluster({ workloads: true });
      const served = await serveMemoryCluster(memory, { kubeconfigPath: 'served-kubeconfig.yaml' });
      const cluster = promiseCluster(memory);
      const crd = JSON.parse((await promisify(execFile)('node_modules/.bin/kreconcile', ['crd', '-o', 'json'])).stdout).items[0];
      await cluster.create(crd);
      await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
      await cluster.create(parse(readFileSync('examples/webapp/app.yaml', 'utf8')));
      const operator = spawn('node_modules/.bin/kreconcile', ['run', '--kubeconfig', 'served-kubeconfig.yaml', '--log-level', 'warn']);
      let output = '';
      operator.stdout.on('data', (chunk) => { output += chunk; });
      operator.stderr.on('data', (chunk) => { output += chunk; });
      const exited = new Promise((resolve) => operator.on('exit', resolve));
      const deadline = Date.now() + 60_000;
      while (!/shop\\/web Ready:/.test(output) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const deployment = await cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' });
      operator.kill('SIGTERM');
      const code = await exited;
      await served.close();
      console.log(JSON.stringify({ code, output, replicas: deployment?.spec?.replicas ?? null }));
    `,
    );
    const { stdout } = await run(PINNED_NODE, ['operator-over-http.mjs'], { cwd: consumer, env: userEnv() }).catch(
      (error: { stderr?: string }) => {
        throw new Error(error.stderr ?? String(error));
      },
    );
    const result = JSON.parse(stdout) as { code: number; output: string; replicas: number | null };
    expect(result.output).toMatch(/shop\/web Ready: 4 resources match the desired state/);
    expect(result.replicas).toBe(3);
    expect(result.output).toMatch(/SIGTERM: shutting down\nstopped\n$/);
    expect(result.code).toBe(0);
  });

  it('runs the packed examples/embedded-operator/operator.mjs: a Greeting gets its ConfigMap and goes Ready', async () => {
    // The program as the package ships it (no TypeScript, importing kreconcile/runtime by name),
    // against the kit's memory cluster over HTTP, through client-node.
    writeFileSync(
      join(consumer, 'greeting-over-http.mjs'),
      `
      import { spawn } from 'node:child_process';
      import { readFileSync } from 'node:fs';
      import { parse } from 'yaml';
      import { createMemoryCluster, promiseCluster, serveMemoryCluster } from 'kreconcile/testing';
      const memory = createMemoryCluster({ workloads: true });
      const served = await serveMemoryCluster(memory, { kubeconfigPath: 'greeting-kubeconfig.yaml' });
      const cluster = promiseCluster(memory);
      await cluster.create(parse(readFileSync('node_modules/kreconcile/examples/embedded-operator/crd.yaml', 'utf8')));
      await cluster.create({ apiVersion: 'example.kreconcile.io/v1', kind: 'Greeting', metadata: { name: 'hello', namespace: 'default' }, spec: { message: 'hello, world' } });
      const operator = spawn(process.execPath, ['node_modules/kreconcile/examples/embedded-operator/operator.mjs', '--kubeconfig', 'greeting-kubeconfig.yaml']);
      let output = '';
      operator.stdout.on('data', (chunk) => { output += chunk; });
      operator.stderr.on('data', (chunk) => { output += chunk; });
      const exited = new Promise((resolve) => operator.on('exit', resolve));
      const ready = async () => {
        const greeting = await cluster.get({ apiVersion: 'example.kreconcile.io/v1', kind: 'Greeting', namespace: 'default', name: 'hello' });
        return (greeting?.status?.conditions ?? []).find((c) => c.type === 'Ready')?.status === 'True';
      };
      const deadline = Date.now() + 60_000;
      while (!(await ready()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const configMap = await cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'hello-greeting' });
      const wasReady = await ready();
      operator.kill('SIGTERM');
      const code = await exited;
      await served.close();
      console.log(JSON.stringify({ code, output, ready: wasReady, message: configMap?.data?.message ?? null }));
    `,
    );
    const { stdout } = await run(PINNED_NODE, ['greeting-over-http.mjs'], { cwd: consumer, env: userEnv() }).catch(
      (error: { stderr?: string }) => {
        throw new Error(error.stderr ?? String(error));
      },
    );
    const result = JSON.parse(stdout) as { code: number; output: string; ready: boolean; message: string | null };
    expect(result).toMatchObject({ ready: true, message: 'hello, world', code: 0 });
    expect(result.output).toMatch(/^greeting operator started\n[\s\S]*stopped\n$/);
  });

  it.skipIf(OLD_NODE === undefined)(
    `on an older Node first on PATH (${OLD_NODE ?? 'none here'}), npx kreconcile says in one line which Node it needs`,
    async () => {
      // A consumer project has no pinned Node: npx and the bin's shebang run the Node of the PATH.
      const env = { ...userEnv(), PATH: `${dirname(OLD_NODE ?? '')}:${process.env.PATH ?? ''}` };
      const refused = await failure(
        run('npx', ['--no-install', 'kreconcile', 'run', '--kubeconfig', 'kc'], { cwd: consumer, env }),
      );
      expect(refused.stderr).toMatch(
        /^error: kreconcile needs Node >= 22\.19; this is [\d.]+: install Node 22\.19 or later[^\n]*\n$/,
      );
    },
  );

  it('npx kreconcile plan prints the same plan as the repository CLI', async () => {
    const result = await failure(
      npx([
        'plan',
        '-f',
        'examples/webapp/app.yaml',
        '--snapshot',
        'examples/webapp/snapshots/drifted-observed.yaml',
        '--now',
        NOW,
        '--exit-code',
      ]),
    );
    expect(withoutNpmNotices(result.stderr ?? '')).toBe('');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(readFileSync('test/cli/golden/webapp/drifted-observed.txt', 'utf8'));
  });

  it('npx kreconcile validate checks built-in kinds against the schemas it ships', async () => {
    const result = await npx(['validate', '-f', 'examples/webapp/app.yaml']);
    expect(withoutNpmNotices(result.stderr)).toBe('');
    expect(result.stdout).toBe('Application shop/web (examples/webapp/app.yaml, document 1): valid\n');
    const broken = join(consumer, 'broken.yaml');
    writeFileSync(
      broken,
      readFileSync('examples/webapp/app.yaml', 'utf8').replace('        replicas: 3', '        replica: 3'),
    );
    const refused = await failure(npx(['validate', '-f', broken]));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('spec.manifest[1].spec.replica: unknown field of apps/v1 Deployment');
  });

  it('kreconcile run --memory converges the example to Ready and exits 0', async () => {
    const { stdout } = await npx([
      'run',
      '--memory',
      '-f',
      'examples/webapp/app.yaml',
      '--exit-when-converged',
      '--timeout',
      '60s',
      '--log-level',
      'warn',
    ]);
    expect(stdout).toMatch(/shop\/web Ready: 4 resources match the desired state/);
    expect(stdout).toMatch(/converged: every Application is Ready\n$/);
  });

  it('translates TOSCA in its compiled worker thread (only the package runs the worker as JavaScript)', async () => {
    const { stdout } = await npx([
      'run',
      '--memory',
      '-f',
      'examples/tosca/app-inline.yaml',
      '--exit-when-converged',
      '--timeout',
      '60s',
      '--log-level',
      'warn',
    ]);
    expect(stdout).toMatch(/converged: every Application is Ready\n$/);
  });
});

/** Every path under `root` with its modification time: what a run must leave unchanged. */
const treeOf = (root: string): ReadonlyArray<string> =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .map((entry) => join(entry.parentPath, entry.name))
    .map((path) => `${path} ${lstatSync(path).mtimeMs}`)
    .sort();

describe('the operator image (its install stage, run without a container builder)', { timeout: 180_000 }, () => {
  it('runs its entrypoint: the embedded cluster converges, /healthz /readyz /metrics answer, SIGTERM stops it with exit 0, nothing is written to the install', async () => {
    const [program, script] = execForm(instructions(), 'ENTRYPOINT') as [string, string];
    expect(program).toBe('node');
    expect(script.startsWith('/opt/kreconcile/')).toBe(true);
    const before = treeOf(image);
    const scratch = mkdtempSync(join(work, 'tmp-'));
    const examples = join(image, 'examples', 'webapp', 'app.yaml');
    const child = spawn(
      PINNED_NODE,
      [
        join(image, script.slice('/opt/kreconcile/'.length)),
        'run',
        '--memory',
        '-f',
        examples,
        '--listen',
        '127.0.0.1:0',
        '--log-level',
        'warn',
      ],
      { cwd: scratch, env: { ...userEnv(), NODE_ENV: 'production' } },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      const address = await eventually(() => {
        const match = /serving \/healthz \/readyz \/metrics on (127\.0\.0\.1:\d+)/.exec(output);
        if (match === null) throw new Error(`not serving yet: ${output}`);
        return match[1] as string;
      });
      await eventually(() => expect(output).toMatch(/shop\/web Ready:/));
      expect((await fetch(`http://${address}/healthz`)).status).toBe(200);
      expect((await fetch(`http://${address}/readyz`)).status).toBe(200);
      expect(await (await fetch(`http://${address}/metrics`)).text()).toMatch(/^kreconcile_/m);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(output).toMatch(/SIGTERM: shutting down\nstopped\n$/);
    expect(treeOf(image)).toEqual(before);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('holds production dependencies only', () => {
    const installed = readdirSync(join(image, 'node_modules'));
    for (const dev of ['tsx', 'typescript', 'vitest', 'eslint', 'fast-check', 'node'])
      expect(installed).not.toContain(dev);
    expect(installed).toContain('@kubernetes');
  });
});
