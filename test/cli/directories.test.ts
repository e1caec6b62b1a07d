/** `-f` with directories, kubectl-style: their .yaml, .yml and .json files in name order; `-R` goes below. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runCli } from './support/run-cli.js';

const application = (name: string, kind = 'ConfigMap', apiVersion = 'v1'): string => `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: ${name}
  namespace: shop
spec:
  manifest:
    - apiVersion: ${apiVersion}
      kind: ${kind}
      metadata:
        name: ${name}
`;

let root: string;
let apps: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'kreconcile-dirs-'));
  apps = join(root, 'apps');
  mkdirSync(join(apps, 'team', 'deeper'), { recursive: true });
  mkdirSync(join(root, 'empty', 'only-below'), { recursive: true });
  writeFileSync(join(apps, 'b.yaml'), application('b'));
  writeFileSync(join(apps, 'a.yml'), application('a', 'Secret'));
  writeFileSync(
    join(apps, 'c.json'),
    JSON.stringify({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'c', namespace: 'shop' },
      spec: { manifest: [{ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' } }] },
    }),
  );
  writeFileSync(join(apps, 'README.md'), '# not a manifest\n');
  writeFileSync(join(apps, 'team', 'd.yaml'), application('d', 'Deployment', 'apps/v1'));
  writeFileSync(join(apps, 'team', 'deeper', 'e.yaml'), application('e', 'Service'));
  writeFileSync(join(root, 'empty', 'only-below', 'f.yaml'), application('f'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const validNames = (stdout: string): ReadonlyArray<string> =>
  linesOf(stdout).map((line) => /^Application shop\/(\w+) /.exec(line)?.[1] ?? line);

describe('-f DIRECTORY', () => {
  it("reads the directory's .yaml, .yml and .json files in name order, not its subdirectories nor other files", async () => {
    const result = await runCli(['validate', '-f', apps]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(validNames(result.stdout)).toEqual(['a', 'b', 'c']);
    expect(result.stdout).toContain(`(${apps}/a.yml, document 1)`);
  });

  it('with -R reads every level below too, a subdirectory where its name sorts', async () => {
    const result = await runCli(['validate', '-R', '-f', `${apps}/`]);
    expect(result.code).toBe(0);
    expect(validNames(result.stdout)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(result.stdout).toContain(`(${apps}/team/deeper/e.yaml, document 1)`);
  });

  it('kreconcile rbac -f dir/ --kinds-from-applications grants the child kinds of every Application in it (--help promised it)', async () => {
    const result = await runCli(['rbac', '-f', `${apps}/`, '-R', '--kinds-from-applications', '-o', 'json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const roles = (
      JSON.parse(result.stdout) as { items: Array<{ kind: string; rules?: Array<{ resources: string[] }> }> }
    ).items.filter((item) => item.kind === 'ClusterRole');
    const resources = roles.flatMap((role) => role.rules ?? []).flatMap((rule) => rule.resources);
    for (const granted of ['configmaps', 'secrets', 'cronjobs', 'deployments', 'services'])
      expect(resources).toContain(granted);
  });

  it('plans every Application of a directory', async () => {
    const result = await runCli(['plan', '-f', apps, '-o', 'json']);
    expect(result.code).toBe(0);
    expect(
      (JSON.parse(result.stdout) as { applications: Array<{ application: { name: string } }> }).applications.map(
        (a) => a.application.name,
      ),
    ).toEqual(['a', 'b', 'c']);
  });

  it("reports problems with the file's path inside the directory", async () => {
    const broken = join(root, 'broken');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, 'x.yaml'), application('x').replace('  name: x\n  namespace', '  namespace'));
    const result = await runCli(['validate', '-f', broken]);
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^error: ${broken}/x\\.yaml:\\d+:\\d+: document 1 `)),
    ]);
  });

  it('a directory without manifest files is an error, which says -R reads below', async () => {
    const result = await runCli(['validate', '-f', join(root, 'empty')]);
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)[0]).toBe(
      `error: ${join(root, 'empty')}: no .yaml, .yml or .json file in this directory (-R reads its subdirectories too)`,
    );
    const below = await runCli(['validate', '-R', '-f', join(root, 'empty')]);
    expect(below.code).toBe(0);
    expect(validNames(below.stdout)).toEqual(['f']);
  });
});
