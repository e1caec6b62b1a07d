/**
 * Custom resources validated, pruned and defaulted by their CRD's structural schema on the memory
 * server, as kube-apiserver 1.36 does: 422 Invalid with the real causes and message text, CEL rules
 * with messageExpression, reason, fieldPath and transition rules; CRDs whose rules cost too much or
 * whose schema crosses a bound are refused. The wording is checked against the real server by
 * test/integration/custom-resource-differential.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { createMemoryCluster } from '../../../adapters/memory/index.js';
import { failure, must } from './support.js';
import { crdWithSchema } from '../../support/crd.js';

const crd = (schema: JsonObject): Resource => crdWithSchema(schema);

const WIDGET_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      'x-kubernetes-validations': [
        {
          rule: 'self.size <= self.max',
          messageExpression: "'size ' + string(self.size) + ' is over max'",
          fieldPath: '.size',
        },
        { rule: 'self.mode == oldSelf.mode', message: 'mode is immutable', reason: 'FieldValueForbidden' },
      ],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        max: { type: 'integer', default: 5 },
        mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast' },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
        when: { type: 'string', format: 'date-time' },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', maxItems: 3 },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
          },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
        extra: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { level: { type: 'integer', default: 1 } },
        },
      },
    },
  },
};

const widget = (spec: JsonObject, name = 'w'): Resource => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
  spec,
});

const cluster = async () => {
  const memory = createMemoryCluster();
  await must(memory.create(crd(WIDGET_SCHEMA)));
  return memory;
};

describe('custom resources under their structural schema', () => {
  it('stores a valid object pruned and defaulted', async () => {
    const memory = await cluster();
    const stored = await must(
      memory.create(widget({ size: 3, junk: true, note: null, extra: { free: { a: 1 } }, port: 'http' })),
    );
    expect(stored.spec).toEqual({
      size: 3,
      max: 5,
      mode: 'fast',
      note: null,
      extra: { free: { a: 1 }, level: 1 },
      port: 'http',
    });
  });

  it('refuses an invalid object with 422 and the real causes', async () => {
    const memory = await cluster();
    const error = await failure(
      memory.create(
        widget({
          size: 11,
          name: 'Abc',
          mode: 'medium',
          when: 'yesterday',
          tags: ['a', 'a'],
          port: 1.5,
          template: { spec: {} },
        }),
      ),
    );
    expect(error._tag).toBe('Invalid');
    expect(error.code).toBe(422);
    expect(error.causes).toEqual(
      expect.arrayContaining([
        {
          field: 'spec.size',
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 11: spec.size in body should be less than or equal to 10',
        },
        {
          field: 'spec.name',
          reason: 'FieldValueInvalid',
          message: `Invalid value: "Abc": spec.name in body should match '^[a-z]+$'`,
        },
        {
          field: 'spec.mode',
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "medium": supported values: "fast", "slow"',
        },
        {
          field: 'spec.when',
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
        },
        { field: 'spec.tags[1]', reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"' },
        { field: 'spec.template.kind', reason: 'FieldValueRequired', message: 'Required value' },
      ]),
    );
    expect(error.message).toMatch(/^Widget\.example\.com "w" is invalid: \[spec\./);
  });

  it('runs CEL rules after the schema, with messageExpression, fieldPath, reason and oldSelf', async () => {
    const memory = await cluster();
    const over = await failure(memory.create(widget({ size: 7 })));
    expect(over.causes).toEqual([
      { field: 'spec.size', reason: 'FieldValueInvalid', message: 'Invalid value: "object": size 7 is over max' },
    ]);
    expect(over.message).toBe(
      'Widget.example.com "w" is invalid: spec.size: Invalid value: "object": size 7 is over max',
    );
    const stored = await must(memory.create(widget({ size: 2 })));
    const changed = await failure(memory.update({ ...stored, spec: { ...(stored.spec as JsonObject), mode: 'slow' } }));
    expect(changed.causes).toEqual([
      { field: 'spec', reason: 'FieldValueForbidden', message: 'Forbidden: mode is immutable' },
    ]);
  });

  it('does not run CEL rules over an object with a wrong type or a missing required field', async () => {
    const memory = await cluster();
    const error = await failure(memory.create(widget({ max: 'x' })));
    expect(error.causes).toHaveLength(3);
    expect(error.causes).toEqual(
      expect.arrayContaining([
        {
          field: 'spec.max',
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "string": spec.max in body must be of type integer: "string"',
        },
        { field: 'spec.size', reason: 'FieldValueRequired', message: 'Required value' },
        {
          field: '<nil>',
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
        },
      ]),
    );
  });

  it('refuses a CRD whose rule could cost more than the server allows', async () => {
    const memory = createMemoryCluster();
    const error = await failure(
      memory.create(
        crd({
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: { list: { type: 'array', items: { type: 'array', items: { type: 'string' } } } },
              'x-kubernetes-validations': [{ rule: 'self.list.all(a, self.list.all(b, a == b))' }],
            },
          },
        }),
      ),
    );
    expect(error._tag).toBe('Invalid');
    expect(error.causes?.[0]?.field).toBe(
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
    );
    expect(error.causes?.[0]?.message).toMatch(/^Forbidden: estimated rule cost exceeds budget by factor of/);
  });
});
