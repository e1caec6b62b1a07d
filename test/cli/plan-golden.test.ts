/**
 * Golden outputs of `kreconcile plan` (text and JSON) on every example scenario, plus the facts
 * docs/behaviour.md requires of each, so a golden file can never silently freeze a wrong plan.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MANAGED_BY_LABEL, OWNER_ANNOTATION } from '../../core/internal.js';
import type { ActionV1, PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';
import { planArgs, SCENARIOS, type Scenario } from './support/scenarios.js';

const golden = (scenario: Scenario, extension: string): string =>
  `test/cli/golden/${scenario.example}/${scenario.name}.${extension}`;

const planJson = async (scenario: Scenario): Promise<PlanDocumentV1> => {
  const result = await runCli([...planArgs(scenario), '-o', 'json']);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as PlanDocumentV1;
};

const ofType = <T extends ActionV1['type']>(
  actions: ReadonlyArray<ActionV1>,
  type: T,
): ReadonlyArray<Extract<ActionV1, { type: T }>> =>
  actions.filter((action): action is Extract<ActionV1, { type: T }> => action.type === type);

describe.each(SCENARIOS)('plan $example/$name', (scenario) => {
  it('prints the golden text plan and exits 0', async () => {
    const result = await runCli(planArgs(scenario));
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expectGolden(golden(scenario, 'txt'), result.stdout);
    const { create, patch, delete: deletions, conflict } = scenario.expect;
    expect(result.stdout).toContain(
      `Plan: ${create} to create, ${patch} to patch, ${deletions} to delete${conflict > 0 ? `, ${conflict} conflict` : ''}.`,
    );
  });

  it('prints the golden JSON plan, with the counts and result docs/behaviour.md requires', async () => {
    const result = await runCli([...planArgs(scenario), '-o', 'json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expectGolden(golden(scenario, 'json'), result.stdout);
    const document = JSON.parse(result.stdout) as PlanDocumentV1;
    const [application] = document.applications;
    const { result: outcome, ...counts } = scenario.expect;
    expect(application?.summary).toEqual(counts);
    expect(application?.result).toBe(outcome);
    expect(document.summary.changes).toBe(outcome !== 'NoChanges');
  });

  it('prints the same plan as YAML', async () => {
    const yaml = await runCli([...planArgs(scenario), '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(parse(yaml.stdout)).toEqual(await planJson(scenario));
  });
});

describe('what the example plans show (docs/behaviour.md §4)', () => {
  const scenario = (example: Scenario['example'], name: string): Scenario => {
    const found = SCENARIOS.find((s) => s.example === example && s.name === name);
    if (found === undefined) throw new Error(`no scenario ${example}/${name}`);
    return found;
  };

  it('creates every resource whole, with the ownership marks, in install order, from an empty cluster', async () => {
    const [application] = (await planJson(scenario('webapp', 'create-from-empty'))).applications;
    const creates = ofType(application?.actions ?? [], 'create');
    expect(creates.map((c) => c.resource.kind)).toEqual(['ConfigMap', 'Service', 'Deployment', 'Ingress']);
    for (const create of creates) {
      expect(create.body.metadata).toMatchObject({
        labels: { [MANAGED_BY_LABEL]: 'kreconcile' },
        annotations: { [OWNER_ANNOTATION]: 'shop/web' },
      });
    }
    // Non-observed but initialised fields are part of the creation (Krake's Step 5).
    expect(ofType(application?.actions ?? [], 'addFinalizer')).toHaveLength(1);
    expect(application?.application.generation).toBe(1);
  });

  it('creates a Song with key2 (set, not observed) and without key3 (observed, learned later)', async () => {
    const [application] = (await planJson(scenario('song-artist', 'create-from-empty'))).applications;
    const song = ofType(application?.actions ?? [], 'create').find((c) => c.resource.kind === 'Song');
    expect(song?.body).toMatchObject({ spec: { key1: 'value1', key2: 'value2', rythms: ['rock'] } });
    expect(song?.body.spec).not.toHaveProperty('key3');
  });

  it.each(['in-sync', 'drifted-unobserved'])('plans no action at all for webapp %s', async (name) => {
    const [application] = (await planJson(scenario('webapp', name))).applications;
    expect(application?.actions).toEqual([]);
    expect(application?.outcome).toEqual({ type: 'AwaitChange' });
  });

  it('patches observed drift back, guarded, and nothing else', async () => {
    const [application] = (await planJson(scenario('webapp', 'drifted-observed'))).applications;
    const patches = ofType(application?.actions ?? [], 'patch');
    expect(patches.map((p) => [p.resource.kind, p.patch])).toEqual([
      ['ConfigMap', [{ op: 'replace', path: '/data/NGINX_WORKER_PROCESSES', value: '2' }]],
      ['Deployment', [{ op: 'replace', path: '/spec/replicas', value: 3 }]],
    ]);
  });

  it('restores a learned observed value (key3): the value known to the operator prevails', async () => {
    const [application] = (await planJson(scenario('song-artist', 'drifted-observed'))).applications;
    const [patch] = ofType(application?.actions ?? [], 'patch');
    expect(patch?.changes).toEqual([
      { path: 'spec.key1', from: 'changed-by-hand', to: 'value1' },
      { path: 'spec.key3', from: 'value3-edited', to: 'value3' },
    ]);
  });

  it.each([
    ['webapp', '/spec/template/spec/containers/0/env/1', { name: 'DEBUG', value: 'true' }],
    ['song-artist', '/spec/rythms/2', 'jazz'],
    ['list-control', '/spec/ports/2', { name: 'debug', port: 40000, protocol: 'TCP', targetPort: 40000 }],
  ] as const)(
    'removes the element beyond the list maximum in %s after testing its value',
    async (example, path, value) => {
      const [application] = (await planJson(scenario(example, 'list-too-long'))).applications;
      const [patch] = ofType(application?.actions ?? [], 'patch');
      expect(patch?.patch.slice(-2)).toEqual([
        { op: 'test', path, value },
        { op: 'remove', path },
      ]);
    },
  );

  it.each([
    ['webapp', 'PodDisruptionBudget', 'web'],
    ['song-artist', 'Song', 'foxy-lady'],
    ['list-control', 'CronJob', 'queue-cleanup'],
  ] as const)(
    'deletes what %s removed from its spec, and the spec change bumps the generation',
    async (example, kind, name) => {
      const [application] = (await planJson(scenario(example, 'removed-from-spec'))).applications;
      expect(
        ofType(application?.actions ?? [], 'delete').map((d) => [d.resource.kind, d.resource.name, d.reason]),
      ).toEqual([[kind, name, 'RemovedFromSpec']]);
      expect(application?.application.generation).toBe(2);
      expect(application?.status.observedGeneration).toBe(2);
    },
  );

  it.each([
    ['webapp', 'Service', 'NotOwned', undefined],
    ['song-artist', 'Artist', 'OwnedByAnother', 'music/greatest-hits'],
    ['list-control', 'Deployment', 'NotOwned', undefined],
  ] as const)(
    'never takes over a foreign object in %s: conflict, Stalled, no write to it',
    async (example, kind, reason, owner) => {
      const [application] = (await planJson(scenario(example, 'foreign-object'))).applications;
      const [conflict] = ofType(application?.actions ?? [], 'conflict');
      expect(conflict).toMatchObject({ resource: { kind }, reason, ...(owner === undefined ? {} : { owner }) });
      const writes = (application?.actions ?? []).filter((a) => a.type !== 'conflict' && a.resource.kind === kind);
      expect(writes).toEqual([]);
      expect(application?.stalled?.reason).toBe('NotOwned');
    },
  );

  it('is reproducible: the same inputs and --now give byte-identical output', async () => {
    const first = await runCli([...planArgs(scenario('webapp', 'drifted-observed')), '-o', 'json']);
    const second = await runCli([...planArgs(scenario('webapp', 'drifted-observed')), '-o', 'json']);
    expect(second.stdout).toBe(first.stdout);
  });
});
