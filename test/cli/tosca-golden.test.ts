/**
 * Every example of examples/tosca plans, in golden text and JSON: inline, by URL and as a CSAR.
 * The URLs the examples name are served by a stand-in network (the real fetcher's bounds and
 * address policy are tested against a loopback server in tosca-fetch.test.ts); the CLI's own
 * rules (no fetch without --allow-tosca-fetch, no http without --tosca-allow-http) apply before it.
 */
import { Ajv } from 'ajv';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ActionV1, PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import { expectGolden } from './support/golden.js';
import { runCli, type RunOptions } from './support/run-cli.js';
import { csarOfDirectory, standInNetwork } from './support/tosca.js';

const DIR = 'examples/tosca';
const NOW = '2026-03-02T12:00:00Z';

/**
 * What the examples' URLs serve: the template next to them, and their csar/ directory zipped (as their comments say).
 */
const network = () =>
  standInNetwork({
    'https://templates.example.com/shop/web.yaml': new Uint8Array(readFileSync(`${DIR}/template.yaml`)),
    'http://127.0.0.1:8000/web.csar': csarOfDirectory(`${DIR}/csar`),
  });

/** Each example Application, with the flags that let the CLI read its template (as `kreconcile run` needs them). */
const EXAMPLES: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
  ['app-inline', [], 'welcome'],
  ['app-url', ['--allow-tosca-fetch'], 'hello'],
  ['app-csar', ['--allow-tosca-fetch', '--tosca-allow-http', '--tosca-allow-host', '127.0.0.1'], 'welcome'],
];

const planOf = async (name: string, flags: ReadonlyArray<string>, output: 'text' | 'json', options: RunOptions = {}) =>
  runCli(['plan', '-f', `${DIR}/${name}.yaml`, ...flags, '--now', NOW, '-o', output], {
    toscaFetcher: network().toscaFetcher,
    ...options,
  });

const schema = JSON.parse(readFileSync('docs/plan-output.schema.json', 'utf8')) as object;
const validPlan = new Ajv({ allErrors: true }).compile(schema);

const creates = (document: PlanDocumentV1): ReadonlyArray<Extract<ActionV1, { type: 'create' }>> =>
  (document.applications[0]?.actions ?? []).filter(
    (action): action is Extract<ActionV1, { type: 'create' }> => action.type === 'create',
  );

