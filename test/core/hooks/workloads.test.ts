/** The complete and shutdown hooks on every workload kind: env entries in every container, init containers included. */
import { describe, expect, it } from 'vitest';
import { plan, schemaKeyOfForTests, validateObserverSchema, type Resource } from './imports.js';
import { application, scopes } from '../fixtures.js';
import { at, b64, CONTEXT, COMPLETE_ENV, created, SECRET_NAME, SHUTDOWN_ENV, TOKENS, WORKLOADS } from './support.js';

const NOW = '2025-01-01T00:00:00Z';

describe.each(WORKLOADS)('hooks on a $kind', ({ kind, resource, podSpec }) => {
  const planFor = (hooks: ReadonlyArray<'complete' | 'shutdown'>) =>
    plan({
      application: application({ manifest: [resource], hooks }),
      live: [],
      scopes,
      now: NOW,
      options: { hooks: CONTEXT },
    });

  it('complete: every container and init container gets the token and URL from the hook Secret', () => {
    const body = created(planFor(['complete']), kind) as Resource;
    expect(at(body, [...podSpec, 'initContainers', 0, 'env'])).toEqual(COMPLETE_ENV);
    expect(at(body, [...podSpec, 'containers', 0, 'env'])).toEqual([
      { name: 'LOG_LEVEL', value: 'info' },
      ...COMPLETE_ENV,
    ]);
    expect(at(body, [...podSpec, 'containers', 1, 'env'])).toEqual(COMPLETE_ENV);
  });

  it('shutdown: the same injection with the _SHUTDOWN_ names', () => {
    const body = created(planFor(['shutdown']), kind) as Resource;
    expect(at(body, [...podSpec, 'initContainers', 0, 'env'])).toEqual(SHUTDOWN_ENV);
    expect(at(body, [...podSpec, 'containers', 0, 'env'])).toEqual([
      { name: 'LOG_LEVEL', value: 'info' },
      ...SHUTDOWN_ENV,
    ]);
    expect(at(body, [...podSpec, 'containers', 1, 'env'])).toEqual(SHUTDOWN_ENV);
  });

  it('both hooks: complete first, then shutdown, whatever the order in spec.hooks', () => {
    const body = created(planFor(['shutdown', 'complete', 'shutdown']), kind) as Resource;
    expect(at(body, [...podSpec, 'containers', 1, 'env'])).toEqual([...COMPLETE_ENV, ...SHUTDOWN_ENV]);
  });

  it('the hook Secret holds the token and the full callback URL, base64-encoded', () => {
    const secret = created(planFor(['complete', 'shutdown']), 'Secret', SECRET_NAME, 'default');
    expect(secret?.data).toEqual({
      'complete-url': b64(
        'http://kreconcile.kreconcile-system.svc:8080/v1/namespaces/default/applications/app/complete',
      ),
      'complete-token': b64(TOKENS.complete),
      'shutdown-url': b64(
        'http://kreconcile.kreconcile-system.svc:8080/v1/namespaces/default/applications/app/shutdown',
      ),
      'shutdown-token': b64(TOKENS.shutdown),
    });
  });

  it('the injected entries are observed: list controls raised, the schema still valid', () => {
    const result = planFor(['complete']);
    const schemas = result.status.mangledObserverSchema ?? [];
    const schema = schemas.find((s) => s.kind === kind);
    const env = at(schema, [...podSpec, 'containers', 0, 'env']);
    expect(env).toEqual([
      { name: null, value: null },
      { name: null, valueFrom: { secretKeyRef: { name: null, key: null } } },
      { name: null, valueFrom: { secretKeyRef: { name: null, key: null } } },
      { observer_schema_list_min_length: 3, observer_schema_list_max_length: 3 },
    ]);
    expect(at(schema, [...podSpec, 'initContainers', 0, 'env', 2])).toEqual({
      observer_schema_list_min_length: 2,
      observer_schema_list_max_length: 0,
    });
    const desired = result.status.lastAppliedManifest ?? [];
    expect(validateObserverSchema({ manifest: desired, observerSchema: schemas })._tag).toBe('Right');
    expect(schemas.map(schemaKeyOfForTests)).toEqual([`${resource.apiVersion}|${kind}|w`, `v1|Secret|${SECRET_NAME}`]);
  });

  it('the Secret is created before the workload (install order)', () => {
    const kinds = planFor(['complete'])
      .actions.filter((a) => a.type === 'create')
      .map((a) => a.ref.kind);
    expect(kinds.indexOf('Secret')).toBeLessThan(kinds.indexOf(kind));
  });
});
