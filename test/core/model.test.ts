/** Model helpers: Application decoding with path-named issues, conditions, scopes, identity, install order. */
import { describe, it, expect } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import {
  builtinScopes,
  conditionsFor,
  decodeApplication,
  identityOf,
  installRank,
  sameResource,
  scopesFromDiscovery,
  showIssue,
  withCrdScopes,
  withTrustedCrdScopes,
  withLiveScopes,
  type Condition,
  type Resource,
} from '../../core/internal.js';

const application = (extra: object = {}) => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'app', namespace: 'default' },
  spec: { manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }] },
  ...extra,
});

const issues = (input: unknown) => {
  const result = decodeApplication(input);
  return E.isLeft(result) ? result.left.map(showIssue) : [];
};

describe('decodeApplication', () => {
  it('accepts a well-formed Application', () => {
    expect(E.isRight(decodeApplication(application()))).toBe(true);
    expect(E.isRight(decodeApplication(application({ status: null })))).toBe(true);
  });

  it('names the JSON path of each problem, list positions included', () => {
    const bad = application({
      spec: {
        manifest: [
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
          { apiVersion: 'v1', kind: '', metadata: { name: 'x' } },
        ],
      },
    });
    expect(issues(bad)).toEqual(['spec.manifest[1].kind: expected non-empty string, got string ""']);
  });

  it('checks the metadata fields plan reads (finalizers, uid, deletionTimestamp)', () => {
    const bad = application({ metadata: { name: 'app', finalizers: 5, uid: 7, deletionTimestamp: false } });
    expect(issues(bad).map((issue) => issue.split(':')[0])).toEqual([
      'metadata.uid',
      'metadata.finalizers',
      'metadata.deletionTimestamp',
    ]);
  });

  it('rejects another kind, and anything that is not an object', () => {
    expect(issues({ ...application(), kind: 'Deployment' })[0]).toContain('kind');
    expect(issues('text').length).toBeGreaterThan(0);
    expect(issues(null).length).toBeGreaterThan(0);
  });
});

