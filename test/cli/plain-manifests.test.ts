/**
 * Plain manifests in (issue 36 items 6 and 8): a directory, `helm template` or `kustomize build`
 * output on stdin — `---` with comments, empty documents, Lists — validated without an Application
 * around them, planned as a named Application (`--as-application`), and written out as one
 * (`kreconcile wrap`); and `validate`'s reports: valid inputs listed beside the failing ones,
 * `-o json`, `-o junit`, every error at the document's own file:line. `UPDATE_GOLDEN=1` rewrites
 * the .txt files (review the diff).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGolden } from './support/golden.js';
import { linesOf, runCli } from './support/run-cli.js';

const DIR = 'test/cli/golden/plain';
const withSchemas = { builtinSchemas: true } as const;

describe('kreconcile validate: plain manifests and real mistakes', () => {
  it('checks every document on its own, lists the valid ones, reports each mistake where it is written', async () => {
    const result = await runCli(['validate', '-f', `${DIR}/real-mistakes.yaml`], withSchemas);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(`v1 ConfigMap settings (${DIR}/real-mistakes.yaml, document 5): valid\n`);
    expectGolden(`${DIR}/real-mistakes.txt`, result.stderr);
    // One line each, at its file:line, naming the path, what is wrong and what to do.
    for (const line of linesOf(result.stderr))
      expect(line).toMatch(/^error: test\/cli\/golden\/plain\/real-mistakes\.yaml:\d+:\d+: document \d /);
  });

  it('reads helm template output from stdin: comments, empty documents, a trailing ---', async () => {
    const stdin = readFileSync(`${DIR}/helm-template.yaml`, 'utf8');
    const result = await runCli(['validate', '-f', '-'], { ...withSchemas, stdin });
    expect(result).toEqual({
      code: 0,
      stdout: 'v1 ConfigMap web-config (<stdin>, document 1): valid\nv1 Service web (<stdin>, document 3): valid\n',
      stderr: '',
    });
  });

  it('-o json: a ValidationReport with every input, valid or not, and its errors', async () => {
    const result = await runCli(['validate', '-f', `${DIR}/real-mistakes.yaml`, '-o', 'json'], withSchemas);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      valid: boolean;
      inputs: Array<{ subject: string; valid: boolean; errors: Array<{ path?: string; line?: number }> }>;
    };
    expect(report.valid).toBe(false);
    expect(report.inputs.map((input) => [input.subject, input.valid, input.errors.length])).toEqual([
      ['extensions/v1beta1 Ingress web', false, 1],
      ['apps/v1 Deployment web', false, 2],
      ['batch/v1 CronJob backup', false, 2],
      ['policy/v1beta1 PodDisruptionBudget web', false, 1],
      ['v1 ConfigMap settings', true, 0],
      ['Aplication shop', false, 1],
    ]);
    expect(report.inputs[1]?.errors[0]).toMatchObject({
      path: 'spec.template.spec.containers[0].resources.limits.memory',
      line: 29,
    });
  });

  it('-o junit: one test case per input, failures with every line', async () => {
    const result = await runCli(['validate', '-f', `${DIR}/real-mistakes.yaml`, '-o', 'junit'], withSchemas);
    expect(result.code).toBe(1);
    expectGolden(`${DIR}/real-mistakes.junit.xml`, result.stdout);
    const valid = await runCli(['validate', '-f', `${DIR}/dir`, '-o', 'junit'], withSchemas);
    expect(valid.code).toBe(0);
    expect(valid.stdout).toContain('<testsuites name="kreconcile validate" tests="3" failures="0">');
  });

  it('lists the valid Applications when another one fails', async () => {
    const result = await runCli(
      ['validate', '-f', 'examples/webapp/app.yaml', '-f', `${DIR}/no-name.yaml`, '--as-application', 'broken'],
      withSchemas,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('Application shop/web (examples/webapp/app.yaml, document 1): valid\n');
    expect(result.stderr).toBe(
      `error: ${DIR}/no-name.yaml:8:1: document 2 (v1 ConfigMap (unnamed)): metadata.name: expected non-empty string, got nothing\n`,
    );
  });

  it('kind: Aplication and apiVersion: kreconcle.io/… get a "did you mean"', async () => {
    const typo = (apiVersion: string, kind: string) =>
      runCli(['plan', '-f', 'app.yaml'], {
        files: {
          'app.yaml': `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata: {name: shop}\nspec: {manifest: []}\n`,
        },
      });
    expect(linesOf((await typo('kreconcile.io/v1alpha1', 'Aplication')).stderr)).toEqual([
      'error: app.yaml:2:1: document 1 (Aplication shop): kind: kreconcile.io/v1alpha1 Aplication is not a kind kreconcile reads: did you mean kind `Application`?',
    ]);
    expect(linesOf((await typo('kreconcle.io/v1alpha1', 'Application')).stderr)).toEqual([
      'error: app.yaml:1:1: document 1 (Application shop): apiVersion: kreconcle.io/v1alpha1 Application is not a kind kreconcile reads: did you mean apiVersion `kreconcile.io/v1alpha1`?',
    ]);
    // Argo CD's Application is another kind altogether: no suggestion.
    expect((await typo('argoproj.io/v1alpha1', 'Application')).stderr).not.toContain('did you mean');
  });
});

describe('plain manifests as a named Application: plan --as-application and wrap', () => {
  it('plans a directory (a List included) as the Application NAME', async () => {
    const result = await runCli(['plan', '-f', `${DIR}/dir`, '--as-application', 'web', '-n', 'shop', '--offline']);
    expect(result.code).toBe(0);
    expectGolden(`${DIR}/plan-dir.txt`, result.stdout);
  });

  it('plan reports what the API server would refuse, at the document (the operator would stall on it)', async () => {
    const plain = `${DIR}/real-mistakes.yaml`;
    const result = await runCli(['plan', '-f', plain, '--as-application', 'shop', '-n', 'shop', '--offline']);
    expect(result.code).toBe(1);
    const lines = linesOf(result.stderr);
    expect(lines).toContain(
      `error: ${plain}:29:22: document 2 (apps/v1 Deployment web): spec.template.spec.containers[0].resources.limits.memory: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (the API server refuses it): write a quantity such as 512Mi, 1Gi, 2 or 500m (no space, no B: 1G is 10^9 bytes, 1Gi 2^30)`,
    );
    expect(
      lines.some((line) =>
        line.includes(`${plain}:37:3: document 3 (batch/v1 CronJob backup): spec.schedule: Invalid value: "0 3 * *"`),
      ),
    ).toBe(true);
    expect(lines.some((line) => line.includes('extensions/v1beta1 Ingress was removed in Kubernetes 1.22'))).toBe(true);
  });

  it('wrap writes the Application plan --as-application plans: same plan, valid, no hand re-indenting', async () => {
    const stdin = readFileSync(`${DIR}/helm-template.yaml`, 'utf8');
    const wrapped = await runCli(['wrap', 'web', '-f', '-', '-n', 'shop'], { stdin });
    expect(wrapped.code).toBe(0);
    expectGolden(`${DIR}/wrapped.yaml`, wrapped.stdout);
    const direct = await runCli(
      ['plan', '-f', '-', '--as-application', 'web', '-n', 'shop', '--offline', '-o', 'json'],
      { stdin },
    );
    const viaFile = await runCli(['plan', '-f', 'app.yaml', '--offline', '-o', 'json'], {
      files: { 'app.yaml': wrapped.stdout },
    });
    const actions = (text: string) =>
      (JSON.parse(text) as { applications: Array<{ actions: unknown }> }).applications.map((a) => a.actions);
    expect(actions(direct.stdout)).toEqual(actions(viaFile.stdout));
    expect(
      (await runCli(['validate', '-f', 'app.yaml'], { ...withSchemas, files: { 'app.yaml': wrapped.stdout } })).code,
    ).toBe(0);
  });

  it('wrap refuses an Application in its input and an invalid manifest, at the document, writing nothing', async () => {
    const application = await runCli(['wrap', 'web', '-f', 'examples/webapp/app.yaml']);
    expect(application.code).toBe(1);
    expect(application.stdout).toBe('');
    expect(application.stderr).toMatch(
      /^error: examples\/webapp\/app\.yaml:\d+:1: document 1: kind: this is an Application already: wrap reads plain manifests only/,
    );
    const unnamed = await runCli(['wrap', 'web', '-f', `${DIR}/no-name.yaml`]);
    expect(unnamed).toMatchObject({ code: 1, stdout: '' });
    expect(unnamed.stderr).toBe(
      `error: ${DIR}/no-name.yaml:8:1: document 2 (v1 ConfigMap (unnamed)): metadata.name: expected non-empty string, got nothing\n`,
    );
  });

  it('plan --as-application --out saves a plan apply can carry out', async () => {
    const planFile = join(mkdtempSync(join(tmpdir(), 'kr-plain-')), 'plan.json');
    const result = await runCli([
      'plan',
      '-f',
      `${DIR}/dir`,
      '--as-application',
      'web',
      '-n',
      'shop',
      '--offline',
      '--out',
      planFile,
    ]);
    expect(result.code).toBe(0);
    const shown = await runCli(['show', planFile]);
    expect(shown.stdout).toContain('+ apps/v1 Deployment shop/web');
    expect(shown.stdout).toContain('+ v1 Service shop/web');
  });
});
