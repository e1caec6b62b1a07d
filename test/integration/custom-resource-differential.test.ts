/**
 * Differential test of custom resources (issue 34 item 4): fast-check generates structural
 * schemas (types, bounds, enums, patterns, formats, nullable, int-or-string, list types, maps,
 * defaults, preserve-unknown-fields, embedded resources, CEL rules with messageExpression and
 * reason) and, per schema, objects whose fields are absent, at their zero value, valid, or invalid.
 * Each CRD is installed on the real kube-apiserver and the memory server; each object is created on
 * both, and the answers are compared: the stored spec when both accept, the status code, message
 * and causes when both refuse.
 *
 * The seed is printed; rerun one with CRD_DIFF_SEED=<seed>. Bounded: CRD_DIFF_SCHEMAS (default 6)
 * schemas × CRD_DIFF_OBJECTS (default 16) objects. Known differences are listed in docs/testing.md.
 */
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMemoryCluster, systemClock, type MemoryCluster } from '../../adapters/memory/index.js';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import type { JsonObject, JsonValue } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';
import { showClusterError, type ClusterError } from '../../core/ports/errors.js';
import { eventually } from '../support/eventually.js';
import { crdWithSchema } from '../support/crd.js';
import { connect, describeWithApiServer, freshNamespace, must, uniqueName } from '../support/kubernetes-env.js';

const SEED = Number(process.env.CRD_DIFF_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SCHEMAS = Number(process.env.CRD_DIFF_SCHEMAS ?? 6);
const OBJECTS = Number(process.env.CRD_DIFF_OBJECTS ?? 16);

/**
 * A field template: its schema and values to write, the first `valid` of them valid (zero values
 * included); absent is added by the object generator. Most objects are valid, so stored objects
 * (pruning, defaulting) are compared as often as refusals.
 */
type Field = { readonly schema: JsonObject; readonly valid: number; readonly values: ReadonlyArray<JsonValue> };

const FIELDS: ReadonlyArray<Field> = [
  { schema: { type: 'integer', minimum: 1, maximum: 10 }, valid: 2, values: [1, 10, 0, 11, -1, '3', 1.5, null] },
  { schema: { type: 'integer', minimum: 0, maximum: 5, exclusiveMaximum: true }, valid: 2, values: [0, 4, 5] },
  {
    schema: { type: 'number', minimum: 0.5, exclusiveMinimum: true, multipleOf: 0.25 },
    valid: 2,
    values: [0.75, 2, 0, 0.5, 0.8],
  },
  { schema: { type: 'string', enum: ['fast', 'slow'] }, valid: 2, values: ['fast', 'slow', '', 'medium', 1, null] },
  {
    schema: { type: 'string', pattern: '^[a-z]+$', minLength: 2, maxLength: 5 },
    valid: 1,
    values: ['abc', '', 'a', 'ABC', 'abcdefg'],
  },
  { schema: { type: 'string', format: 'date-time' }, valid: 1, values: ['2024-01-02T03:04:05Z', 'yesterday', ''] },
  { schema: { type: 'string', format: 'ipv4' }, valid: 1, values: ['10.0.0.1', '10.0.0.256', ''] },
  { schema: { type: 'boolean', default: true }, valid: 3, values: [true, false, 'true', null] },
  { schema: { 'x-kubernetes-int-or-string': true }, valid: 3, values: [0, 8080, 'http', '', 1.5, true] },
  { schema: { type: 'string', nullable: true }, valid: 3, values: [null, '', 'x', 1] },
  {
    schema: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', minItems: 1, maxItems: 3 },
    valid: 2,
    values: [['a'], ['a', 'b'], [], ['a', 'a'], ['a', 'b', 'c', 'd'], [1]],
  },
  {
    schema: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 } },
      },
    },
    valid: 2,
    values: [[], [{ name: 'a' }], [{ name: 'a' }, { name: 'a', port: 1 }], [{ port: 1 }], [{ name: 'b', junk: 1 }]],
  },
  {
    schema: { type: 'object', additionalProperties: { type: 'integer' }, maxProperties: 2, minProperties: 1 },
    valid: 1,
    values: [{ a: 1 }, {}, { a: 'x' }, { a: 1, b: 2, c: 3 }],
  },
  {
    schema: {
      type: 'object',
      properties: { mode: { type: 'string', default: 'fast' }, level: { type: 'integer', default: 1 } },
    },
    valid: 2,
    values: [{}, { mode: null }, { junk: 1 }, { level: 0 }],
  },
  {
    schema: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { n: { type: 'integer', default: 2 } },
    },
    valid: 2,
    values: [{}, { free: { a: [1, null] } }, { n: 'x' }],
  },
  {
    schema: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    valid: 1,
    values: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, {}, { kind: 'X' }],
  },
  {
    schema: {
      type: 'integer',
      'x-kubernetes-validations': [
        { rule: 'self % 2 == 0', messageExpression: "self > 100 ? 'a large odd value' : 'a small odd value'" },
      ],
    },
    valid: 2,
    values: [0, 2, 3, 'x'],
  },
  {
    schema: {
      type: 'string',
      'x-kubernetes-validations': [
        { rule: "self.startsWith('k')", message: 'must start with k', reason: 'FieldValueForbidden' },
      ],
    },
    valid: 1,
    values: ['k8s', 'x', ''],
  },
];

type Generated = { readonly fields: ReadonlyArray<Field>; readonly required: boolean };

const schemaOf = ({ fields, required }: Generated): JsonObject => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      ...(required ? { required: ['f0'] } : {}),
      properties: Object.fromEntries(fields.map((field, index) => [`f${index}`, field.schema])),
    },
  },
});

