/**
 * Every plan format shows a recreation (issue 13, item 5): text (`-/+`, the immutable fields, the
 * field changes), JSON (golden, valid against docs/plan-output.schema.json) and the same as YAML.
 */
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const deployment = (app: string, extra: object = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', annotations: { 'kreconcile.io/recreate': 'true' }, ...extra },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app } },
    template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
  },
});

const APP = JSON.stringify({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { manifest: [deployment('web-v2')] },
});

// The Deployment as the cluster holds it: created by this Application with the old selector.
const LIVE = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    deployment('web-v1', {
      uid: 'd-1',
      resourceVersion: '42',
      generation: 1,
      labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
      annotations: { 'kreconcile.io/recreate': 'true', 'kreconcile.io/owner': 'shop/web' },
    }),
  ],
});

const files = { 'app.json': APP, 'live.json': LIVE };
const planArgs = ['plan', '-f', 'app.json', '--snapshot', 'live.json', '--now', NOW];

describe('plan output of a recreation', () => {
  it('text: -/+ with the immutable field and the field changes; the summary counts it', async () => {
    const result = await runCli(planArgs, { files });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expectGolden('test/cli/golden/recreate/recreate.txt', result.stdout);
    expect(result.stdout).toContain(
      '  -/+ apps/v1 Deployment shop/web (recreate: spec.selector cannot change in place)',
    );
    expect(result.stdout).toContain('Plan: 0 to create, 0 to patch, 0 to delete, 1 to recreate.');
  });

  it('JSON (valid against the published schema) and YAML', async () => {
    const json = await runCli([...planArgs, '-o', 'json'], { files });
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expectGolden('test/cli/golden/recreate/recreate.json', json.stdout);
    const document = JSON.parse(json.stdout) as PlanDocumentV1;
    const validate = new Ajv({ allErrors: true }).compile(
      JSON.parse(readFileSync('docs/plan-output.schema.json', 'utf8')) as object,
    );
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    expect(document.applications[0]?.actions.map((a) => a.type)).toEqual(['addFinalizer', 'recreate']);
    expect(document.summary).toEqual({ create: 0, patch: 0, delete: 0, conflict: 0, recreate: 1, changes: true });
    expect(document.applications[0]?.result).toBe('Changes');
    const yaml = await runCli([...planArgs, '-o', 'yaml'], { files });
    expect(parse(yaml.stdout)).toEqual(document);
  });

  it('--exit-code reports a recreation as a change', async () => {
    expect((await runCli([...planArgs, '--exit-code'], { files })).code).toBe(2);
  });
});
