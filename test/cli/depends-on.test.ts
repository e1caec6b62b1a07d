/**
 * `spec.dependsOn` in the CLI (issue 23 item 2): `plan DIR` plans a directory's Applications in
 * dependency order (the files list them the other way round), `--simulate` shows the waits (each
 * Application's rounds after its dependencies'), a cycle is an error naming it (exit 1), and
 * `validate` warns about a dependency no input declares (it may live in the cluster).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const application = (name: string, dependsOn: ReadonlyArray<string> = []): string => `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: ${name}
  namespace: shop
spec:
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: ${name}-config
      data:
        app: ${name}
${dependsOn.length === 0 ? '' : `  dependsOn:\n${dependsOn.map((dependency) => `    - name: ${dependency}\n`).join('')}`}`;

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'kreconcile-depends-on-'));
  mkdirSync(join(root, 'apps'));
  mkdirSync(join(root, 'cycle'));
  // Name order is web, api, db: the reverse of the dependency order.
  writeFileSync(join(root, 'apps', '1-web.yaml'), application('web', ['api']));
  writeFileSync(join(root, 'apps', '2-api.yaml'), application('api', ['db']));
  writeFileSync(join(root, 'apps', '3-db.yaml'), application('db'));
  writeFileSync(join(root, 'cycle', 'x.yaml'), application('x', ['y']));
  writeFileSync(join(root, 'cycle', 'y.yaml'), application('y', ['x']));
  writeFileSync(join(root, 'cycle', 'z.yaml'), application('z', ['x', 'elsewhere']));
  writeFileSync(join(root, 'twice.yaml'), application('twice', ['db', 'db']));
  writeFileSync(join(root, 'bad-name.yaml'), application('bad', ['ok', 'Bad_Name']));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Output with the temporary directory replaced, so it can be a golden file. */
const portable = (text: string): string => text.split(root).join('<dir>');

describe('spec.dependsOn in kreconcile plan and validate', () => {
  it('plan DIR plans in dependency order; a dependant of an Application not Ready yet waits and writes nothing', async () => {
    const result = await runCli(['plan', '-f', join(root, 'apps'), '--now', NOW]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectGolden('test/cli/golden/depends-on/plan.txt', portable(result.stdout));
    const json = JSON.parse((await runCli(['plan', '-f', join(root, 'apps'), '--now', NOW, '-o', 'json'])).stdout) as {
      applications: Array<{ application: { name: string }; actions: Array<unknown> }>;
    };
    expect(json.applications.map((a) => [a.application.name, a.actions.length > 0])).toEqual([
      ['db', true],
      ['api', false],
      ['web', false],
    ]);
  });

  it('--simulate: db acts first, api waits its rounds then acts, web after api', async () => {
    const result = await runCli(['plan', '-f', join(root, 'apps'), '--now', NOW, '--simulate']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectGolden('test/cli/golden/depends-on/simulate.txt', portable(result.stdout));
    const json = JSON.parse(
      (await runCli(['plan', '-f', join(root, 'apps'), '--now', NOW, '--simulate', '-o', 'json'])).stdout,
    ) as {
      applications: Array<{
        application: { name: string };
        result: string;
        waited?: { rounds: number };
        rounds: Array<{ round: number }>;
      }>;
    };
    const [db, api, web] = json.applications;
    expect([db?.application.name, api?.application.name, web?.application.name]).toEqual(['db', 'api', 'web']);
    expect(json.applications.every((a) => a.result === 'Converged')).toBe(true);
    const last = (a: typeof db) => a?.rounds[a.rounds.length - 1]?.round ?? 0;
    expect(api?.waited?.rounds).toBe(last(db));
    expect(api?.rounds[0]?.round).toBe(last(db) + 1);
    expect(web?.waited?.rounds).toBe(last(api));
    expect(web?.rounds[0]?.round).toBe(last(api) + 1);
  });

  it('a cycle is an error naming it, for each member (exit 1); what depends on it only waits', async () => {
    const result = await runCli(['plan', '-f', join(root, 'cycle'), '--now', NOW]);
    expect(result.code).toBe(1);
    expectGolden('test/cli/golden/depends-on/cycle.txt', portable(result.stderr));
    expect(result.stdout).toContain('shop/z');
  });

  it('validate: a cycle is an error, a dependency no input declares a warning', async () => {
    const cycle = await runCli(['validate', '-f', join(root, 'cycle')]);
    expect(cycle.code).toBe(1);
    expectGolden('test/cli/golden/depends-on/validate-cycle.txt', portable(cycle.stderr));
    const elsewhere = await runCli(['validate', '-f', join(root, 'cycle', 'z.yaml')]);
    expect(elsewhere.code).toBe(0);
    expect(portable(elsewhere.stderr)).toBe(
      'warning: <dir>/cycle/z.yaml:15:7: document 1 (Application shop/z): spec.dependsOn[0]: Application shop/x is not among the inputs: it must exist in the cluster and be Ready, or this Application waits (DependencyNotReady)\n' +
        'warning: <dir>/cycle/z.yaml:16:7: document 1 (Application shop/z): spec.dependsOn[1]: Application shop/elsewhere is not among the inputs: it must exist in the cluster and be Ready, or this Application waits (DependencyNotReady)\n',
    );
    const ordered = await runCli(['validate', '-f', join(root, 'apps')]);
    expect(ordered.code).toBe(0);
    expect(ordered.stderr).toBe('');
  });
});

describe('spec.dependsOn bounds in validate', () => {
  it('the same Application twice, and a name that is no Application name, each at its entry', async () => {
    const twice = await runCli(['validate', '-f', join(root, 'twice.yaml')]);
    expect(twice.code).toBe(1);
    expect(portable(twice.stderr)).toBe(
      'error: <dir>/twice.yaml:16:7: document 1 (Application shop/twice): spec.dependsOn[1]: the Application db is named twice: remove this entry\n',
    );
    const bad = await runCli(['validate', '-f', join(root, 'bad-name.yaml')]);
    expect(bad.code).toBe(1);
    expect(portable(bad.stderr)).toBe(
      'error: <dir>/bad-name.yaml:16:7: document 1 (Application shop/bad): spec.dependsOn[1].name: expected an Application name (lower-case DNS subdomain, at most 253 characters), got string "Bad_Name"\n',
    );
  });
});

describe('spec.dependsOn with --verify-converges', () => {
  it('carries the directory out on the in-memory API server: every Application converges, in order', async () => {
    const result = await runCli(['plan', '-f', join(root, 'apps'), '--now', NOW, '--verify-converges']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('verify-converges: converges');
  });
});
