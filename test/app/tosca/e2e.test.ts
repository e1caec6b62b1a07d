/**
 * End to end on the in-memory API server: an Application defined only by a CSAR served from a
 * loopback HTTP server reconciles to the same children as the equivalent manifest; the
 * translation never writes spec; a broken template stalls with reason InvalidTosca.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resource } from '../../../core/internal.js';
import { applicationOf, getApplication, reconcileUntilQuiet, world, type World } from '../hooks/support.js';
import { body, serve, status, type Loopback } from './loopback.js';
import { csarOf, WEB_CSAR, WEB_MANIFEST, WEB_TEMPLATE } from './templates.js';

let server: Loopback;
beforeAll(async () => {
  server = await serve({
    '/web.csar': body(WEB_CSAR(), 'application/zip'),
    '/web.yaml': body(WEB_TEMPLATE, 'application/yaml'),
    '/no-meta.csar': body(csarOf({ 'Definitions/web.yaml': WEB_TEMPLATE })),
    '/unsupported.yaml': body('topology_template:\n  node_templates:\n    vm:\n      type: tosca.nodes.Compute\n'),
    '/down.csar': status(503),
  });
});
afterAll(async () => {
  await server.close();
});

const VOLATILE = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation']);

/** The Application's children, without what the server generates (uids, versions, times). */
const children = (w: World): ReadonlyArray<unknown> =>
  w.cluster
    .objects()
    .filter((object) => object.metadata.annotations?.['kreconcile.io/owner'] === 'default/web')
    .map((object) => ({
      ...object,
      metadata: {
        ...Object.fromEntries(Object.entries(object.metadata).filter(([key]) => !VOLATILE.has(key))),
        ownerReferences: (object.metadata.ownerReferences ?? []).map(({ uid: _uid, ...rest }) => rest),
      },
    }))
    .sort((a, b) =>
      `${a.kind}/${String((a.metadata as Record<string, unknown>).name)}`.localeCompare(
        `${b.kind}/${String((b.metadata as Record<string, unknown>).name)}`,
      ),
    );

const reconciled = async (spec: Record<string, unknown>): Promise<World> => {
  const w = world();
  await w.cluster.create(applicationOf('default', 'web', spec))();
  await reconcileUntilQuiet(w, 'default', 'web');
  return w;
};

describe('TOSCA and CSAR, end to end', () => {
  it('a CSAR from a loopback HTTP server reconciles to the same children as the equivalent manifest', async () => {
    const fromManifest = await reconciled({ manifest: WEB_MANIFEST });
    const fromCsar = await reconciled({ csar: server.url('/web.csar'), toscaInputs: { replicas: 3 } });
    expect(children(fromManifest)).toHaveLength(2);
    expect(children(fromCsar)).toEqual(children(fromManifest));
    const status = (await getApplication(fromCsar, 'default', 'web'))?.status;
    expect(status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(status?.mangledObserverSchema).toEqual(
      (await getApplication(fromManifest, 'default', 'web'))?.status?.mangledObserverSchema,
    );
  });

  it('never writes spec: the Application keeps only its csar and inputs', async () => {
    const w = await reconciled({ csar: server.url('/web.csar'), toscaInputs: { replicas: 3 } });
    expect((await getApplication(w, 'default', 'web'))?.spec).toEqual({
      csar: server.url('/web.csar'),
      toscaInputs: { replicas: 3 },
    });
  });

  it('a template by URL and an inline template work the same way; drift in a translated resource is corrected', async () => {
    const byUrl = await reconciled({ tosca: server.url('/web.yaml'), toscaInputs: { replicas: 3 } });
    const fromManifest = await reconciled({ manifest: WEB_MANIFEST });
    expect(children(byUrl)).toEqual(children(fromManifest));
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' };
    await byUrl.cluster.patch(ref, { type: 'merge', body: { spec: { replicas: 7 } } })();
    await reconcileUntilQuiet(byUrl, 'default', 'web');
    expect(
      (byUrl.cluster.objects().find((o) => o.kind === 'Deployment') as Resource & { spec: { replicas: number } }).spec
        .replicas,
    ).toBe(3);
  });

  it.each([
    ['/no-meta.csar', 'csar', 'no TOSCA-Metadata/TOSCA.meta in the archive'],
    [
      '/unsupported.yaml',
      'tosca',
      'topology_template.node_templates.vm.type: unsupported node type "tosca.nodes.Compute"',
    ],
    ['/down.csar', 'csar', 'HTTP 503'],
  ])(
    'a broken source (%s) stalls with reason InvalidTosca and a message naming it; nothing is created',
    async (path, field, message) => {
      const w = await reconciled({ [field]: server.url(path) });
      const stalled = (await getApplication(w, 'default', 'web'))?.status?.conditions?.find(
        (c) => c.type === 'Stalled',
      );
      expect(stalled).toMatchObject({ status: 'True', reason: 'InvalidTosca' });
      expect(stalled?.message).toContain(server.url(path));
      expect(stalled?.message).toContain(message);
      expect(children(w)).toEqual([]);
    },
  );

  it('an inline template with hooks: translated resources get the hook env entries too', async () => {
    const { parse } = await import('yaml');
    const w = await reconciled({ tosca: parse(WEB_TEMPLATE), toscaInputs: { replicas: 3 }, hooks: ['complete'] });
    const deployment = w.cluster.objects().find((o) => o.kind === 'Deployment') as Resource & {
      spec: { template: { spec: { containers: Array<{ env?: Array<{ name: string }> }> } } };
    };
    expect(deployment.spec.template.spec.containers[0]?.env?.map((e) => e.name)).toEqual([
      'KRECONCILE_COMPLETE_TOKEN',
      'KRECONCILE_COMPLETE_URL',
    ]);
    expect(
      w.cluster.objects().some((o) => o.kind === 'Secret' && o.metadata.name === 'web.default.kreconcile-hooks'),
    ).toBe(true);
  });
});