const generatedSchema: fc.Arbitrary<Generated> = fc.record({
  fields: fc.array(fc.constantFrom(...FIELDS), { minLength: 3, maxLength: 7 }),
  required: fc.boolean(),
});

/** An object's spec: each field absent or one of its values; sometimes an unknown field. */
const specOf = (generated: Generated): fc.Arbitrary<JsonObject> =>
  fc
    .tuple(
      fc.tuple(
        ...generated.fields.map((field) =>
          fc.oneof(
            { arbitrary: fc.constant(undefined), weight: 2 },
            { arbitrary: fc.constantFrom(...field.values.slice(0, field.valid)), weight: 6 },
            { arbitrary: fc.constantFrom(...field.values), weight: 2 },
          ),
        ),
      ),
      fc.boolean(),
    )
    .map(([values, unknown]) => ({
      ...Object.fromEntries(values.flatMap((value, index) => (value === undefined ? [] : [[`f${index}`, value]]))),
      ...(unknown ? { unknownField: 1 } : {}),
    }));

const crdOf = (group: string, schema: JsonObject): Resource => crdWithSchema(schema, { group });

type Answer = { readonly code: number; readonly message?: string; readonly causes?: string; readonly spec?: string };

const sortedCauses = (error: ClusterError): string =>
  JSON.stringify(
    (error.causes ?? []).map((cause) => `${cause.field ?? ''} | ${cause.reason ?? ''} | ${cause.message}`).sort(),
  );

/** A message with its causes sorted (the servers may list them in different orders). */
const sortedMessage = (message: string): string => {
  const match = /^(.* is invalid: )\[(.*)\]$/.exec(message);
  return match === null ? message : `${match[1] ?? ''}[${(match[2] ?? '').split(', ').sort().join(', ')}]`;
};

const answerOf = (result: E.Either<ClusterError, Resource>): Answer =>
  E.isRight(result)
    ? { code: 201, spec: JSON.stringify(result.right.spec ?? null) }
    : { code: result.left.code, message: sortedMessage(result.left.message), causes: sortedCauses(result.left) };

describeWithApiServer('custom resources: the in-memory API server against kube-apiserver', (env) => {
  let admin: KubernetesCluster;
  let memory: MemoryCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  const groups: string[] = [];
  const tally = { schemas: 0, objects: 0, refusedByBoth: 0, differences: [] as string[] };

  beforeAll(async () => {
    admin = connect(env);
    ({ namespace, cleanup } = await freshNamespace(admin, 'kr-crd-diff'));
    memory = createMemoryCluster({ clock: systemClock, seed: 1, workloads: false });
    const created = await memory.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })();
    if (E.isLeft(created)) throw new Error(showClusterError(created.left));
  });
  afterAll(async () => {
    console.log(
      `custom-resource differential: seed ${SEED}, ${tally.schemas} schemas, ${tally.objects} objects compared (${tally.refusedByBoth} refused by both), ${tally.differences.length} differences`,
    );
    for (const group of groups)
      await admin.delete({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: `widgets.${group}`,
      })();
    await cleanup();
  });

  /** Installs the CRD on both servers; answers a client whose discovery serves it. */
  const install = async (schema: JsonObject): Promise<{ real: KubernetesCluster; group: string } | undefined> => {
    const group = `${uniqueName('d')}.kr-diff.example.com`;
    const crd = crdOf(group, schema);
    const onReal = await admin.create(crd)();
    const onMemory = await memory.create(crd)();
    if (E.isLeft(onReal) || E.isLeft(onMemory)) {
      const both = E.isLeft(onReal) && E.isLeft(onMemory);
      if (!both)
        tally.differences.push(
          `CRD ${JSON.stringify(schema)}: real ${E.isLeft(onReal) ? showClusterError(onReal.left) : 'created'}, memory ${E.isLeft(onMemory) ? showClusterError(onMemory.left) : 'created'}`,
        );
      return undefined;
    }
    groups.push(group);
    let real = connect(env);
    await eventually(async () => {
      real = connect(env);
      expect((await real.scopeOf(`${group}/v1`, 'Widget')())._tag).toBe('Right');
    }, 30_000);
    return { real, group };
  };

  it(`stores and refuses what kube-apiserver stores and refuses (seed ${SEED}, ${SCHEMAS} schemas × ${OBJECTS} objects)`, async () => {
    console.log(`custom-resource differential: seed ${SEED} (rerun with CRD_DIFF_SEED=${SEED})`);
    const schemas = fc.sample(generatedSchema, { seed: SEED, numRuns: SCHEMAS });
    for (const [index, generated] of schemas.entries()) {
      const schema = schemaOf(generated);
      const installed = await install(schema);
      if (installed === undefined) continue;
      tally.schemas += 1;
      const specs = fc.sample(specOf(generated), { seed: SEED + index + 1, numRuns: OBJECTS });
      for (const [n, spec] of specs.entries()) {
        const object: Resource = {
          apiVersion: `${installed.group}/v1`,
          kind: 'Widget',
          metadata: { name: `w-${n}`, namespace },
          spec,
        };
        const real = answerOf(await installed.real.create(object)());
        const mem = answerOf(await memory.create(object)());
        tally.objects += 1;
        if (real.code !== 201 && mem.code !== 201) tally.refusedByBoth += 1;
        if (JSON.stringify(real) !== JSON.stringify(mem))
          tally.differences.push(
            `schema ${JSON.stringify(schema.properties)}\n  object ${JSON.stringify(spec)}\n  real   ${JSON.stringify(real)}\n  memory ${JSON.stringify(mem)}`,
          );
      }
    }
    for (const difference of tally.differences) console.log(difference);
    expect(tally.differences).toEqual([]);
  }, 600_000);
});
