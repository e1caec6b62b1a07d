/**
 * Offline validation stays bounded on hostile CRDs and custom resources from a pull request
 * (issue 37 item 4). Each input is what the security review used (or larger); before the fix a
 * 120 KB CRD with a 60 KB property name ran `validate` out of memory, 8 000 misspelt fields took
 * minutes, and a 10 000-value enum with 10 000 bad items took 3 GB. Each now answers in well under
 * the test's time bound, with one clear error where a bound is crossed.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { crdWithSchema } from '../support/crd.js';
import type { JsonObject } from '../../core/json/json.js';

const crd = (schema: JsonObject): string => JSON.stringify(crdWithSchema(schema));

const app = (spec: object): string =>
  JSON.stringify({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'a', namespace: 'n' },
    spec: { manifest: [{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec }] },
  });

const specSchema = (properties: JsonObject): JsonObject => ({
  type: 'object',
  properties: { spec: { type: 'object', properties } },
});

/** Runs `validate` on a two-document file; answers the result and the milliseconds it took. */
const timed = async (text: string) => {
  const started = performance.now();
  const result = await runCli(['validate', '-f', 'hostile.yaml'], { files: { 'hostile.yaml': text } });
  return { ...result, ms: performance.now() - started };
};

/**
 * Generous: the YAML parse of 370 KB alone takes 1–3 s on a loaded CI machine; before the fix these took minutes or ran
 * out of memory.
 */
const BOUND_MS = 15_000;

describe('kreconcile validate on hostile CRDs', () => {
  it('a 120 KB CRD with a 60 KB property name and a custom resource with a 60 KB misspelling', async () => {
    const name = 'a'.repeat(60_000);
    const result = await timed(
      `${crd(specSchema({ [name]: { type: 'string' } }))}\n---\n${app({ [`b${name.slice(1)}`]: 'x' })}`,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'unknown field of example.com/v1 Widget (the API server would refuse or drop it): remove it',
    );
    expect(result.ms).toBeLessThan(BOUND_MS);
  });

  it('8 000 properties and 8 000 misspelt fields (370 KB): at most 100 problems, then a count', async () => {
    const properties: Record<string, JsonObject> = {};
    const fields: Record<string, string> = {};
    for (let i = 0; i < 8_000; i++) {
      properties[`field${i}`] = { type: 'string' };
      fields[`fielt${i}x`] = 'v';
    }
    const result = await timed(`${crd(specSchema(properties))}\n---\n${app(fields)}`);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('error:'));
    expect(lines).toHaveLength(101);
    expect(
      lines.filter((line) => line.includes('and 7900 more schema problems: fix the ones above first')),
    ).toHaveLength(1);
    expect(result.ms).toBeLessThan(BOUND_MS);
  });

  it('an enum of 10 000 values: one error at the enum, the custom resource never walked', async () => {
    const values = Array.from({ length: 10_000 }, (_, i) => `value-${i}`);
    const items = Array.from({ length: 10_000 }, (_, i) => `bad${i}`);
    const schema = specSchema({ list: { type: 'array', items: { type: 'string', enum: values } } });
    const result = await timed(`${crd(schema)}\n---\n${app({ list: items })}`);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('error:'));
    expect(lines).toEqual([
      'error: hostile.yaml:1:117: document 1 (CustomResourceDefinition widgets.example.com): spec.validation.openAPIV3Schema.properties[spec].properties[list].items.enum: 10000 values, more than 5000',
    ]);
    expect(result.ms).toBeLessThan(BOUND_MS);
  });

  it('an enum within the bound and 10 000 bad items: every message lists at most 64 values', async () => {
    const values = Array.from({ length: 5_000 }, (_, i) => `value-${i}`);
    const items = Array.from({ length: 10_000 }, (_, i) => `bad${i}`);
    const schema = specSchema({ list: { type: 'array', items: { type: 'string', enum: values } } });
    const result = await timed(`${crd(schema)}\n---\n${app({ list: items })}`);
    expect(result.stderr).toContain('"value-63", … (4936 more)');
    expect(result.stderr.length).toBeLessThan(200_000);
    expect(result.ms).toBeLessThan(BOUND_MS);
  });

  it('a pattern that backtracks exponentially in JavaScript runs in linear time (RE2 semantics)', async () => {
    const schema = specSchema({ name: { type: 'string', pattern: '^(a+)+$' } });
    const result = await timed(`${crd(schema)}\n---\n${app({ name: `${'a'.repeat(50_000)}b` })}`);
    expect(result.stderr).toContain(`in body should match '^(a+)+$'`);
    expect(result.ms).toBeLessThan(BOUND_MS);
  });

  it('a schema nested deeper than 64 levels, and a pattern RE2 refuses', async () => {
    let schema: JsonObject = { type: 'string' };
    for (let i = 0; i < 70; i++) schema = { type: 'object', properties: { a: schema } };
    const deep = await timed(`${crd(specSchema({ a: schema }))}\n---\n${app({})}`);
    expect(deep.stderr).toContain('the schema nests more than 64 levels deep');
    const lookahead = await timed(`${crd(specSchema({ a: { type: 'string', pattern: '^(?=a)' } }))}\n---\n${app({})}`);
    expect(lookahead.stderr).toContain('must be a valid regular expression');
  });
});
