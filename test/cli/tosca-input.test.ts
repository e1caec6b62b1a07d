/**
 * Where TOSCA Applications are loaded (app/cli/input/tosca.ts): which templates each command
 * translates, that the translation stays beside the Application, one error line per problem of a
 * fetched template, and the commands other than plan that read by the translation (snapshot).
 */
import { strToU8, zipSync } from 'fflate';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { readManifestInputs } from '../../app/cli/input/manifest-inputs.js';
import { toscaAccessOf } from '../../app/cli/input/tosca.js';
import type { Resource } from '../../core/internal.js';
import { fakeCluster } from './support/fake-cluster.js';
import { runCli, testIo } from './support/run-cli.js';
import { standInNetwork } from './support/tosca.js';

const read = (files: ReadonlyArray<string>, fetcher = standInNetwork({})) =>
  readManifestInputs(testIo({ toscaFetcher: fetcher.toscaFetcher }).io, {
    filename: files,
    namespace: 'default',
  });

describe('loading Applications without TOSCA access (kreconcile run --memory)', () => {
  it('translates an inline template beside the Application, its spec untouched', async () => {
    const inputs = await read(['examples/tosca/app-inline.yaml']);
    const [input] = E.isRight(inputs) ? inputs.right.applications : [];
    expect(input?.translated?.map((r) => `${r.kind}/${r.metadata.name}`)).toEqual([
      'ConfigMap/web-config',
      'Deployment/web',
      'Service/web',
    ]);
    expect(input?.application.spec.manifest).toBeUndefined();
  });

  it.each(['examples/tosca/app-url.yaml', 'examples/tosca/app-csar.yaml'])(
    'leaves a template by URL to the operator: no error, no fetch, no translation (%s)',
    async (file) => {
      const network = standInNetwork({});
      const inputs = await read([file], network);
      expect(E.isRight(inputs) ? inputs.right.applications.map((a) => a.translated) : inputs.left).toEqual([undefined]);
      expect(network.requested).toEqual([]);
    },
  );
});

describe('toscaAccessOf', () => {
  it('needs --allow-tosca-fetch for the flags that loosen fetching, not for file roots', () => {
    const flags = { toscaFileRoot: [], toscaAllowHost: [] };
    expect(toscaAccessOf({ ...flags, toscaAllowHttp: true })).toEqual(
      E.left(expect.stringContaining('--allow-tosca-fetch')),
    );
    expect(toscaAccessOf({ ...flags, toscaAllowHost: ['10.0.0.0/8'] })).toEqual(
      E.left(expect.stringContaining('--tosca-allow-host')),
    );
    expect(toscaAccessOf({ ...flags, allowToscaFetch: true, toscaAllowHost: ['10.0.0.0/33'] })).toEqual(
      E.left('--tosca-allow-host 10.0.0.0/33: the prefix length must be 0 to 32'),
    );
    expect(toscaAccessOf({ ...flags, toscaFileRoot: ['templates'] })).toEqual(
      E.right({ fetch: false, fileRoots: ['templates'], allowHttp: false, allowHosts: [] }),
    );
  });
});

describe('bad TOSCA flags', () => {
  it('an allowed host that is none is one usage line, not an internal error', async () => {
    const result = await runCli([
      'plan',
      '-f',
      'examples/tosca/app-url.yaml',
      '--allow-tosca-fetch',
      '--tosca-allow-host',
      'bad host!',
    ]);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(
      'error: --tosca-allow-host bad host!: expected a host name, an IP address or a CIDR network such as 10.0.0.0/8\n',
    );
  });
});

describe('a fetched template with several problems', () => {
  const template = `tosca_definitions_version: tosca_simple_yaml_1_0
topology_template:
  node_templates:
    web:
      type: tosca.nodes.indigo.KubernetesObject
      properties:
        spec: ""
    db:
      type: tosca.nodes.Compute
`;
  const csar = zipSync({
    'TOSCA-Metadata/TOSCA.meta': strToU8('Entry-Definitions: Definitions/app.yaml\n'),
    'Definitions/app.yaml': strToU8(template),
  });

  it('gives one error line per problem, each at spec.csar and naming the archive entry', async () => {
    const network = standInNetwork({ 'https://templates.example.com/app.csar': csar });
    const app = [
      'apiVersion: kreconcile.io/v1alpha1',
      'kind: Application',
      'metadata: { name: web, namespace: shop }',
      'spec:',
      '  csar: https://templates.example.com/app.csar',
    ].join('\n');
    const result = await runCli(['validate', '-f', 'app.yaml', '--allow-tosca-fetch'], {
      files: { 'app.yaml': app },
      toscaFetcher: network.toscaFetcher,
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines)
      expect(line).toMatch(
        /^error: app\.yaml:5:3: document 1 \(Application shop\/web\): spec\.csar \(https:\/\/templates\.example\.com\/app\.csar\) Definitions\/app\.yaml\.topology_template\.node_templates\.(web|db)/,
      );
    expect(lines.join('\n')).toContain('empty spec');
    expect(lines.join('\n')).toContain('unsupported node type "tosca.nodes.Compute"');
  });
});

describe('kreconcile snapshot of a TOSCA Application', () => {
  it("records the live objects its translation names (the template's ConfigMap, Deployment, Service)", async () => {
    const object = (apiVersion: string, kind: string, name: string): Resource => ({
      apiVersion,
      kind,
      metadata: { name, namespace: 'shop', uid: `uid-${name}-${kind}`, resourceVersion: '1' },
    });
    const live = [
      object('v1', 'ConfigMap', 'web-config'),
      object('apps/v1', 'Deployment', 'web'),
      object('v1', 'Service', 'web'),
      object('v1', 'ConfigMap', 'unrelated'),
    ];
    const result = await runCli(['snapshot', '-f', 'examples/tosca/app-inline.yaml', '-o', 'json'], {
      connect: async () => fakeCluster(live),
    });
    expect(result.stderr).toBe('');
    const items = (JSON.parse(result.stdout) as { items: ReadonlyArray<Resource> }).items;
    expect(items.map((item) => `${item.kind}/${item.metadata.name}`).sort()).toEqual([
      'ConfigMap/web-config',
      'Deployment/web',
      'Service/web',
    ]);
  });
});
