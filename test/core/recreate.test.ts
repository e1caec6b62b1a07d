/**
 * Immutable fields: the server's refusal is classified `ImmutableField` naming the field (never
 * retried); a resource that opts into recreation gets a `recreate` action instead of the patch.
 */
import { describe, expect, it } from 'vitest';
import {
  clusterError,
  errorPolicy,
  immutableFieldsOf,
  plan,
  RECREATE_ANNOTATION,
  type Plan,
  type Resource,
} from '../../core/internal.js';
import { actionsOf, application, marked, scopes, served } from './fixtures.js';

const deployment = (app: string, annotations: Record<string, string> = {}): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', annotations },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app } },
    template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

const planFor = (desired: Resource, live: Resource): Plan =>
  plan({ application: application({ manifest: [desired] }), live: [live], scopes, now: 'now' });

const selectorRefused = clusterError(
  'Invalid',
  'Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"v2"}}: field is immutable',
  {
    causes: [
      {
        field: 'spec.selector',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: {"matchLabels":{"app":"v2"}}: field is immutable',
      },
    ],
  },
);

describe('error policy: immutable fields', () => {
  it('a 422 whose cause says "field is immutable" or "may not change once set" is terminal ImmutableField, naming the fields', () => {
    expect(errorPolicy(selectorRefused, 1, 0.5)).toEqual({
      _tag: 'Terminal',
      reason: 'ImmutableField',
      detail: expect.stringMatching(/^spec\.selector cannot change once set .*kreconcile\.io\/recreate: "true"/),
    });
    const ip = clusterError(
      'Invalid',
      'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.0.0.7"]: may not change once set',
      {
        causes: [
          {
            field: 'spec.clusterIPs[0]',
            reason: 'FieldValueInvalid',
            message: 'Invalid value: ["10.0.0.7"]: may not change once set',
          },
        ],
      },
    );
    expect(immutableFieldsOf(ip)).toEqual(['spec.clusterIPs[0]']);
    // Even on a guarded patch (a failed `test` retries; an immutable field never succeeds).
    expect(errorPolicy(ip, 3, 0.5, { guardedPatch: true })._tag).toBe('Terminal');
  });

  it('other 422s keep their classification', () => {
    const other = clusterError('Invalid', 'x is invalid', {
      causes: [{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 0' }],
    });
    expect(immutableFieldsOf(other)).toEqual([]);
    expect(errorPolicy(other, 1, 0.5)).toEqual({ _tag: 'Terminal', reason: 'InvalidSpec' });
    expect(immutableFieldsOf(clusterError('Conflict', 'field is immutable'))).toEqual([]);
  });
});

describe('plan: recreate', () => {
  it('without the annotation, a selector change is an ordinary patch (the server decides)', () => {
    const result = planFor(deployment('v2'), served(marked(deployment('v1'))));
    expect(result.actions.map((a) => a.type)).toEqual(['patch']);
  });

  it('with kreconcile.io/recreate: "true", a change of an immutable field is planned as recreate, with the new body and the changes', () => {
    const desired = deployment('v2', { [RECREATE_ANNOTATION]: 'true' });
    const result = planFor(desired, served(marked(deployment('v1', { [RECREATE_ANNOTATION]: 'true' }))));
    const [recreate] = actionsOf(result, 'recreate');
    expect(result.actions.map((a) => a.type)).toEqual(['recreate']);
    expect(recreate?.fields).toEqual(['spec.selector']);
    expect(recreate?.body.spec).toEqual(desired.spec);
    expect(recreate?.body.metadata.annotations).toMatchObject({
      'kreconcile.io/owner': 'default/app',
      [RECREATE_ANNOTATION]: 'true',
    });
    expect(recreate?.changes.map((c) => c.path)).toEqual([
      'spec.selector.matchLabels.app',
      'spec.template.metadata.labels.app',
    ]);
    expect(result.summary).toEqual({ create: 0, patch: 0, delete: 0, conflict: 0, recreate: 1 });
    expect(result.status.conditions?.find((c) => c.type === 'Reconciling')?.message).toBe(
      '0 to create, 0 to patch, 0 to delete, 1 to recreate',
    );
  });

  it('with the annotation, a change of mutable fields only stays a patch', () => {
    const desired = {
      ...deployment('v1', { [RECREATE_ANNOTATION]: 'true' }),
      spec: { ...(deployment('v1').spec as object), replicas: 5 },
    } as Resource;
    const result = planFor(desired, served(marked(deployment('v1', { [RECREATE_ANNOTATION]: 'true' }))));
    expect(result.actions.map((a) => a.type)).toEqual(['patch']);
    expect(result.summary.recreate).toBeUndefined();
  });

  it('a recreated object that is still terminating is waited for, then created', () => {
    const desired = deployment('v2', { [RECREATE_ANNOTATION]: 'true' });
    const live = served(marked(deployment('v1', { [RECREATE_ANNOTATION]: 'true' })));
    const terminating = {
      ...live,
      metadata: { ...live.metadata, deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['x'] },
    };
    const waiting = planFor(desired, terminating);
    expect(waiting.actions).toEqual([]);
    expect(waiting.status.conditions?.find((c) => c.type === 'Reconciling')?.reason).toBe('WaitingForDeletion');
    const gone = plan({ application: application({ manifest: [desired] }), live: [], scopes, now: 'now' });
    expect(gone.actions.map((a) => a.type)).toEqual(['create']);
  });
});
