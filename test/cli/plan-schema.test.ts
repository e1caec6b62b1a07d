/**
 * The JSON plan validates against its published JSON Schema (docs/plan-output.schema.json), with
 * Ajv (draft-07), on every golden scenario and on error-free edge cases.
 */
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { planArgs, SCENARIOS } from './support/scenarios.js';

const schema = JSON.parse(readFileSync('docs/plan-output.schema.json', 'utf8')) as object;
const validate = new Ajv({ allErrors: true }).compile(schema);

const errorsOf = (document: unknown): string => (validate(document) ? '' : JSON.stringify(validate.errors, null, 2));

describe('plan output v1 and its JSON Schema', () => {
  it.each(SCENARIOS.map((s) => [`${s.example}/${s.name}`, s] as const))('%s validates', async (_name, scenario) => {
    const result = await runCli([...planArgs(scenario), '-o', 'json']);
    expect(errorsOf(JSON.parse(result.stdout))).toBe('');
  });

  it('a plan of several Applications validates, and its summary adds theirs up', async () => {
    const result = await runCli([
      'plan',
      '-f',
      'examples/webapp/app.yaml',
      '-f',
      'examples/list-control/app.yaml',
      '-o',
      'json',
      '--now',
      '2026-03-02T12:00:00Z',
    ]);
    const document = JSON.parse(result.stdout) as { summary: unknown; applications: unknown[] };
    expect(errorsOf(document)).toBe('');
    expect(document.applications).toHaveLength(2);
    expect(document.summary).toEqual({ create: 6, patch: 0, delete: 0, conflict: 0, changes: true });
  });

  it('the schema rejects what the format forbids (it is not vacuous)', () => {
    const good = {
      apiVersion: 'kreconcile.io/plan/v1',
      kind: 'Plan',
      metadata: { now: 'x', cluster: { type: 'Empty' } },
      applications: [],
      summary: { create: 0, patch: 0, delete: 0, conflict: 0, changes: false },
    };
    expect(errorsOf(good)).toBe('');
    expect(validate({ ...good, apiVersion: 'kreconcile.io/plan/v2' })).toBe(false);
    expect(validate({ ...good, surprise: true })).toBe(false);
    expect(validate({ ...good, summary: { create: 0, patch: 0, delete: 0, conflict: 0 } })).toBe(false);
    expect(validate({ ...good, metadata: { now: 'x', cluster: { type: 'Snapshot' } } })).toBe(false);
  });
});