describe('kreconcile plan on examples/tosca', () => {
  it('covers every example Application in examples/tosca', () => {
    const examples = readdirSync(DIR)
      .filter((name) => name.startsWith('app-') && name.endsWith('.yaml'))
      .map((name) => name.replace(/\.yaml$/, ''));
    expect([...examples].sort()).toEqual(EXAMPLES.map(([name]) => name).sort());
  });

  describe.each(EXAMPLES)('%s', (name, flags, greeting) => {
    it('prints the golden text plan, the translated resources under the Application, and exits 0', async () => {
      const result = await planOf(name, flags, 'text');
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expectGolden(`test/cli/golden/tosca/${name}.txt`, result.stdout);
      expect(result.stdout).toContain('→ v1 ConfigMap web-config, apps/v1 Deployment web, v1 Service web');
      expect(result.stdout).toContain('Plan: 3 to create, 0 to patch, 0 to delete.');
    });

    it('prints the golden JSON plan, valid against the published schema, with the inputs applied', async () => {
      const result = await planOf(name, flags, 'json');
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expectGolden(`test/cli/golden/tosca/${name}.json`, result.stdout);
      const document = JSON.parse(result.stdout) as PlanDocumentV1;
      expect(validPlan(document) ? '' : JSON.stringify(validPlan.errors)).toBe('');
      const bodies = Object.fromEntries(creates(document).map((c) => [c.resource.kind, c.body]));
      // toscaInputs: replicas 3 (and greeting "welcome" where given) override the template's defaults (2, hello).
      expect(bodies.Deployment).toMatchObject({ metadata: { namespace: 'shop' }, spec: { replicas: 3 } });
      expect(bodies.ConfigMap).toMatchObject({ data: { GREETING: `${greeting}, shop.example.com` } });
      expect(bodies.Service).toMatchObject({ spec: { ports: [{ port: 80, targetPort: 8080 }] } });
      expect(document.applications[0]?.translated?.resources.map((r) => r.kind)).toEqual([
        'ConfigMap',
        'Deployment',
        'Service',
      ]);
    });

    it('validates', async () => {
      const result = await runCli(['validate', '-f', `${DIR}/${name}.yaml`, ...flags], {
        toscaFetcher: network().toscaFetcher,
      });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Application shop\/web \(.*\): valid, translated from .* into 3 resources\n$/);
    });
  });

  it('plans the same actions from the inline template and the CSAR (same inputs), the same Deployment by URL', async () => {
    const [inline, url, csar] = await Promise.all(
      EXAMPLES.map(async ([name, flags]) => {
        const document = JSON.parse((await planOf(name, flags, 'json')).stdout) as PlanDocumentV1;
        return document.applications[0]?.actions ?? [];
      }),
    );
    expect(csar).toEqual(inline);
    const deployment = (actions: ReadonlyArray<ActionV1> | undefined) =>
      actions?.find((action) => action.resource.kind === 'Deployment');
    expect(deployment(url)).toEqual(deployment(inline));
  });

  it.each([
    ['app-url', [], 'https://templates.example.com/shop/web.yaml', '--allow-tosca-fetch'],
    ['app-csar', [], 'http://127.0.0.1:8000/web.csar', '--allow-tosca-fetch'],
    ['app-csar', ['--allow-tosca-fetch'], 'http://127.0.0.1:8000/web.csar', '--tosca-allow-http'],
  ] as const)('%s %j: fetches nothing and names the flag %s needs', async (name, flags, url, flag) => {
    const stand = network();
    const result = await planOf(name, flags, 'text', { toscaFetcher: stand.toscaFetcher });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^error: ${DIR}/${name}\\.yaml:\\d+:\\d+: document 1 \\(Application shop/web\\): `),
    );
    expect(lines[0]).toContain(`(${url})`);
    expect(lines[0]).toContain(flag);
    expect(stand.requested).toEqual([]);
  });

  it('fetches under the flags given: http and the loopback host allowed, files nowhere', async () => {
    const stand = network();
    await planOf('app-csar', EXAMPLES[2]![1], 'text', { toscaFetcher: stand.toscaFetcher });
    expect(stand.options).toMatchObject([{ allowHttp: true, allowHosts: ['127.0.0.1'], fileRoots: [] }]);
    expect(stand.requested).toEqual(['http://127.0.0.1:8000/web.csar']);
  });

  it('refuses --tosca-allow-http and --tosca-allow-host without --allow-tosca-fetch (they would do nothing)', async () => {
    for (const flags of [['--tosca-allow-http'], ['--tosca-allow-host', '10.0.0.0/8']]) {
      const result = await planOf('app-inline', flags, 'text');
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: --tosca-allow-(http|host) .*add --allow-tosca-fetch/);
    }
  });
});

describe('docs/cli.md shows real TOSCA output', () => {
  const docs = (): string => readFileSync('docs/cli.md', 'utf8');

  it('the text plan of the CSAR example, up to its first creation', () => {
    const golden = readFileSync('test/cli/golden/tosca/app-csar.txt', 'utf8').split('\n').slice(0, 4).join('\n');
    expect(docs()).toContain(golden);
  });

  it('the error without --allow-tosca-fetch', async () => {
    const result = await planOf('app-url', [], 'text');
    expect(docs()).toContain(result.stderr.trimEnd());
  });

  it('the error of a Krake case', () => {
    const line = readFileSync('test/cli/golden/tosca-krake/invalid.txt', 'utf8')
      .split('\n')
      .find((l) => l.includes('unsupported function'));
    expect(line).toBeDefined();
    expect(docs()).toContain(line);
  });
});