describe('conditionsFor', () => {
  const previous: ReadonlyArray<Condition> = [
    { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'ok', lastTransitionTime: 't0' },
    { type: 'Reconciling', status: 'False', reason: 'Reconciled', message: '', lastTransitionTime: 't0' },
    { type: 'Stalled', status: 'False', reason: 'Reconciled', message: '', lastTransitionTime: 't0' },
  ];

  it('moves lastTransitionTime only for conditions whose status changes', () => {
    const next = conditionsFor({
      verdict: { _tag: 'Stalled', reason: 'Forbidden', message: 'no' },
      previous,
      now: 't1',
      generation: 4,
    });
    expect(next).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Forbidden',
        message: 'no',
        lastTransitionTime: 't1',
        observedGeneration: 4,
      },
      {
        type: 'Reconciling',
        status: 'False',
        reason: 'Forbidden',
        message: '',
        lastTransitionTime: 't0',
        observedGeneration: 4,
      },
      {
        type: 'Stalled',
        status: 'True',
        reason: 'Forbidden',
        message: 'no',
        lastTransitionTime: 't1',
        observedGeneration: 4,
      },
    ]);
  });

  it('keeps every time when the verdict is the same; the reason and message may change', () => {
    const next = conditionsFor({
      verdict: { _tag: 'Ready', message: 'still ok' },
      previous,
      now: 't1',
      generation: undefined,
    });
    expect(next.map((c) => [c.lastTransitionTime, c.message, c.observedGeneration])).toEqual([
      ['t0', 'still ok', undefined],
      ['t0', '', undefined],
      ['t0', '', undefined],
    ]);
  });

  it('returns the previous conditions themselves when it would rebuild them identical (a status compared by identity)', () => {
    const ready = { _tag: 'Ready', message: 'ok' } as const;
    expect(conditionsFor({ verdict: ready, previous, now: 't1', generation: undefined })).toBe(previous);
    const withGeneration = conditionsFor({ verdict: ready, previous, now: 't1', generation: 2 });
    expect(conditionsFor({ verdict: ready, previous: withGeneration, now: 't2', generation: 2 })).toBe(withGeneration);
    // Anything that would differ, even only in the JSON text, is rebuilt.
    const rebuilt = [
      conditionsFor({ verdict: { _tag: 'Ready', message: 'other' }, previous, now: 't1', generation: undefined }),
      conditionsFor({ verdict: ready, previous, now: 't1', generation: 3 }),
      conditionsFor({ verdict: ready, previous: withGeneration, now: 't1', generation: 3 }),
      conditionsFor({
        verdict: ready,
        previous: [{ ...previous[0]!, extra: 'x' } as Condition, previous[1]!, previous[2]!],
        now: 't1',
        generation: undefined,
      }),
      conditionsFor({
        verdict: ready,
        previous: [previous[1]!, previous[0]!, previous[2]!],
        now: 't1',
        generation: undefined,
      }),
      conditionsFor({ verdict: ready, previous: previous.slice(0, 2), now: 't1', generation: undefined }),
    ];
    for (const next of rebuilt) {
      expect(next).not.toBe(previous);
      expect(next.map((c) => Object.keys(c))).toEqual(
        next.map((c) => [
          'type',
          'status',
          'reason',
          'message',
          'lastTransitionTime',
          ...(c.observedGeneration === undefined ? [] : ['observedGeneration']),
        ]),
      );
    }
    expect(rebuilt[3]).toEqual(previous);
  });

  it('returns the previous conditions themselves in the key order the API server stores them (sorted)', () => {
    // A custom resource read back from kube-apiserver has its keys sorted: rebuilt, the conditions of every
    // in-sync Application were compared and kept anew at every resync on a real cluster.
    const stored = (generation: number | undefined): ReadonlyArray<Condition> =>
      previous.map(
        (condition) =>
          Object.fromEntries(
            Object.entries({
              ...condition,
              ...(generation === undefined ? {} : { observedGeneration: generation }),
            }).sort(([a], [b]) => (a < b ? -1 : 1)),
          ) as Condition,
      );
    const ready = { _tag: 'Ready', message: 'ok' } as const;
    const sorted = stored(undefined);
    expect(Object.keys(sorted[0]!)).toEqual(['lastTransitionTime', 'message', 'reason', 'status', 'type']);
    expect(conditionsFor({ verdict: ready, previous: sorted, now: 't1', generation: undefined })).toBe(sorted);
    const withGeneration = stored(2);
    expect(conditionsFor({ verdict: ready, previous: withGeneration, now: 't1', generation: 2 })).toBe(withGeneration);
    // A key missing or added still rebuilds them.
    expect(conditionsFor({ verdict: ready, previous: withGeneration, now: 't1', generation: undefined })).not.toBe(
      withGeneration,
    );
  });

  it('without previous conditions, every time is now', () => {
    const next = conditionsFor({
      verdict: { _tag: 'Progressing', reason: 'Progressing', message: '1 to create' },
      previous: undefined,
      now: 't9',
      generation: 1,
    });
    expect(next.map((c) => [c.type, c.status, c.lastTransitionTime])).toEqual([
      ['Ready', 'False', 't9'],
      ['Reconciling', 'True', 't9'],
      ['Stalled', 'False', 't9'],
    ]);
  });
});

