/** The Application CRD's structural schema: the spec's known fields, from the one declaration (SPEC_FIELDS). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applicationCrd } from '../../../app/manifests/crd.js';
import { getIn, SPEC_FIELDS, type JsonValue } from '../../../core/internal.js';

const specSchema = (): JsonValue | undefined =>
  getIn(applicationCrd(), ['spec', 'versions', 0, 'schema', 'openAPIV3Schema', 'properties', 'spec']);

describe('applicationCrd', () => {
  it('declares exactly the spec fields of SPEC_FIELDS, each with its schema, and keeps no unknown spec field', () => {
    const schema = specSchema() as Record<string, JsonValue>;
    expect(schema.type).toBe('object');
    expect(schema['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
    expect(schema.properties).toEqual(
      Object.fromEntries(Object.entries(SPEC_FIELDS).map(([name, field]) => [name, field.schema])),
    );
  });

  it('gives every field a type (or keeps it free-form explicitly), as a structural schema must', () => {
    for (const [name, field] of Object.entries(SPEC_FIELDS)) {
      const schema = field.schema as Record<string, JsonValue>;
      expect({
        name,
        typed: typeof schema.type === 'string' || schema['x-kubernetes-preserve-unknown-fields'] === true,
      }).toEqual({ name, typed: true });
    }
  });

  it('constrains hooks to the known names', () => {
    expect(getIn(specSchema() ?? null, ['properties', 'hooks', 'items', 'enum'])).toEqual(['complete', 'shutdown']);
  });
});

describe('docs/application.md', () => {
  it('has a section for every declared spec field', () => {
    const headings = readFileSync('docs/application.md', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('## '));
    const undocumented = Object.keys(SPEC_FIELDS).filter(
      (name) => !headings.some((heading) => heading.includes(`\`spec.${name}\``)),
    );
    expect(undocumented).toEqual([]);
  });
});
