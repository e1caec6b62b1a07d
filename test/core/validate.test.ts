/** Validation of observer schemas and manifests (docs/behaviour.md §2): every error, its message and its path. */
import { describe, it, expect } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { plan, showSpecError, validateObserverSchema, type Issue, type JsonValue } from '../../core/internal.js';
import { OPEN_TENANCY, application, scopes } from './fixtures.js';

const MIN = 'observer_schema_list_min_length';
const MAX = 'observer_schema_list_max_length';
const control = (min: JsonValue, max: JsonValue) => ({ [MIN]: min, [MAX]: max });

const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    ports: [
      { port: 80, name: 'http' },
      { port: 443, name: 'https' },
    ],
    selector: { app: 'web' },
  },
};
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } };
const manifest = [service, configMap];

const schemaWith = (spec: JsonValue, head: Record<string, JsonValue> = {}): JsonValue => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web' },
  ...head,
  spec,
});

const issuesOf = (...observerSchema: ReadonlyArray<JsonValue>): ReadonlyArray<Issue> => {
  const result = validateObserverSchema({ manifest, observerSchema });
  return E.isLeft(result) ? result.left.issues : [];
};

/** The single issue of a schema, checked for path and message. */
const expectIssue = (issues: ReadonlyArray<Issue>, path: string, message: string): void => {
  expect(issues.map((i) => i.path)).toEqual([path]);
  expect(issues[0]?.message).toContain(message);
};

describe('validateObserverSchema: valid schemas', () => {
  it('accepts identification values, null leaves, list controls and null metadata.namespace', () => {
    const schema = schemaWith(
      { ports: [{ port: null }, null, control(1, 3)], selector: null },
      { metadata: { name: 'web', namespace: null } },
    );
    expect(validateObserverSchema({ manifest, observerSchema: [schema] })).toEqual(E.right([schema]));
  });

  it('accepts no schemas at all (undefined or empty)', () => {
    expect(validateObserverSchema({ manifest, observerSchema: undefined })).toEqual(E.right([]));
    expect(validateObserverSchema({ manifest, observerSchema: [] })).toEqual(E.right([]));
  });

  it('max 0 means no maximum: any min, any number of observed elements', () => {
    expect(issuesOf(schemaWith({ ports: [null, null, null, control(5, 0)] }))).toEqual([]);
  });

  it('max equal to min and to the observed elements is fine', () => {
    expect(issuesOf(schemaWith({ ports: [null, null, control(2, 2)] }))).toEqual([]);
  });
});

describe('validateObserverSchema: identification errors', () => {
  it('missing apiVersion', () => {
    const { apiVersion: _, ...schema } = schemaWith(null) as Record<string, JsonValue>;
    expectIssue(issuesOf(schema), 'spec.observerSchema[0].apiVersion', 'missing apiVersion');
  });

  it('missing kind', () => {
    const { kind: _, ...schema } = schemaWith(null) as Record<string, JsonValue>;
    expectIssue(issuesOf(schema), 'spec.observerSchema[0].kind', 'missing kind');
  });

  it('apiVersion that is not a non-empty string', () => {
    expectIssue(
      issuesOf(schemaWith(null, { apiVersion: null })),
      'spec.observerSchema[0].apiVersion',
      'apiVersion must be',
    );
  });

  it('missing metadata', () => {
    const { metadata: _, ...schema } = schemaWith(null) as Record<string, JsonValue>;
    expectIssue(issuesOf(schema), 'spec.observerSchema[0].metadata', 'missing metadata');
  });

  it('metadata not an object', () => {
    expectIssue(
      issuesOf(schemaWith(null, { metadata: ['web'] })),
      'spec.observerSchema[0].metadata',
      'metadata must be an object',
    );
    expectIssue(
      issuesOf(schemaWith(null, { metadata: 'web' })),
      'spec.observerSchema[0].metadata',
      'metadata must be an object',
    );
  });

  it('missing metadata.name', () => {
    expectIssue(
      issuesOf(schemaWith(null, { metadata: { labels: null } })),
      'spec.observerSchema[0].metadata.name',
      'missing metadata.name',
    );
  });

  it('metadata.name null (it must carry the resource name)', () => {
    expectIssue(
      issuesOf(schemaWith(null, { metadata: { name: null } })),
      'spec.observerSchema[0].metadata.name',
      'metadata.name must be the resource name',
    );
  });

  it('metadata.namespace with a value', () => {
    expectIssue(
      issuesOf(schemaWith(null, { metadata: { name: 'web', namespace: 'default' } })),
      'spec.observerSchema[0].metadata.namespace',
      'metadata.namespace may only be true or null',
    );
  });

  it('a schema that is not an object', () => {
    expectIssue(issuesOf('Service web'), 'spec.observerSchema[0]', 'must be an object');
  });
});