describe('scopes and identity', () => {
  it('built-in kinds are scoped by group, whatever their version', () => {
    const cm: Resource = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    const ns: Resource = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', namespace: 'x' } };
    const role: Resource = {
      apiVersion: 'rbac.authorization.k8s.io/v1beta1',
      kind: 'ClusterRole',
      metadata: { name: 'r' },
    };
    expect(identityOf(cm, builtinScopes, 'default')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'c',
      namespace: 'default',
    });
    expect(identityOf(ns, builtinScopes, 'default')).toEqual({ apiVersion: 'v1', kind: 'Namespace', name: 'team' });
    expect(identityOf(role, builtinScopes, 'default')).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1beta1',
      kind: 'ClusterRole',
      name: 'r',
    });
  });

  it("a CRD in the manifest declares its kind's scope", () => {
    const crd: Resource = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'g' },
      spec: { group: 'example.io', names: { kind: 'Gadget' }, scope: 'Cluster' },
    };
    expect(withCrdScopes(builtinScopes, [crd]).get('example.io/Gadget')).toBe('Cluster');
    expect(withCrdScopes(builtinScopes, [])).toBe(builtinScopes);
  });

  it('a CRD written by a tenant adds only unknown kinds: it never changes a known scope (issue 19)', () => {
    const redefine = (group: string, kind: string, scope: string): Resource => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${kind.toLowerCase()}s.${group}` },
      spec: { group, names: { kind }, scope },
    });
    const attack = [
      redefine('rbac.authorization.k8s.io', 'ClusterRoleBinding', 'Namespaced'),
      redefine('apiextensions.k8s.io', 'CustomResourceDefinition', 'Namespaced'),
      redefine('example.io', 'Gadget', 'Namespaced'),
      redefine('example.io', 'Gadget', 'Cluster'),
    ];
    const learned = withCrdScopes(builtinScopes, attack);
    expect(learned.get('rbac.authorization.k8s.io/ClusterRoleBinding')).toBe('Cluster');
    expect(learned.get('apiextensions.k8s.io/CustomResourceDefinition')).toBe('Cluster');
    expect(learned.get('example.io/Gadget')).toBe('Namespaced');
    // A kind discovery resolved is as known as a built-in one.
    const discovered = new Map([...builtinScopes, ['example.io/Gadget', 'Cluster' as const]]);
    expect(withCrdScopes(discovered, attack).get('example.io/Gadget')).toBe('Cluster');
    // The admin's CRDs (--crd) may settle a custom kind, never a built-in one.
    const trusted = withTrustedCrdScopes(discovered, attack);
    expect(trusted.get('example.io/Gadget')).toBe('Cluster');
    expect(trusted.get('rbac.authorization.k8s.io/ClusterRoleBinding')).toBe('Cluster');
    expect(trusted.get('apiextensions.k8s.io/CustomResourceDefinition')).toBe('Cluster');
  });

  it('a live object read back with a namespace is of a namespaced kind (known kinds are not overridden)', () => {
    const learned = withLiveScopes(builtinScopes, [
      { apiVersion: 'example.io/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'x' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', namespace: 'weird' } },
    ]);
    expect(learned.get('example.io/Gadget')).toBe('Namespaced');
    expect(learned.get('/Namespace')).toBe('Cluster');
  });

  it('discovery documents give scopes; subresources are skipped', () => {
    const table = scopesFromDiscovery([
      {
        groupVersion: 'example.io/v1',
        resources: [
          { name: 'gadgets', kind: 'Gadget', namespaced: true },
          { name: 'gadgets/status', kind: 'Gadget', namespaced: false },
          { name: 'widgets', kind: 'Widget', namespaced: false },
        ],
      },
      { nonsense: true },
    ]);
    expect([...table]).toEqual([
      ['example.io/Gadget', 'Namespaced'],
      ['example.io/Widget', 'Cluster'],
    ]);
  });

  it('sameResource: namespace part of identity, a missing one defaults', () => {
    const a = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    const b = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } };
    const c = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'other' } };
    expect(sameResource(a, b, 'default')).toBe(true);
    expect(sameResource(b, c, 'default')).toBe(false);
    expect(sameResource(a, c, 'default')).toBe(false);
  });

  it('install rank: known kinds in order, unknown kinds last', () => {
    const kinds = ['Deployment', 'Gadget', 'Namespace', 'Service', 'ConfigMap', 'CustomResourceDefinition'];
    expect([...kinds].sort((x, y) => installRank(x) - installRank(y))).toEqual([
      'Namespace',
      'CustomResourceDefinition',
      'ConfigMap',
      'Service',
      'Deployment',
      'Gadget',
    ]);
  });
});
