/** Strict validation of an Application's fixed fields: unknown fields with the closest known name. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SPEC_FIELDS, unknownFieldIssues, type JsonValue } from '../../core/internal.js';
import { closestName, editDistance } from '../../core/model/closest-name.js';

const app = (spec: Record<string, JsonValue>, metadata: Record<string, JsonValue> = { name: 'web' }): JsonValue => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata,
  spec,
});

describe('editDistance (optimal string alignment, case-insensitive)', () => {
  it.each([
    ['observerSchemas', 'observerSchema', 1],
    ['adpot', 'adopt', 1],
    ['hook', 'hooks', 1],
    ['Manifest', 'manifest', 0],
    ['toscaInput', 'toscaInputs', 1],
    ['', 'csar', 4],
    ['kitten', 'sitting', 3],
  ] as const)('%s → %s: %d', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });

  it('is a metric on the way: symmetric, zero only for equal words (ignoring case), at most the longer length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), (a, b) => {
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, b) === 0).toBe(a.toLowerCase() === b.toLowerCase());
        expect(editDistance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
    );
  });
});

describe('closestName', () => {
  const names = Object.keys(SPEC_FIELDS);

  it('suggests a likely typo and nothing for an unrelated word', () => {
    expect(closestName('observerSchemas', names)).toBe('observerSchema');
    expect(closestName('adpot', names)).toBe('adopt');
    expect(closestName('frobnicate', names)).toBeUndefined();
    expect(closestName('x', names)).toBeUndefined();
    expect(closestName('b', ['a'])).toBeUndefined();
  });

  it('prefers the closer of two candidates', () => {
    expect(closestName('tosca', ['toscaInputs', 'tosca'])).toBe('tosca');
  });
});

describe('unknownFieldIssues', () => {
  it('accepts every declared spec field and the top-level and metadata fields the API server knows', () => {
    const spec = Object.fromEntries(Object.keys(SPEC_FIELDS).map((name) => [name, null]));
    expect(
      unknownFieldIssues(
        app(spec, {
          name: 'web',
          namespace: 'shop',
          labels: {},
          annotations: {},
          finalizers: [],
          uid: 'u',
          resourceVersion: '1',
          generation: 1,
        }),
      ),
    ).toEqual([]);
    expect(unknownFieldIssues({ ...(app({}) as object), status: {} })).toEqual([]);
  });

  it('names each unknown field with the closest known one, in spec, metadata and at the top level', () => {
    const issues = unknownFieldIssues({
      ...(app({ observerSchemas: [], hook: [], manifest: [] }, { name: 'web', label: {} }) as object),
      specs: {},
    });
    expect(issues).toEqual([
      { path: 'specs', message: 'unknown field (the API server would refuse or drop it): did you mean `spec`?' },
      {
        path: 'metadata.label',
        message: 'unknown field (the API server would refuse or drop it): did you mean `labels`?',
      },
      {
        path: 'spec.observerSchemas',
        message: 'unknown field (the API server would refuse or drop it): did you mean `observerSchema`?',
      },
      { path: 'spec.hook', message: 'unknown field (the API server would refuse or drop it): did you mean `hooks`?' },
    ]);
  });

  it('lists the known fields when no name is close, with odd keys quoted in the path', () => {
    expect(unknownFieldIssues(app({ 'app.kubernetes.io/x': 1 }))).toEqual([
      {
        path: 'spec["app.kubernetes.io/x"]',
        message: `unknown field (the API server would refuse or drop it): remove it (the spec's fields are ${Object.keys(SPEC_FIELDS).join(', ')})`,
      },
    ]);
  });

  it('leaves the free-form parts alone (manifests, observer schemas) and non-objects to the decoder', () => {
    expect(
      unknownFieldIssues(
        app({ manifest: [{ anything: 1 }], observerSchema: [{ whatever: true }], toscaInputs: { any: 1 } }),
      ),
    ).toEqual([]);
    expect(unknownFieldIssues('text')).toEqual([]);
    expect(unknownFieldIssues({ ...(app({}) as object), spec: 'text', metadata: [] })).toEqual([]);
  });
});
