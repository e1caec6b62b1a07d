/**
 * Field ownership (issue 38 item 3): reading managedFields (core/fields/) and leaving the fields of
 * known controllers to them (core/plan/field-fights.ts). The managedFields below are copied from a
 * real kube-apiserver 1.36: a Deployment applied by kubectl, then scaled by an HPA.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  conditionOf,
  DEFAULT_KNOWN_MANAGERS,
  knownManagersCodec,
  patchedFieldOwners,
  plan,
  type Application,
  type JsonValue,
  type Resource,
} from '../../core/internal.js';
import { coverage } from '../../core/fields/fields-v1.js';
import { ownersOf } from '../../core/fields/owners.js';
import { knownManagerFor } from '../../core/fields/known-managers.js';
import { actionsOf, afterPlan, application, execute, scopes } from './fixtures.js';

const KUBECTL_FIELDS = {
  'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
  'f:spec': {
    'f:replicas': {},
    'f:selector': {},
    'f:template': {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"web"}': {
            '.': {},
            'f:env': { '.': {}, 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
            'f:image': {},
            'f:name': {},
          },
        },
      },
    },
  },
};

const HPA_ENTRY = {
  apiVersion: 'apps/v1',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:replicas': {} } },
  manager: 'kube-controller-manager',
  operation: 'Update',
  subresource: 'scale',
  time: '2026-12-02T05:10:00Z',
};

/** The same field changed by `kubectl edit` (no subresource): a person, not a controller. */
const { subresource: _scale, ...HPA_FIELDS } = HPA_ENTRY;
const HPA_EDIT = { ...HPA_FIELDS, manager: 'kubectl-edit' };

const deployment = (replicas: number, image = 'nginx:1.27'): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image, env: [{ name: 'A', value: '1' }] }] },
    },
  },
});

const withManagedFields = (object: Resource, managedFields: JsonValue): Resource => ({
  ...object,
  metadata: { ...object.metadata, managedFields },
});

describe('FieldsV1 coverage', () => {
  const live = deployment(3);
  it.each([
    ['/spec/replicas', 'field'],
    ['/spec/selector/matchLabels/app', 'field'], // an atomic ancestor (f:selector: {}) owns all within
    ['/spec/template/spec/containers/0/image', 'field'],
    ['/spec/template/spec/containers/0', 'field'], // `.`: the element itself
    ['/spec/template/spec/containers/0/env/0/value', 'field'],
    ['/spec/template', 'part'],
    ['/spec/strategy', undefined],
    ['/spec/template/spec/containers/1/image', undefined], // no such element
    ['/spec/template/spec/containers/web/image', undefined], // not an index into a list
  ])('%s is covered as %s', (pointer, expected) => {
    expect(coverage(KUBECTL_FIELDS, live, pointer.slice(1).split('/'))).toBe(expected);
  });

  it('elements are found by their key values, not their position', () => {
    const moved: Resource = {
      ...live,
      spec: {
        ...(live['spec'] as object),
        template: { spec: { containers: [{ name: 'sidecar' }, { name: 'web', image: 'x' }] } },
      },
    };
    expect(coverage(KUBECTL_FIELDS, moved, ['spec', 'template', 'spec', 'containers', '1', 'image'])).toBe('field');
    expect(coverage(KUBECTL_FIELDS, moved, ['spec', 'template', 'spec', 'containers', '0', 'image'])).toBeUndefined();
  });

  it('never throws on what a hostile client wrote into managedFields', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.string(), { maxLength: 8 }), (fields, path) => {
        const answer = coverage(fields as JsonValue, live, path);
        expect([undefined, 'field', 'part']).toContain(answer);
      }),
    );
    const hostile = withManagedFields(live, [
      { manager: 'x', operation: 'Update', fieldsV1: { 'k:{not json': {}, __proto__: { 'f:a': {} } } },
      'not an entry',
      { manager: 7, operation: 'Update', fieldsV1: {} },
    ]);
    expect(ownersOf(hostile, '/spec/replicas')).toEqual([]);
    expect(({} as Record<string, unknown>)['f:a']).toBeUndefined();
  });
});

