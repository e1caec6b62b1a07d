/**
 * One bad Application does not hide the others (issue 20, item 6): `plan -f dir/` prints every
 * valid Application's plan and every problem of the invalid ones (bad spec, unreadable YAML,
 * unknown kind), and exits 1.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const application = (name: string, child: string): string => `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: ${name}
  namespace: shop
spec:
  manifest:
${child}`;

const configMap = (name: string): string => `    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: ${name}
      data:
        mode: fast
`;

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'kreconcile-partial-'));
  mkdirSync(join(root, 'apps'));
  writeFileSync(join(root, 'apps', 'a-good.yaml'), application('good', configMap('good')));
  // A child without metadata.name: an invalid spec.
  writeFileSync(
    join(root, 'apps', 'b-bad-spec.yaml'),
    application('bad-spec', '    - apiVersion: v1\n      kind: ConfigMap\n      data: {}\n'),
  );
  writeFileSync(join(root, 'apps', 'c-not-yaml.yaml'), 'apiVersion: kreconcile.io/v1alpha1\nkind: [unclosed\n');
  // A custom kind nobody declared: stalled UnknownKind when planned.
  writeFileSync(
    join(root, 'apps', 'd-unknown-kind.yaml'),
    application('unknown', '    - apiVersion: example.com/v1\n      kind: Widget\n      metadata:\n        name: w\n'),
  );
  writeFileSync(join(root, 'apps', 'e-also-good.yaml'), application('also-good', configMap('other')));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('plan -f dir/ with some invalid Applications', () => {
  it('prints the plan of every valid Application, every problem of the others, and exits 1', async () => {
    const result = await runCli(['plan', '-f', join(root, 'apps'), '--now', NOW]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Application shop/good (');
    expect(result.stdout).toContain('+ v1 ConfigMap shop/good');
    expect(result.stdout).toContain('Application shop/also-good (');
    expect(result.stdout).toContain('+ v1 ConfigMap shop/other');
    expect(result.stdout).not.toContain('shop/bad-spec');
    const errors = linesOf(result.stderr);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error: .*b-bad-spec\.yaml:\d+:\d+: document 1 \(Application shop\/bad-spec\): /),
        expect.stringMatching(/^error: .*c-not-yaml\.yaml/),
        expect.stringMatching(/^error: .*d-unknown-kind\.yaml.*Application shop\/unknown.*UnknownKind/),
      ]),
    );
    expect(errors).toHaveLength(3);
  });

  it('-o json: the document holds the valid Applications only, the problems go to stderr', async () => {
    const result = await runCli(['plan', '-f', join(root, 'apps'), '-o', 'json', '--now', NOW]);
    expect(result.code).toBe(1);
    const names = (
      JSON.parse(result.stdout) as { applications: Array<{ application: { name: string } }> }
    ).applications.map((a) => a.application.name);
    expect(names).toEqual(['good', 'also-good']);
    expect(linesOf(result.stderr)).toHaveLength(3);
  });

  it('saves no plan when some Application has a problem, and prints it all the same (issue 36)', async () => {
    const out = join(root, 'plan.json');
    const result = await runCli(['plan', '-f', join(root, 'apps'), '--out', out, '--now', NOW]);
    expect(result.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(result.stdout).toContain('+ v1 ConfigMap shop/good');
    expect(result.stdout).not.toContain('Saved the plan');
    expect(linesOf(result.stderr).at(-1)).toBe(
      `error: the plan was not saved to ${out}: fix the problems above, then plan again`,
    );
  });

  it('exits 1 with only the problems when no Application is valid', async () => {
    const result = await runCli(['plan', '-f', join(root, 'apps', 'b-bad-spec.yaml'), '--now', NOW]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(linesOf(result.stderr)).toHaveLength(1);
  });
});
