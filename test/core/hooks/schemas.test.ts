/** Hooks against custom observer schemas: nothing crashes, nothing is duplicated, the schema stays valid. */
import { describe, expect, it } from 'vitest';
import {
  builtinScopes,
  mangle,
  validateObserverSchema,
  type MangleContext,
  type ObserverSchema,
  type Resource,
} from './imports.js';
import { deepFreeze } from '../fixtures.js';
import { at, COMPLETE_ENV, CONTEXT, SECRET_NAME } from './support.js';

const context: MangleContext = { ...CONTEXT, owner: { namespace: 'default', name: 'app' }, scopes: builtinScopes };

const deployment = (containers: ReadonlyArray<object>): Resource =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 2, template: { spec: { containers } } },
  }) as unknown as Resource;

const run = (
  desired: ReadonlyArray<Resource>,
  mangledSchema: ReadonlyArray<ObserverSchema>,
  hooks: ReadonlyArray<string> = ['complete'],
) => mangle({ desired: deepFreeze(desired), mangledSchema: deepFreeze(mangledSchema), hooks, context });

const schemaOf = (schemas: ReadonlyArray<ObserverSchema>, kind: string) =>
  schemas.find((schema) => schema.kind === kind);

const ENTRY = { name: null, valueFrom: { secretKeyRef: { name: null, key: null } } };

describe('hooks with custom observer schemas', () => {
  it('a schema that does not observe containers: no crash; the injected entries become observed positions', () => {
    const schema = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: null },
    } as unknown as ObserverSchema;
    const result = run(
      [
        deployment([
          { name: 'a', image: 'x' },
          { name: 'b', image: 'y', env: [{ name: 'K', value: 'v' }] },
        ]),
      ],
      [schema],
    );
    const containers = at(schemaOf(result.mangledSchema, 'Deployment'), ['spec', 'template', 'spec', 'containers']);
    expect(containers).toEqual([
      { env: [ENTRY, ENTRY, { observer_schema_list_min_length: 2, observer_schema_list_max_length: 0 }] },
      // the user's own entry stays unobserved: `{}` holds its place
      { env: [{}, ENTRY, ENTRY, { observer_schema_list_min_length: 3, observer_schema_list_max_length: 0 }] },
      { observer_schema_list_min_length: 0, observer_schema_list_max_length: 0 },
    ]);
    expect(at(schemaOf(result.mangledSchema, 'Deployment'), ['spec', 'replicas'])).toBeNull();
    expect(validateObserverSchema({ manifest: result.desired, observerSchema: result.mangledSchema })._tag).toBe(
      'Right',
    );
  });

  it('a schema observing only the first container: the second gets an element schema, the maximum is raised', () => {
    const schema = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        template: {
          spec: {
            containers: [{ image: null }, { observer_schema_list_min_length: 1, observer_schema_list_max_length: 1 }],
          },
        },
      },
    } as unknown as ObserverSchema;
    const result = run(
      [
        deployment([
          { name: 'a', image: 'x' },
          { name: 'b', image: 'y' },
        ]),
      ],
      [schema],
    );
    const containers = at(schemaOf(result.mangledSchema, 'Deployment'), [
      'spec',
      'template',
      'spec',
      'containers',
    ]) as ReadonlyArray<unknown>;
    expect(containers[0]).toEqual({
      image: null,
      env: [ENTRY, ENTRY, { observer_schema_list_min_length: 2, observer_schema_list_max_length: 0 }],
    });
    expect(containers[2]).toEqual({ observer_schema_list_min_length: 1, observer_schema_list_max_length: 2 });
    expect(validateObserverSchema({ manifest: result.desired, observerSchema: result.mangledSchema })._tag).toBe(
      'Right',
    );
  });

  it('a subtree observed whole (null) already covers the injected entries: the schema is unchanged there', () => {
    const schema = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { template: null },
    } as unknown as ObserverSchema;
    const result = run([deployment([{ name: 'a', image: 'x' }])], [schema]);
    expect(at(schemaOf(result.mangledSchema, 'Deployment'), ['spec'])).toEqual({ template: null });
    expect(at(result.desired[0], ['spec', 'template', 'spec', 'containers', 0, 'env'])).toEqual(COMPLETE_ENV);
  });

  it('an env list with no maximum keeps it; its minimum is raised to cover the injected entries', () => {
    const schema = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        template: {
          spec: {
            containers: [
              { env: [{ name: null }, { observer_schema_list_min_length: 0, observer_schema_list_max_length: 0 }] },
              { observer_schema_list_min_length: 1, observer_schema_list_max_length: 0 },
            ],
          },
        },
      },
    } as unknown as ObserverSchema;
    const result = run(
      [
        deployment([
          {
            name: 'a',
            image: 'x',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
        ]),
      ],
      [schema],
    );
    expect(
      at(schemaOf(result.mangledSchema, 'Deployment'), ['spec', 'template', 'spec', 'containers', 0, 'env']),
    ).toEqual([
      { name: null },
      {},
      ENTRY,
      ENTRY,
      { observer_schema_list_min_length: 4, observer_schema_list_max_length: 0 },
    ]);
  });

  it("an entry that already exists is not duplicated (the user's definition stands); the others are added", () => {
    const own = { name: 'KRECONCILE_COMPLETE_TOKEN', value: 'set-by-hand' };
    const result = run([deployment([{ name: 'a', image: 'x', env: [own] }])], []);
    expect(at(result.desired[0], ['spec', 'template', 'spec', 'containers', 0, 'env'])).toEqual([own, COMPLETE_ENV[1]]);
  });

  it('a container whose env is not a list, or a workload without containers, is left alone', () => {
    const odd = deployment([{ name: 'a', image: 'x', env: 'not-a-list' }]);
    const empty = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c', namespace: 'default' },
      spec: { schedule: '* * * * *' },
    } as unknown as Resource;
    const result = run([odd, empty], []);
    expect(result.desired.slice(0, 2)).toEqual([odd, empty]);
  });

  it('is idempotent: mangling its own output changes nothing', () => {
    const once = run(
      [deployment([{ name: 'a', image: 'x', env: [{ name: 'A', value: '1' }] }])],
      [],
      ['complete', 'shutdown'],
    );
    const twice = run(once.desired, once.mangledSchema, ['complete', 'shutdown']);
    expect(twice).toEqual(once);
  });

  it('no hooks: the very same objects come back', () => {
    const desired = [deployment([{ name: 'a', image: 'x' }])];
    const result = mangle({ desired, mangledSchema: [], hooks: undefined, context });
    expect(result.desired).toBe(desired);
  });

  it('the Secret schema observes the URL and token of the enabled hooks (so a missing key is written)', () => {
    const result = run([deployment([{ name: 'a', image: 'x' }])], [], ['complete', 'shutdown']);
    expect(schemaOf(result.mangledSchema, 'Secret')).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: SECRET_NAME, namespace: null },
      data: { 'complete-url': null, 'complete-token': null, 'shutdown-url': null, 'shutdown-token': null },
    });
  });
});