describe('owners of a field', () => {
  const live = withManagedFields(deployment(3), [
    {
      manager: 'kubectl-client-side-apply',
      operation: 'Update',
      time: '2026-12-02T05:09:33Z',
      fieldsV1: KUBECTL_FIELDS,
    },
    HPA_ENTRY,
  ]);

  it('lists every manager that owns it, with operation, subresource and time', () => {
    expect(ownersOf(live, '/spec/replicas')).toEqual([
      { manager: 'kubectl-client-side-apply', operation: 'Update', time: '2026-12-02T05:09:33Z', extent: 'field' },
      {
        manager: 'kube-controller-manager',
        operation: 'Update',
        subresource: 'scale',
        time: '2026-12-02T05:10:00Z',
        extent: 'field',
      },
    ]);
  });

  it('the HPA entry is a known manager for spec.replicas of a Deployment, not of a ConfigMap or another path', () => {
    const [, hpa] = ownersOf(live, '/spec/replicas');
    expect(hpa && knownManagerFor(DEFAULT_KNOWN_MANAGERS, 'Deployment', '/spec/replicas', hpa)?.controller).toMatch(
      /HorizontalPodAutoscaler/,
    );
    expect(hpa && knownManagerFor(DEFAULT_KNOWN_MANAGERS, 'ConfigMap', '/spec/replicas', hpa)).toBeUndefined();
    expect(hpa && knownManagerFor(DEFAULT_KNOWN_MANAGERS, 'Deployment', '/spec/paused', hpa)).toBeUndefined();
    expect(hpa && knownManagerFor(DEFAULT_KNOWN_MANAGERS, 'Deployment', '/spec', hpa)).toBeDefined();
  });

  it('a configured table decodes, and a bad one is refused', () => {
    expect(
      knownManagersCodec.decode([
        { manager: 'vpa-updater', paths: ['spec.containers[*].resources'], controller: 'VPA' },
      ])._tag,
    ).toBe('Right');
    expect(knownManagersCodec.decode([{ manager: 'x', paths: 'spec', controller: 'y' }])._tag).toBe('Left');
    expect(
      knownManagersCodec.decode(Array.from({ length: 300 }, () => ({ manager: 'x', paths: [], controller: 'y' })))._tag,
    ).toBe('Left');
  });
});

describe('fields a known controller owns are left to it (no fight)', () => {
  /** The Application applied once, then the HPA scaled its Deployment to 3 through /scale. */
  const scaled = (): { readonly app: Application; readonly live: ReadonlyArray<Resource> } => {
    const app = application({ manifest: [deployment(1)] });
    const first = plan({ application: app, live: [], scopes, now: 'now' });
    const [created] = execute([], first.actions);
    if (created === undefined) throw new Error('not created');
    const byHpa = withManagedFields({ ...created, spec: { ...(created['spec'] as object), replicas: 3 } }, [HPA_ENTRY]);
    return { app: afterPlan(app, first), live: [byHpa] };
  };

  it('the plan does not patch spec.replicas back, and reports it in status.contestedFields', () => {
    const { app, live } = scaled();
    const planned = plan({ application: app, live, scopes, now: 'now' });
    expect(actionsOf(planned, 'patch')).toEqual([]);
    expect(planned.status.contestedFields).toEqual([
      {
        resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'default' },
        path: 'spec.replicas',
        manager: 'kube-controller-manager',
        subresource: 'scale',
        since: '2026-12-02T05:10:00Z',
        controller: 'HorizontalPodAutoscaler (kube-controller-manager through /scale)',
      },
    ]);
    expect(conditionOf(planned.status.conditions, 'Ready')?.message).toMatch(/left to the controllers that own them/);
  });

  it('other drift on the same object is still corrected', () => {
    const { app, live } = scaled();
    const [object] = live;
    if (object === undefined) throw new Error('no live object');
    const template = { spec: { containers: [{ name: 'web', image: 'evil:1', env: [{ name: 'A', value: '1' }] }] } };
    const drifted: Resource = {
      ...object,
      spec: { ...(object['spec'] as object), template: { ...template, metadata: { labels: { app: 'web' } } } },
    };
    const planned = plan({ application: app, live: [drifted], scopes, now: 'now' });
    const [patch] = actionsOf(planned, 'patch');
    expect(patch?.changes.map((change) => change.path)).toEqual(['spec.template.spec.containers[0].image']);
    expect(planned.status.contestedFields?.map((field) => field.path)).toEqual(['spec.replicas']);
  });

  it('with no known managers (`fieldManagers: []`) the field is patched back, as before', () => {
    const { app, live } = scaled();
    const planned = plan({ application: app, live, scopes, now: 'now', options: { fieldManagers: [] } });
    expect(actionsOf(planned, 'patch')[0]?.changes).toEqual([{ path: 'spec.replicas', from: 3, to: 1 }]);
    expect(planned.status.contestedFields).toBeUndefined();
  });

  it('a field another (unknown) manager owns is patched back, and the forecast names that owner', () => {
    const { app, live } = scaled();
    const edited = live.map((object) => withManagedFields(object, [{ ...HPA_EDIT }]));
    const planned = plan({ application: app, live: edited, scopes, now: 'now' });
    expect(actionsOf(planned, 'patch')).toHaveLength(1);
    expect(patchedFieldOwners(planned, edited)).toEqual([
      {
        resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'default' },
        path: 'spec.replicas',
        owners: [{ manager: 'kubectl-edit', operation: 'Update', time: '2026-12-02T05:10:00Z', extent: 'field' }],
      },
    ]);
  });
});
