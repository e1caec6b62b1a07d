/**
 * Every TOSCA translation is bounded (issue 19): a property referring twice to the next one, nested
 * deep, expands exponentially. The bounds count steps and output characters, never seconds: the
 * property test counts the property lookups a translation makes (a Proxy on the template) and
 * checks they stay within the step bound, whatever the nesting.
 */
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createToscaTranslator } from '../../../app/tosca/translator.js';
import { parseYamlDocument } from '../../../app/tosca/yaml.js';
import {
  BOUND_EXCEEDED,
  translateTemplate,
  type Application,
  type JsonObject,
  type JsonValue,
  type ToscaBounds,
} from '../../../core/internal.js';

/** Properties p0 … p{depth}: p{k} lists `fanOut` references to p{k+1}; p{depth} is `leaf`. */
const nested = (depth: number, fanOut: number, leaf: string): Record<string, JsonValue> =>
  Object.fromEntries(
    Array.from({ length: depth + 1 }, (_, k) => [
      `p${k}`,
      k === depth ? leaf : Array.from({ length: fanOut }, () => ({ get_property: ['SELF', `p${k + 1}`] })),
    ]),
  );

const templateOf = (properties: JsonObject): JsonValue => ({
  tosca_definitions_version: 'tosca_simple_yaml_1_3',
  topology_template: {
    node_templates: {
      app: {
        type: 'tosca.nodes.indigo.KubernetesObject',
        properties: {
          ...properties,
          spec: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'bomb' },
            expanded: { get_property: ['SELF', 'p0'] },
          },
        },
      },
    },
  },
});

/** `properties` behind a Proxy counting every property read by name: the work a translation does. */
const counted = (
  properties: Record<string, JsonValue>,
): { readonly value: JsonObject; readonly reads: () => number } => {
  let reads = 0;
  const value = new Proxy(properties, {
    get: (target, key, receiver) => {
      if (typeof key === 'string' && key.startsWith('p')) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { value: value, reads: () => reads };
};

const leavesOf = (value: JsonValue | undefined): number =>
  Array.isArray(value) ? value.reduce<number>((sum, item) => sum + leavesOf(item), 0) : value === undefined ? 0 : 1;

const translate = (template: JsonValue, bounds: ToscaBounds) =>
  translateTemplate({ template, parseDocument: parseYamlDocument, root: 'spec.tosca', bounds });

describe('TOSCA translation bounds (steps counted, not seconds)', () => {
  it('property: any nesting either translates exactly or is refused naming the bound, within the step bound', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 3 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 200, max: 5_000 }),
        (depth, fanOut, leaf, maxSteps) => {
          const bounds: ToscaBounds = { maxSteps, maxOutputChars: 1024 * 1024 };
          const properties = counted(nested(depth, fanOut, leaf));
          const result = translate(templateOf(properties.value), bounds);
          const leaves = fanOut ** depth;
          // Every lookup of a property is a step (and more are counted): the work stops at the bound.
          expect(properties.reads()).toBeLessThanOrEqual(maxSteps + 10);
          if (E.isRight(result)) {
            expect(leavesOf(result.right[0]?.expanded as JsonValue)).toBe(leaves);
            expect(leaves).toBeLessThanOrEqual(maxSteps);
          } else {
            expect(result.left).toHaveLength(1);
            expect(result.left[0]?.message).toContain(`${BOUND_EXCEEDED} of ${maxSteps} evaluation steps (maxSteps)`);
            // Refused only when the expansion is big (a few steps per leaf): a small one always fits.
            expect(leaves * 16).toBeGreaterThan(maxSteps);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("the issue's 2 KB Application (19 levels of doubling) is refused with the default bounds, after at most maxSteps lookups", () => {
    const properties = counted(nested(19, 2, 'x'));
    const result = translateTemplate({
      template: templateOf(properties.value),
      parseDocument: parseYamlDocument,
      root: 'spec.tosca',
    });
    expect(E.isLeft(result) && result.left[0]?.message).toMatch(
      /^translation exceeds its bound of 100000 evaluation steps \(maxSteps\)/,
    );
    expect(properties.reads()).toBeLessThanOrEqual(100_000);
  });

  it('output characters are bounded too: a shared input repeated by concat and lists', () => {
    const big = 'v'.repeat(10_000);
    const template = templateOf({
      p0: Array.from({ length: 200 }, () => ({ concat: [{ get_input: 'big' }, { get_input: 'big' }] })),
    });
    const result = translateTemplate({
      template,
      inputs: { big },
      parseDocument: parseYamlDocument,
      root: 'spec.tosca',
      bounds: { maxSteps: 1_000_000, maxOutputChars: 1_000_000 },
    });
    expect(E.isLeft(result) && result.left[0]?.message).toContain(
      'translation exceeds its bound of 1000000 output characters (maxOutputChars)',
    );
  });

  it('inline templates go through the same bounds in the operator, with or without the worker thread: Invalid naming the bound', async () => {
    const application = {
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'bomb', namespace: 'team-a' },
      spec: { tosca: templateOf(nested(19, 2, 'x')) },
    } as unknown as Application;
    for (const isolation of [undefined, false] as const) {
      const translator = createToscaTranslator(isolation === undefined ? {} : { isolation });
      const translation = await translator(application);
      expect(translation).toMatchObject({ _tag: 'Invalid', retryable: false });
      expect(translation._tag === 'Invalid' && translation.message).toContain('(maxSteps)');
    }
  });
});