describe('validateObserverSchema: leaves and lists', () => {
  it('a non-null leaf', () => {
    expectIssue(
      issuesOf(schemaWith({ selector: { app: 'web' } })),
      'spec.observerSchema[0].spec.selector.app',
      'observed fields are marked true (or null), got a string',
    );
  });

  it('a non-null leaf named like an identification field below the top level', () => {
    const issues = issuesOf(schemaWith({ template: { metadata: { name: 'web' } }, kind: 'Service' }));
    expect(issues.map((i) => i.path)).toEqual([
      'spec.observerSchema[0].spec.template.metadata.name',
      'spec.observerSchema[0].spec.kind',
    ]);
    expect(issues.every((i) => i.message.includes('observed fields are marked true'))).toBe(true);
  });

  it('a non-null leaf inside a list element', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [{ port: 80 }, control(1, 2)] })),
      'spec.observerSchema[0].spec.ports[0].port',
      'observed fields are marked true (or null), got 80',
    );
  });

  it('a list without a trailing control object is reported at the list path', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [{ port: null }] })),
      'spec.observerSchema[0].spec.ports',
      'a list must end with a list control object',
    );
  });

  it('a list without control still checks all its elements', () => {
    const issues = issuesOf(schemaWith({ ports: [{ port: null }, { port: 443 }] }));
    expect(issues.map((i) => i.path)).toEqual([
      'spec.observerSchema[0].spec.ports[1].port',
      'spec.observerSchema[0].spec.ports',
    ]);
  });

  it('a control object missing its min key', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [null, { [MAX]: 2 }] })),
      `spec.observerSchema[0].spec.ports[1].${MIN}`,
      `missing ${MIN}`,
    );
  });

  it('a control object missing its max key', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [null, { [MIN]: 1 }] })),
      `spec.observerSchema[0].spec.ports[1].${MAX}`,
      `missing ${MAX}`,
    );
  });

  it('a non-integer bound', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [null, control(1.5, 2)] })),
      `spec.observerSchema[0].spec.ports[1].${MIN}`,
      'must be a non-negative integer, got 1.5',
    );
  });

  it('a string bound', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [null, control(1, '2')] })),
      `spec.observerSchema[0].spec.ports[1].${MAX}`,
      'must be a non-negative integer, got "2"',
    );
  });

  it('a boolean bound', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [null, control(true, 2)] })),
      `spec.observerSchema[0].spec.ports[1].${MIN}`,
      'must be a non-negative integer, got true',
    );
  });

  it('a negative bound', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [null, control(1, -1)] })),
      `spec.observerSchema[0].spec.ports[1].${MAX}`,
      'must be a non-negative integer, got -1',
    );
  });

  it('max != 0 and max < min', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [null, control(3, 2)] })),
      'spec.observerSchema[0].spec.ports[1]',
      `${MAX} (2) is below ${MIN} (3)`,
    );
  });

  it('max != 0 and max < the number of observed elements', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [null, null, null, control(0, 2)] })),
      'spec.observerSchema[0].spec.ports[3]',
      `${MAX} (2) is below the 3 observed elements`,
    );
  });

  it('an empty list', () => {
    expectIssue(issuesOf(schemaWith({ ports: [] })), 'spec.observerSchema[0].spec.ports', 'empty list');
  });

  it('a nested list inside a list element is checked too', () => {
    const schema = schemaWith({ ports: [{ names: [null] }, control(1, 1)] });
    expectIssue(
      issuesOf(schema),
      'spec.observerSchema[0].spec.ports[0].names',
      'a list must end with a list control object',
    );
  });

  it('a "__proto__" key', () => {
    const schema = JSON.parse(
      '{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"__proto__":null}}',
    ) as JsonValue;
    expectIssue(issuesOf(schema), 'spec.observerSchema[0].spec.__proto__', 'the key "__proto__" is not allowed');
  });
});

describe('validateObserverSchema: matching schemas to resources', () => {
  it('a schema matching no manifest resource', () => {
    expectIssue(
      issuesOf(schemaWith(null, { metadata: { name: 'api' } })),
      'spec.observerSchema[0]',
      'observes v1 Service api, which is not in spec.manifest',
    );
  });

  it('a schema whose kind matches no resource', () => {
    expectIssue(issuesOf(schemaWith(null, { kind: 'Secret' })), 'spec.observerSchema[0]', 'not in spec.manifest');
  });

  it('two schemas for the same resource', () => {
    expectIssue(
      issuesOf(schemaWith(null), schemaWith({ ports: null })),
      'spec.observerSchema[1]',
      'a second schema for the same resource (the first is spec.observerSchema[0])',
    );
  });
});

