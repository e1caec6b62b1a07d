/**
 * The memory cluster's HTTP endpoint on the wire against a real kube-apiserver: the same raw
 * requests (routing edge cases, refused options, malformed bodies) get the same HTTP status and
 * Status reason from both, so clients that talk HTTP cannot tell them apart on these paths.
 * Known, documented differences are listed in `differences` and asserted as differences.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadKubeConfig } from '../../adapters/kubernetes/kube-config.js';
import { createRestClient, type RestClient, type RestRequest } from '../../adapters/kubernetes/rest-client.js';
import { serveMemoryCluster, type ServedCluster } from '../../adapters/memory/http/index.js';
import { createMemoryCluster } from '../../adapters/memory/index.js';
import { describeWithApiServer, uniqueName } from '../support/kubernetes-env.js';

type Outcome = { readonly code: number; readonly tag: string };

const outcome = async (client: RestClient, request: RestRequest): Promise<Outcome> => {
  const answer = await client.send(request)();
  return E.isRight(answer) ? { code: 200, tag: 'ok' } : { code: answer.left.code, tag: answer.left._tag };
};

const clientFor = (source: Parameters<typeof loadKubeConfig>[0]): RestClient => {
  const kubeConfig = loadKubeConfig(source);
  if (E.isLeft(kubeConfig)) throw new Error(kubeConfig.left);
  return createRestClient(kubeConfig.right, 10_000);
};

describeWithApiServer('memory cluster over HTTP vs kube-apiserver on the wire', (env) => {
  const namespace = uniqueName('kr-wire');
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });
  const base = `/api/v1/namespaces/${namespace}/configmaps`;
  let real: RestClient;
  let memory: RestClient;
  let served: ServedCluster;

  beforeAll(async () => {
    real = clientFor({ kubeconfigPath: env.kubeconfigPath });
    served = await serveMemoryCluster(createMemoryCluster());
    memory = clientFor({ kubeconfigYaml: served.kubeconfig });
    for (const client of [real, memory]) {
      expect(
        await outcome(client, {
          method: 'POST',
          path: '/api/v1/namespaces',
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
        }),
      ).toEqual({ code: 200, tag: 'ok' });
      expect(await outcome(client, { method: 'POST', path: base, body: cm('there') })).toEqual({
        code: 200,
        tag: 'ok',
      });
    }
  });
  afterAll(async () => {
    await real.send({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` })();
    await served.close();
  });

  const same: ReadonlyArray<readonly [string, RestRequest]> = [
    [
      'a strategic merge patch with a list on a built-in kind',
      {
        method: 'PATCH',
        path: `${base}/there`,
        contentType: 'application/strategic-merge-patch+json',
        body: { metadata: { finalizers: [] }, data: { c: '3' } },
      },
    ],
    ['a missing object', { method: 'GET', path: `${base}/missing` }],
    ['an object of a namespaced kind outside a namespace', { method: 'GET', path: '/api/v1/configmaps/there' }],
    [
      'create of a namespaced kind outside a namespace',
      { method: 'POST', path: '/api/v1/configmaps', body: cm('nowhere') },
    ],
    ['an unknown subresource', { method: 'GET', path: `${base}/there/scale` }],
    ['/status of a kind without status subresource', { method: 'GET', path: `${base}/there/status` }],
    ['an unknown group/version', { method: 'GET', path: '/apis/nope.example/v1' }],
    [
      'a namespaced path for a cluster-scoped kind',
      { method: 'GET', path: `/api/v1/namespaces/${namespace}/namespaces/x` },
    ],
    ['create of an existing name', { method: 'POST', path: base, body: cm('there') }],
    [
      "a body namespace other than the URL's",
      { method: 'POST', path: base, body: { ...cm('x'), metadata: { name: 'x', namespace: 'default' } } },
    ],
    [
      "a body kind other than the URL's",
      { method: 'POST', path: base, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } } },
    ],
    ["a body name other than the URL's", { method: 'PUT', path: `${base}/there`, body: cm('other') }],
    ['an invalid name', { method: 'POST', path: base, body: cm('Not_Valid') }],
    ['update of a missing object', { method: 'PUT', path: `${base}/missing`, body: cm('missing') }],
    [
      'a stale resourceVersion',
      {
        method: 'PUT',
        path: `${base}/there`,
        body: { ...cm('there'), metadata: { name: 'there', resourceVersion: '1' } },
      },
    ],
    ['an unsupported field selector', { method: 'GET', path: base, query: { fieldSelector: 'status.phase=Running' } }],
    ['a malformed label selector', { method: 'GET', path: base, query: { labelSelector: 'a in (' } }],
    ['a field selector on the name', { method: 'GET', path: base, query: { fieldSelector: 'metadata.name=there' } }],
    ['a malformed continue token', { method: 'GET', path: base, query: { continue: 'garbage' } }],
    [
      'force on a merge patch',
      {
        method: 'PATCH',
        path: `${base}/there`,
        query: { force: 'true' },
        contentType: 'application/merge-patch+json',
        body: { data: { b: '2' } },
      },
    ],
    [
      'apply without fieldManager',
      { method: 'PATCH', path: `${base}/there`, contentType: 'application/apply-patch+yaml', body: cm('there') },
    ],
    [
      'a JSON patch that is not a list',
      { method: 'PATCH', path: `${base}/there`, contentType: 'application/json-patch+json', body: { op: 'add' } },
    ],
    [
      'a patch of a missing object',
      { method: 'PATCH', path: `${base}/missing`, contentType: 'application/merge-patch+json', body: { data: {} } },
    ],
    ['an unknown patch content type', { method: 'PATCH', path: `${base}/there`, contentType: 'text/plain', body: {} }],
    [
      'an unsupported propagation policy',
      { method: 'DELETE', path: `${base}/there`, query: { propagationPolicy: 'Sideways' } },
    ],
    ['delete of a missing object', { method: 'DELETE', path: `${base}/missing` }],
    ['an unsupported dryRun value', { method: 'POST', path: base, query: { dryRun: 'Some' }, body: cm('dry') }],
  ];

  for (const [what, request] of same) {
    it(`same answer: ${what}`, async () => {
      expect(await outcome(memory, request)).toEqual(await outcome(real, request));
    });
  }

  it("discovery: every resource the memory endpoint lists (plural, kind, scope, /status) is the real server's", async () => {
    const groups = await real.send({ method: 'GET', path: '/apis' })();
    const memoryGroups = await memory.send({ method: 'GET', path: '/apis' })();
    if (E.isLeft(groups) || E.isLeft(memoryGroups)) throw new Error('discovery failed');
    const versions = (value: unknown): string[] =>
      (value as { groups: Array<{ versions: Array<{ groupVersion: string }> }> }).groups.flatMap((g) =>
        g.versions.map((v) => v.groupVersion),
      );
    const realVersions = new Set(versions(groups.right));
    // kreconcile's own Application is a CRD on a real server (not installed there).
    const shared = ['v1', ...versions(memoryGroups.right).filter((v) => !v.startsWith('kreconcile.io/'))];
    expect(shared.filter((v) => v !== 'v1' && !realVersions.has(v))).toEqual([]);
    type Entry = { name: string; kind: string; namespaced: boolean };
    const entries = async (client: RestClient, groupVersion: string): Promise<Entry[]> => {
      const list = await client.send({
        method: 'GET',
        path: groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`,
      })();
      if (E.isLeft(list)) throw new Error(`${groupVersion}: ${list.left.message}`);
      return (list.right as { resources: Entry[] }).resources.map(({ name, kind, namespaced }) => ({
        name,
        kind,
        namespaced,
      }));
    };
    let compared = 0;
    for (const groupVersion of shared) {
      const realEntries = await entries(real, groupVersion);
      const memoryEntries = await entries(memory, groupVersion);
      compared += memoryEntries.length;
      const missing = memoryEntries.filter(
        (m) => !realEntries.some((r) => r.name === m.name && r.kind === m.kind && r.namespaced === m.namespaced),
      );
      expect({ groupVersion, missing }).toEqual({ groupVersion, missing: [] });
    }
    // not vacuous: the built-in table's group/versions and resources (with /status entries) were all compared
    expect(shared.length).toBeGreaterThan(15);
    expect(compared).toBeGreaterThan(60);
  });

  // Documented in docs/testing.md ("What it does not serve"); none on these paths today.
  const differences: ReadonlyArray<readonly [string, RestRequest, Outcome]> = [];
  for (const [what, request, expected] of differences) {
    it(`known difference: ${what}`, async () => {
      expect(await outcome(real, request)).toEqual({ code: 200, tag: 'ok' });
      expect(await outcome(memory, request)).toEqual(expected);
    });
  }
});
