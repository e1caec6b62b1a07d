/** The examples in examples/hooks and examples/tosca reconcile as their comments say. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resource } from '../../../core/internal.js';
import { body, serve, type Loopback } from '../tosca/loopback.js';
import { get, getApplication, reconcileUntilQuiet, world, type World } from './support.js';

const load = (path: string): Resource => parse(readFileSync(path, 'utf8')) as Resource;

const reconciled = async (application: Resource): Promise<World> => {
  const w = world();
  const namespace = application.metadata.namespace as string;
  await w.cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })();
  await w.cluster.create(application)();
  await reconcileUntilQuiet(w, namespace, application.metadata.name);
  return w;
};

const ready = async (w: World, application: Resource): Promise<boolean> =>
  (
    await getApplication(w, application.metadata.namespace as string, application.metadata.name)
  )?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

describe('examples/hooks', () => {
  it.each(['complete', 'shutdown'])('%s.yaml converges with its hook Secret and env entries', async (name) => {
    const application = load(`examples/hooks/${name}.yaml`);
    const w = await reconciled(application);
    expect(await ready(w, application)).toBe(true);
    const { namespace, name: appName } = application.metadata as { namespace: string; name: string };
    const secret = await get(w, {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace,
      name: `${appName}.${namespace}.kreconcile-hooks`,
    });
    expect(Object.keys(secret?.data as object).sort()).toEqual([`${name}-token`, `${name}-url`]);
    const names = JSON.stringify(w.cluster.objects().filter((o) => o.kind === 'Job' || o.kind === 'Deployment'));
    expect(names).toContain(`KRECONCILE_${name.toUpperCase()}_TOKEN`);
  });
});

describe('examples/tosca', () => {
  let server: Loopback;
  const zipDirectory = (dir: string): Uint8Array => {
    const files: Record<string, Uint8Array> = {};
    const walk = (path: string): void => {
      for (const entry of readdirSync(path)) {
        const full = join(path, entry);
        if (statSync(full).isDirectory()) walk(full);
        else files[relative(dir, full)] = readFileSync(full);
      }
    };
    walk(dir);
    return zipSync(files);
  };
  beforeAll(async () => {
    server = await serve({ '/web.csar': body(zipDirectory('examples/tosca/csar')) });
  });
  afterAll(async () => {
    await server.close();
  });

  const children = (w: World) =>
    w.cluster
      .objects()
      .filter((o) => o.metadata.annotations?.['kreconcile.io/owner'] === 'shop/web')
      .map((o) => ({ kind: o.kind, name: o.metadata.name, spec: o.spec, data: o.data }))
      .sort((a, b) => `${a.kind}${a.name}`.localeCompare(`${b.kind}${b.name}`));

  it('app-inline.yaml converges to a ConfigMap, a Deployment and a Service, inputs applied', async () => {
    const application = load('examples/tosca/app-inline.yaml');
    const w = await reconciled(application);
    expect(await ready(w, application)).toBe(true);
    expect(children(w).map((c) => c.kind)).toEqual(['ConfigMap', 'Deployment', 'Service']);
    expect(children(w)[0]?.data).toEqual({ GREETING: 'welcome, shop.example.com' });
    expect((children(w)[1]?.spec as { replicas: number }).replicas).toBe(3);
  });

  it('app-csar.yaml (csar/ zipped and served) gives the same children as app-inline.yaml', async () => {
    const csarApp = load('examples/tosca/app-csar.yaml');
    const served = { ...csarApp, spec: { ...(csarApp.spec as object), csar: server.url('/web.csar') } } as Resource;
    const fromCsar = await reconciled(served);
    const inline = await reconciled(load('examples/tosca/app-inline.yaml'));
    expect(children(fromCsar)).toEqual(children(inline));
  });

  it('csar/Definitions/web.yaml is template.yaml', () => {
    expect(readFileSync('examples/tosca/csar/Definitions/web.yaml', 'utf8')).toBe(
      readFileSync('examples/tosca/template.yaml', 'utf8'),
    );
  });
});
