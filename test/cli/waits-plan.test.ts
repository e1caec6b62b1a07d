/**
 * Every plan format shows what waits on what (issue 13, item 4): text (`…` lines naming what is
 * waited for), JSON (golden, valid against docs/plan-output.schema.json) and the same as YAML;
 * and `validate` reports a dependency cycle naming it.
 */
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const app = (dependsOn: Readonly<Record<string, string>>): string =>
  JSON.stringify({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      manifest: ['web', 'settings', 'db'].map((name) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          ...(dependsOn[name] === undefined ? {} : { annotations: { 'kreconcile.io/depends-on': dependsOn[name] } }),
        },
        data: { name },
      })),
    },
  });

const files = { 'app.json': app({ web: 'ConfigMap/settings', settings: 'ConfigMap/db' }) };
const planArgs = ['plan', '-f', 'app.json', '--now', NOW];

describe('plan output of dependencies', () => {
  it('text: only db is created; settings and web wait, naming what for', async () => {
    const result = await runCli(planArgs, { files });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expectGolden('test/cli/golden/waits/chain.txt', result.stdout);
    expect(result.stdout).toContain(
      '  … v1 ConfigMap shop/settings waits for v1 ConfigMap shop/db to be ready (kreconcile.io/depends-on)',
    );
  });

  it('JSON (valid against the published schema) and YAML', async () => {
    const json = await runCli([...planArgs, '-o', 'json'], { files });
    expectGolden('test/cli/golden/waits/chain.json', json.stdout);
    const document = JSON.parse(json.stdout) as PlanDocumentV1;
    const validate = new Ajv({ allErrors: true }).compile(
      JSON.parse(readFileSync('docs/plan-output.schema.json', 'utf8')) as object,
    );
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    expect(document.applications[0]?.actions.filter((a) => a.type === 'wait')).toEqual([
      {
        type: 'wait',
        resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'web' },
        until: 'DependenciesReady',
        waitsFor: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' }],
        changes: [],
      },
      {
        type: 'wait',
        resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' },
        until: 'DependenciesReady',
        waitsFor: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'db' }],
        changes: [],
      },
    ]);
    expect(document.summary).toEqual({ create: 1, patch: 0, delete: 0, conflict: 0, wait: 2, changes: true });
    expect(parse((await runCli([...planArgs, '-o', 'yaml'], { files })).stdout)).toEqual(document);
  });

  it('validate and plan refuse a cycle, naming it', async () => {
    const cyclic = { 'app.json': app({ web: 'ConfigMap/settings', settings: 'ConfigMap/db', db: 'ConfigMap/web' }) };
    const validated = await runCli(['validate', '-f', 'app.json'], { files: cyclic });
    expect(validated.code).toBe(1);
    expect(validated.stderr).toContain(
      'spec.manifest[0].metadata.annotations["kreconcile.io/depends-on"]: dependency cycle: ConfigMap/web → ConfigMap/settings → ConfigMap/db → ConfigMap/web: remove one of these dependencies',
    );
    const planned = await runCli(planArgs, { files: cyclic });
    expect(planned.code).toBe(1);
    expect(planned.stderr).toMatch(
      /^error: app\.json:\d+:\d+: document 1 \(Application shop\/web\): spec\.manifest\[0\]\.metadata\.annotations\["kreconcile\.io\/depends-on"\]: dependency cycle: ConfigMap\/web → ConfigMap\/settings → ConfigMap\/db → ConfigMap\/web/,
    );
  });
});