describe('validateObserverSchema: several errors at once', () => {
  it('reports every problem of every schema, each with its path', () => {
    const issues = issuesOf(
      schemaWith(
        { ports: [{ port: 80 }, control(-1, 1)], selector: [] },
        { metadata: { name: 'web', namespace: 'x' } },
      ),
      { kind: 'ConfigMap', metadata: { name: 'settings' }, data: 'all' },
      schemaWith(null),
    );
    expect(issues.map((i) => i.path)).toEqual([
      'spec.observerSchema[0].metadata.namespace',
      'spec.observerSchema[0].spec.ports[0].port',
      `spec.observerSchema[0].spec.ports[1].${MIN}`,
      'spec.observerSchema[0].spec.selector',
      'spec.observerSchema[1].apiVersion',
      'spec.observerSchema[1].data',
      'spec.observerSchema[2]',
    ]);
    const result = validateObserverSchema({
      manifest,
      observerSchema: [schemaWith({ selector: 1 }), schemaWith(null, { metadata: 'x' })],
    });
    expect(E.isLeft(result) && showSpecError(result.left)).toBe(
      'spec.observerSchema[0].spec.selector: observed fields are marked true (or null), got 1: write true to observe this field\n' +
        'spec.observerSchema[1].metadata: metadata must be an object',
    );
  });

  it('rejects a non-list observerSchema instead of throwing', () => {
    const result = validateObserverSchema({
      manifest,
      observerSchema: { a: 1 } as unknown as ReadonlyArray<JsonValue>,
    });
    expect(E.isLeft(result) && result.left.issues).toEqual([
      { path: 'spec.observerSchema', message: 'observerSchema must be a list of schemas' },
    ]);
  });
});

describe('manifest and schema errors through plan', () => {
  const stalledOf = (spec: Record<string, JsonValue>) => {
    const result = plan({
      application: application(spec),
      live: [],
      scopes,
      now: 'now',
      options: { tenancy: OPEN_TENANCY },
    });
    return { result, stalled: result.status.conditions?.find((c) => c.type === 'Stalled') };
  };

  it('a resource without kind: Stalled InvalidSpec naming spec.manifest[1].kind, no actions', () => {
    const { result, stalled } = stalledOf({ manifest: [service, { apiVersion: 'v1', metadata: { name: 'x' } }] });
    expect(stalled?.status).toBe('True');
    expect(stalled?.reason).toBe('InvalidSpec');
    expect(stalled?.message).toContain('spec.manifest[1].kind: missing kind');
    expect(result.actions).toEqual([]);
    expect(result.outcome).toEqual({ _tag: 'AwaitChange' });
  });

  it('missing apiVersion and metadata.name are both named', () => {
    const { stalled } = stalledOf({ manifest: [{ kind: 'ConfigMap', metadata: {} }] });
    expect(stalled?.reason).toBe('InvalidSpec');
    expect(stalled?.message).toContain('spec.manifest[0].apiVersion: missing apiVersion');
    expect(stalled?.message).toContain('spec.manifest[0].metadata.name: missing metadata.name');
  });

  it('a manifest entry that is not an object', () => {
    const { stalled } = stalledOf({ manifest: [service, 'nope'] });
    expect(stalled?.message).toContain('spec.manifest[1]: a manifest entry must be a Kubernetes object');
  });

  it("the same resource twice (namespace defaulted to the Application's)", () => {
    const { stalled } = stalledOf({
      manifest: [configMap, { ...configMap, metadata: { name: 'settings', namespace: 'default' } }],
    });
    expect(stalled?.reason).toBe('InvalidSpec');
    expect(stalled?.message).toContain('spec.manifest[1]: the same resource as spec.manifest[0]');
  });

  it('the same name in two namespaces is two resources, not a duplicate', () => {
    const { stalled } = stalledOf({
      manifest: [configMap, { ...configMap, metadata: { name: 'settings', namespace: 'other' } }],
    });
    expect(stalled?.status).toBe('False');
  });

  it('a "__proto__" key in a resource', () => {
    const hostile = JSON.parse(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"__proto__":{"polluted":"yes"}}}',
    ) as JsonValue;
    const { stalled } = stalledOf({ manifest: [hostile] });
    expect(stalled?.message).toContain('spec.manifest[0].data.__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('no manifest, no tosca, no csar', () => {
    const { stalled } = stalledOf({});
    expect(stalled?.reason).toBe('InvalidSpec');
    expect(stalled?.message).toContain('the spec needs a non-empty manifest (or tosca/csar)');
  });

  it('an invalid observer schema: Stalled InvalidObserverSchema with the path', () => {
    const { result, stalled } = stalledOf({ manifest, observerSchema: [schemaWith({ ports: [null] })] });
    expect(stalled?.reason).toBe('InvalidObserverSchema');
    expect(stalled?.message).toBe(
      `spec.observerSchema[0].spec.ports: a list must end with a list control object {"${MIN}": m, "${MAX}": M}`,
    );
    expect(result.actions).toEqual([]);
  });
});

