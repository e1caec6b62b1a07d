/**
 * The plan shows the apply mode (issue 13, item 3): in ServerSideApply mode each patch says so in
 * text and carries `applyMode`/`forceConflicts` in JSON (valid against docs/plan-output.schema.json);
 * JsonPatch plans print exactly as before (no mode field, no annotation); a patch sent as JSON Patch
 * in that mode (list names off position) says so and names the lists.
 */
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import { runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const configMap = (color: string, extra: object = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'shop', ...extra },
  data: { COLOR: color },
});

const app = (spec: object) =>
  JSON.stringify({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace: 'shop', finalizers: ['kreconcile.io/cleanup'] },
    spec: { manifest: [configMap('blue')], ...spec },
  });

// The ConfigMap as the cluster holds it: created by this Application, drifted to red.
const LIVE = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    configMap('red', {
      uid: 'c-1',
      resourceVersion: '42',
      labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
      annotations: { 'kreconcile.io/owner': 'shop/web' },
    }),
  ],
});

const planOf = (spec: object, output: ReadonlyArray<string> = []) =>
  runCli(['plan', '-f', 'app.json', '--snapshot', 'live.json', '--now', NOW, ...output], {
    files: { 'app.json': app(spec), 'live.json': LIVE },
  });

// A Deployment of this Application whose containers another actor swapped; the schema observes images by position.
const deployment = (containers: ReadonlyArray<object>, extra: object = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'api', namespace: 'shop', ...extra },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'api' } },
    template: { metadata: { labels: { app: 'api' } }, spec: { containers } },
  },
});
const SWAPPED = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    deployment(
      [
        { name: 'log', image: 'fluent-bit:3' },
        { name: 'api', image: 'api:1' },
      ],
      {
        uid: 'd-1',
        resourceVersion: '43',
        labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
        annotations: { 'kreconcile.io/owner': 'shop/web' },
      },
    ),
  ],
});
const swappedSpec = {
  applyMode: 'ServerSideApply',
  manifest: [
    deployment([
      { name: 'api', image: 'api:2' },
      { name: 'log', image: 'fluent-bit:3' },
    ]),
  ],
  observerSchema: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api' },
      spec: {
        template: {
          spec: {
            containers: [
              { image: null },
              { image: null },
              { observer_schema_list_min_length: 2, observer_schema_list_max_length: 2 },
            ],
          },
        },
      },
    },
  ],
};
const planSwapped = (output: ReadonlyArray<string> = []) =>
  runCli(['plan', '-f', 'app.json', '--snapshot', 'live.json', '--now', NOW, ...output], {
    files: { 'app.json': app(swappedSpec), 'live.json': SWAPPED },
  });

const validate = new Ajv({ allErrors: true }).compile(
  JSON.parse(readFileSync('docs/plan-output.schema.json', 'utf8')) as object,
);

describe('plan output of the apply mode', () => {
  it('text: a server-side apply patch says so (and when it forces); a JSON Patch does not', async () => {
    const ssa = await planOf({ applyMode: 'ServerSideApply' });
    expect(ssa).toMatchObject({ code: 0, stderr: '' });
    expect(ssa.stdout).toContain('  ~ v1 ConfigMap shop/settings (server-side apply)\n');
    const forced = await planOf({ applyMode: 'ServerSideApply', forceConflicts: true });
    expect(forced.stdout).toContain('  ~ v1 ConfigMap shop/settings (server-side apply, forcing conflicts)\n');
    const jsonPatch = await planOf({});
    expect(jsonPatch.stdout).toContain('  ~ v1 ConfigMap shop/settings\n');
    expect(jsonPatch.stdout).not.toContain('server-side apply');
    // Same plan otherwise: only the mode annotation differs.
    expect(ssa.stdout.replace(' (server-side apply)', '')).toBe(jsonPatch.stdout);
  });

  it('JSON: applyMode and forceConflicts on the patch in ServerSideApply mode only, valid against the schema', async () => {
    const documentOf = async (spec: object): Promise<PlanDocumentV1> => {
      const result = await planOf(spec, ['-o', 'json']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      const document = JSON.parse(result.stdout) as PlanDocumentV1;
      expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
      return document;
    };
    const patchIn = (document: PlanDocumentV1) =>
      document.applications[0]?.actions.find((action) => action.type === 'patch');
    expect(patchIn(await documentOf({ applyMode: 'ServerSideApply', forceConflicts: true }))).toMatchObject({
      applyMode: 'ServerSideApply',
      forceConflicts: true,
    });
    expect(patchIn(await documentOf({ applyMode: 'ServerSideApply' }))).toMatchObject({
      applyMode: 'ServerSideApply',
      forceConflicts: false,
    });
    const plain = patchIn(await documentOf({}));
    expect(plain?.type).toBe('patch');
    expect(plain !== undefined && 'applyMode' in plain).toBe(false);
  });

  it('names off position: the patch says it is sent as JSON Patch and names the list, in text and JSON', async () => {
    const text = await planSwapped();
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toContain(
      '  ~ apps/v1 Deployment shop/api (JSON Patch, not server-side apply: live names off the observed positions in spec.template.spec.containers)\n',
    );
    const json = await planSwapped(['-o', 'json']);
    const document = JSON.parse(json.stdout) as PlanDocumentV1;
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    const patch = document.applications[0]?.actions.find((action) => action.type === 'patch');
    expect(patch).toMatchObject({ applyMode: 'JsonPatch', positionalLists: ['spec.template.spec.containers'] });
    expect(patch !== undefined && 'forceConflicts' in patch).toBe(false);
  });
});
