/**
 * Rollout impact in every plan output (issue 38, docs/plan-output.md "Rollout impact"): one plan
 * with a pod-template bump (rolls the Deployment's pods) and a ConfigMap change the pods read
 * through `envFrom` (in the same plan: the new pods see it) printed as text, JSON and markdown, by
 * `plan` and by `show` of the same plan saved with `--out`. Every impact the JSON document holds is
 * printed, word for word, by the text and markdown forms.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plain } from '../../app/cli/render/markdown.js';
import type { PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import { runCli } from './support/run-cli.js';

const APP = readFileSync('examples/webapp/app.yaml', 'utf8');
const SNAPSHOT = readFileSync('examples/webapp/snapshots/drifted-observed.yaml', 'utf8');
const BUMPED = APP.replace('nginx-unprivileged:1.27-alpine', 'nginx-unprivileged:1.28-alpine');
const FILES = { 'app.yaml': BUMPED, 'live.yaml': SNAPSHOT };
const PLAN = ['plan', '-f', 'app.yaml', '--snapshot', 'live.yaml', '--now', '2026-03-02T12:00:00Z'];

const impactsOf = (document: PlanDocumentV1): ReadonlyArray<{ type: string; message: string }> =>
  document.applications.flatMap((application) => application.actions.flatMap((action) => action.impact ?? []));

/** The three forms of one plan: the impacts of its JSON document must be in the text and the markdown. */
const expectImpactEverywhere = (json: string, text: string, markdown: string): void => {
  const impacts = impactsOf(JSON.parse(json) as PlanDocumentV1);
  expect(impacts.map((impact) => impact.type).sort()).toEqual(['configRollout', 'rollout']);
  for (const { message } of impacts) {
    expect(text).toContain(`      ⇒ ${message}\n`);
    expect(markdown).toContain(`  - ⇒ ${plain(message)}`);
  }
};

describe('rollout impact in the text, JSON and markdown plans', () => {
  it('plan prints every impact in each format', async () => {
    const [json, text, markdown] = await Promise.all(
      [['-o', 'json'], [], ['-o', 'markdown']].map((extra) => runCli([...PLAN, ...extra], { files: FILES })),
    );
    expect([json?.code, text?.code, markdown?.code]).toEqual([0, 0, 0]);
    expectImpactEverywhere(json?.stdout ?? '', text?.stdout ?? '', markdown?.stdout ?? '');
    expect(text?.stdout).toContain('⇒ rolls 3 pods of apps/v1 Deployment shop/web');
  });

  it('show of the same plan saved with --out prints the same impacts in each format, and the same JSON actions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kr-plan-impact-'));
    const saved = await runCli([...PLAN, '--out', join(dir, 'plan.json')], { files: FILES });
    const plan = readFileSync(join(dir, 'plan.json'), 'utf8');
    rmSync(dir, { recursive: true, force: true });
    expect(saved.code).toBe(0);
    expect(plan).toContain('"impact"');
    const show = (extra: ReadonlyArray<string>) =>
      runCli(['show', 'plan.json', ...extra], { files: { 'plan.json': plan } });
    const [json, text, markdown] = await Promise.all([show(['-o', 'json']), show([]), show(['-o', 'markdown'])]);
    expectImpactEverywhere(json.stdout, text.stdout, markdown.stdout);
    const planned = JSON.parse((await runCli([...PLAN, '-o', 'json'], { files: FILES })).stdout) as PlanDocumentV1;
    expect(impactsOf(JSON.parse(json.stdout) as PlanDocumentV1)).toEqual(impactsOf(planned));
  });
});
