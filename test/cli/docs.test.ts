/** The documentation shows real output: its examples are checked against what the CLI prints. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const read = (path: string): string => readFileSync(path, 'utf8');

describe('docs', () => {
  it.each(['webapp/drifted-observed', 'webapp/foreign-object'])('docs/cli.md shows the real text plan %s', (name) => {
    expect(read('docs/cli.md')).toContain(read(`test/cli/golden/${name}.txt`).trimEnd());
  });

  it('docs/cli.md shows a real error line', async () => {
    const app = `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: shop
spec:
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web-config
      data:
        a: "1"
  observerSchema:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web-config
      data:
        a: 3
`;
    const result = await runCli(['validate', '-f', 'app.yaml'], { files: { 'app.yaml': app } });
    expect(read('docs/cli.md')).toContain(result.stderr.trimEnd());
  });

  it('docs/plan-output.md shows the real JSON plan (status elided)', async () => {
    const shown = /```json\n([\s\S]*?)\n```/.exec(read('docs/plan-output.md'))?.[1] ?? '';
    const documented = JSON.parse(shown) as { applications: Array<Record<string, unknown>> };
    const result = await runCli([
      'plan',
      '-f',
      'examples/list-control/app.yaml',
      '--snapshot',
      'examples/list-control/snapshots/list-too-long.yaml',
      '--now',
      '2026-03-02T12:00:00Z',
      '-o',
      'json',
    ]);
    const actual = JSON.parse(result.stdout) as { applications: Array<Record<string, unknown>> };
    const withoutStatus = (document: { applications: Array<Record<string, unknown>> }) => ({
      ...document,
      applications: document.applications.map(({ status: _status, ...rest }) => rest),
    });
    expect(withoutStatus(documented)).toEqual(withoutStatus(actual));
  });

  it('docs/cli.md documents every exit code plan uses', () => {
    const docs = read('docs/cli.md');
    for (const line of ['| 0 |', '| 1 |', '| 2 |']) expect(docs).toContain(line);
  });
});