describe('observed markers: true (merge-patch safe) and null (Krake)', () => {
  const configMapSchema = (data: JsonValue): JsonValue => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings' },
    data,
  });

  it('accepts true wherever null is accepted and returns the internal form (null markers)', () => {
    const written = schemaWith(
      { ports: [{ port: true }, true, control(1, 3)], selector: true },
      { metadata: { name: 'web', namespace: true } },
    );
    const internal = schemaWith(
      { ports: [{ port: null }, null, control(1, 3)], selector: null },
      { metadata: { name: 'web', namespace: null } },
    );
    expect(validateObserverSchema({ manifest, observerSchema: [written] })).toEqual(E.right([internal]));
  });

  it('mixes both markers in one schema and never touches list bounds or identification', () => {
    const written = schemaWith({ ports: [{ port: null, name: true }, control(0, 0)] });
    expect(validateObserverSchema({ manifest, observerSchema: [written] })).toEqual(
      E.right([schemaWith({ ports: [{ port: null, name: null }, control(0, 0)] })]),
    );
  });

  it('a schema written with null markers only is returned as it is (same object)', () => {
    const written = schemaWith({ selector: null });
    const result = validateObserverSchema({ manifest, observerSchema: [written] });
    expect(E.isRight(result) && result.right[0]).toBe(written);
  });

  it('false is no marker: it says how to stop observing', () => {
    expectIssue(
      issuesOf(schemaWith({ selector: false })),
      'spec.observerSchema[0].spec.selector',
      'false is no marker: write true to observe this field, or remove it',
    );
  });

  it('true is no list bound', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [true, control(1, true)] })),
      `spec.observerSchema[0].spec.ports[1].${MAX}`,
      'must be a non-negative integer, got true',
    );
  });

  it('an empty object (what a merge patch leaves of {A: null}) is an error, not "observe nothing"', () => {
    expectIssue(
      issuesOf(configMapSchema({})),
      'spec.observerSchema[0].data',
      'empty object: it observes nothing; mark each observed field with true',
    );
  });

  it('a list of nothing but empty element schemas is an error; an empty element before an observed one holds its place', () => {
    expectIssue(
      issuesOf(schemaWith({ ports: [{}, control(1, 1)] })),
      'spec.observerSchema[0].spec.ports',
      'every element schema is empty: it observes nothing',
    );
    expectIssue(
      issuesOf(schemaWith({ ports: [{}, {}, control(2, 2)] })),
      'spec.observerSchema[0].spec.ports',
      'every element schema is empty',
    );
    expect(issuesOf(schemaWith({ ports: [{}, { port: true }, control(2, 2)] }))).toEqual([]);
  });

  it('a schema observing nothing beyond its identity (what a merge patch leaves of data: null) is an error', () => {
    const stripped = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' } };
    expectIssue(
      issuesOf(stripped),
      'spec.observerSchema[0]',
      "observes no field beyond the resource's identity: mark each observed field with true",
    );
    expect(issuesOf({ ...stripped, metadata: { name: 'settings', labels: true } })).toEqual([]);
  });

  it('the operator stalls with InvalidObserverSchema on a stripped schema, and plans from true markers as from null ones', () => {
    const planOf = (observerSchema: ReadonlyArray<JsonValue>) =>
      plan({
        application: application({ manifest: [configMap], observerSchema } as never),
        live: [],
        scopes,
        now: 'now',
      });
    const stripped = planOf([configMapSchema({})]);
    const stalled = stripped.status.conditions?.find((c) => c.type === 'Stalled');
    expect({ status: stalled?.status, reason: stalled?.reason }).toEqual({
      status: 'True',
      reason: 'InvalidObserverSchema',
    });
    expect(stripped.actions).toEqual([]);
    const withTrue = planOf([configMapSchema({ a: true })]);
    const withNull = planOf([configMapSchema({ a: null })]);
    expect(withTrue.actions).toEqual(withNull.actions);
    expect(withTrue.status.mangledObserverSchema).toEqual([configMapSchema({ a: null })]);
  });
});
