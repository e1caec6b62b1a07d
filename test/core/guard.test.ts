/** The guard policy's codec and its one evaluator (core/guard): what CI and the operator both decide with. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  conditionOf,
  decodeWith,
  evaluateGuard,
  evaluateOne,
  guardPlan,
  GuardPolicyDocument,
  guardPolicyOf,
  isDenied,
  judgedDigest,
  planDigest,
  showIssue,
  type Action,
  type GuardPolicy,
  type ObjectRef,
  type Plan,
  type Resource,
} from '../../core/internal.js';
import { application } from './fixtures.js';

const decode = (document: unknown) => decodeWith(GuardPolicyDocument, document, '');
const problems = (document: unknown): ReadonlyArray<string> => {
  const decoded = decode(document);
  return E.isLeft(decoded) ? decoded.left.map(showIssue) : [];
};
const policy = (document: unknown): GuardPolicy => {
  const decoded = decode(document);
  if (E.isLeft(decoded)) throw new Error(decoded.left.map(showIssue).join('; '));
  return guardPolicyOf(decoded.right);
};

/** The form of the issue, verbatim. */
const ISSUE_FORM = {
  rules: [
    { name: 'keep-volumes', deny: { actions: ['delete', 'recreate'], kinds: ['PersistentVolumeClaim'] } },
    { name: 'few-deletes', maxDeletes: 3 },
    { name: 'no-prod-recreate', deny: { actions: ['recreate'], namespaces: ['prod-*'] } },
    { name: 'selectors-fixed', deny: { actions: ['patch'], paths: ['spec.selector'] } },
  ],
};

const ref = (kind: string, name: string, namespace?: string, apiVersion = 'v1'): ObjectRef => ({
  apiVersion,
  kind,
  name,
  ...(namespace === undefined ? {} : { namespace }),
});
const del = (target: ObjectRef): Action => ({ type: 'delete', ref: target, reason: 'RemovedFromSpec', changes: [] });
const recreate = (target: ObjectRef, fields: ReadonlyArray<string>): Action => ({
  type: 'recreate',
  ref: target,
  body: { apiVersion: target.apiVersion, kind: target.kind, metadata: { name: target.name } },
  fields,
  changes: [{ path: 'spec.selector.matchLabels.app', from: 'a', to: 'b' }],
});
const patch = (target: ObjectRef, pointer: string, path: string): Action => ({
  type: 'patch',
  ref: target,
  patch: [
    { op: 'test', path: '/spec/selector', value: {} },
    { op: 'replace', path: pointer, value: 2 },
  ],
  changes: [{ path, from: 1, to: 2 }],
});
const create = (target: ObjectRef): Action => ({
  type: 'create',
  ref: target,
  body: { apiVersion: target.apiVersion, kind: target.kind, metadata: { name: target.name } },
  changes: [{ path: 'data.a', to: '1' }],
});
const shop = { namespace: 'shop', name: 'web' };

describe('guard policy documents', () => {
  it('decode the form of the issue, with apiVersion and kind optional', () => {
    expect(policy(ISSUE_FORM).rules).toHaveLength(4);
    expect(policy({ apiVersion: 'kreconcile.io/v1alpha1', kind: 'GuardPolicy', ...ISSUE_FORM }).rules).toHaveLength(4);
  });

  it('name every mistake with its path: unknown keys, several rule kinds, empty selectors, bad kinds, paths, counts and duplicates', () => {
    expect(problems({ rules: [{ name: 'x', deny: { action: ['delete'] } }] })).toEqual([
      'rules[0].deny: unknown field "action": expected actions, kinds, namespaces, names, paths',
    ]);
    expect(problems({ rules: [{ name: 'x', deny: { kinds: ['Pod'] }, maxDeletes: 1 }] })).toEqual([
      'rules[0]: a rule has exactly one of deny, maxDeletes, maxDeletesPerPlan (this one has deny and maxDeletes)',
    ]);
    expect(problems({ rules: [{ name: 'x', deny: {} }] })[0]).toContain('names at least one of');
    expect(problems({ rules: [{ name: 'x', deny: { actions: ['destroy'] } }] })[0]).toMatch(
      /^rules\[0\]\.deny\.actions\[0\]/,
    );
    expect(problems({ rules: [{ name: 'x', deny: { kinds: ['persistentvolumeclaims'] } }] })[0]).toContain(
      'expected Kind (any API group), group/Kind, core/Kind or "*"',
    );
    expect(problems({ rules: [{ name: 'x', deny: { paths: ['spec..selector'] } }] })[0]).toContain(
      'expected a field path',
    );
    expect(problems({ rules: [{ name: 'x', maxDeletes: -1 }] })[0]).toContain('expected a whole number ≥ 0, got -1');
    expect(
      problems({
        rules: [
          { name: 'x', maxDeletes: 1 },
          { name: 'x', maxDeletes: 2 },
        ],
      }),
    ).toEqual(['rules: rule name "x" is used twice']);
    expect(problems({ rules: [{ name: 'x', deny: { actions: [] } }] })[0]).toContain('at least one entry');
    expect(problems({})[0]).toContain('rules');
    expect(problems({ rules: [], extra: 1 })[0]).toContain('unknown field "extra"');
  });
});

describe('evaluateGuard', () => {
  const rules = policy(ISSUE_FORM);

  it('denies by action type and kind, in any API group unless the group is named', () => {
    const [verdict] = evaluateGuard(rules, [
      {
        application: shop,
        actions: [del(ref('PersistentVolumeClaim', 'data', 'shop')), del(ref('ConfigMap', 'c', 'shop'))],
      },
    ]);
    expect(verdict?.violations).toEqual([
      {
        rule: 'keep-volumes',
        action: { type: 'delete', ref: ref('PersistentVolumeClaim', 'data', 'shop') },
        message: 'delete of v1 PersistentVolumeClaim shop/data',
      },
    ]);
    expect(isDenied(verdict!)).toBe(true);
    const grouped = policy({
      rules: [{ name: 'crds', deny: { kinds: ['apiextensions.k8s.io/CustomResourceDefinition'] } }],
    });
    const core = policy({ rules: [{ name: 'core-only', deny: { kinds: ['core/Secret'] } }] });
    const crd = ref('CustomResourceDefinition', 'songs.music.example', undefined, 'apiextensions.k8s.io/v1');
    expect(evaluateOne(grouped, { application: shop, actions: [del(crd)] }).violations).toHaveLength(1);
    expect(
      evaluateOne(core, { application: shop, actions: [del(ref('Secret', 's', 'shop'))] }).violations,
    ).toHaveLength(1);
    expect(
      evaluateOne(core, { application: shop, actions: [del(ref('Secret', 's', 'shop', 'example.com/v1'))] }).violations,
    ).toEqual([]);
  });

  it('denies by namespace pattern; cluster-scoped objects match no namespace pattern', () => {
    const deployment = (namespace?: string) => ref('Deployment', 'web', namespace, 'apps/v1');
    const judged = (namespace?: string) =>
      evaluateOne(rules, {
        application: shop,
        actions: [recreate(deployment(namespace), ['spec.selector'])],
      }).violations.map((v) => v.rule);
    expect(judged('prod-eu')).toEqual(['no-prod-recreate']);
    expect(judged('staging')).toEqual([]);
    expect(judged(undefined)).toEqual([]);
  });

  it('denies patches to named paths and everything below them, never other fields', () => {
    const deployment = ref('Deployment', 'web', 'shop', 'apps/v1');
    const selector = patch(deployment, '/spec/selector/matchLabels/app', 'spec.selector.matchLabels.app');
    const replicas = patch(deployment, '/spec/replicas', 'spec.replicas');
    expect(evaluateOne(rules, { application: shop, actions: [selector] }).violations).toEqual([
      {
        rule: 'selectors-fixed',
        action: { type: 'patch', ref: deployment },
        message: 'patch of apps/v1 Deployment shop/web changes spec.selector',
      },
    ]);
    // The `test` guard on /spec/selector changes nothing.
    expect(evaluateOne(rules, { application: shop, actions: [replicas] }).violations).toEqual([]);
    const prefix = policy({ rules: [{ name: 'p', deny: { paths: ['spec.select'] } }] });
    expect(evaluateOne(prefix, { application: shop, actions: [selector] }).violations).toEqual([]);
    const quoted = policy({ rules: [{ name: 'q', deny: { paths: ['metadata.labels["app.kubernetes.io/name"]'] } }] });
    const label = patch(
      deployment,
      '/metadata/labels/app.kubernetes.io~1name',
      'metadata.labels["app.kubernetes.io/name"]',
    );
    expect(evaluateOne(quoted, { application: shop, actions: [label] }).violations).toHaveLength(1);
  });

  it('limits deletes (recreations count) per Application and per plan', () => {
    const deletes = (n: number, prefix = 'c') =>
      Array.from({ length: n }, (_, i) => del(ref('ConfigMap', `${prefix}${i}`, 'shop')));
    expect(evaluateOne(rules, { application: shop, actions: deletes(3) }).violations).toEqual([]);
    const four = evaluateOne(rules, {
      application: shop,
      actions: [...deletes(3), recreate(ref('Deployment', 'web', 'shop', 'apps/v1'), ['spec.selector'])],
    });
    expect(four.violations.filter((v) => v.rule === 'few-deletes').map((v) => v.message)).toEqual([
      'delete of v1 ConfigMap shop/c0: 4 deletes in this Application, at most 3',
      'delete of v1 ConfigMap shop/c1: 4 deletes in this Application, at most 3',
      'delete of v1 ConfigMap shop/c2: 4 deletes in this Application, at most 3',
      'recreate of apps/v1 Deployment shop/web: 4 deletes in this Application, at most 3',
    ]);
    const perPlan = policy({ rules: [{ name: 'plan-wide', maxDeletesPerPlan: 2 }] });
    const verdicts = evaluateGuard(perPlan, [
      { application: shop, actions: deletes(2) },
      { application: { namespace: 'shop', name: 'api' }, actions: deletes(1, 'd') },
      { application: { namespace: 'shop', name: 'quiet' }, actions: [create(ref('ConfigMap', 'new', 'shop'))] },
    ]);
    expect(verdicts.map((v) => v.violations.length)).toEqual([2, 1, 0]);
    expect(verdicts[1]?.violations[0]?.message).toBe(
      'delete of v1 ConfigMap shop/d0: 3 deletes in the plan, at most 2',
    );
    // Alone, each is within the limit.
    expect(evaluateOne(perPlan, { application: shop, actions: deletes(2) }).violations).toEqual([]);
  });

  it('an approval naming the plan digest lets that plan through (its deletes leave the plan-wide count), no other', () => {
    const actions = [del(ref('PersistentVolumeClaim', 'data', 'shop'))];
    const digest = evaluateOne(rules, { application: shop, actions }).digest;
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const approved = evaluateOne(rules, { application: { ...shop, approval: digest }, actions });
    expect(approved).toMatchObject({ approved: true, digest });
    expect(approved.violations).toHaveLength(1);
    expect(isDenied(approved)).toBe(false);
    const other = [del(ref('PersistentVolumeClaim', 'logs', 'shop'))];
    expect(isDenied(evaluateOne(rules, { application: { ...shop, approval: digest }, actions: other }))).toBe(true);
    const perPlan = policy({ rules: [{ name: 'plan-wide', maxDeletesPerPlan: 1 }] });
    const two = [del(ref('ConfigMap', 'a', 'shop')), del(ref('ConfigMap', 'b', 'shop'))];
    const twoDigest = evaluateOne(perPlan, { application: shop, actions: two }).digest;
    const verdicts = evaluateGuard(perPlan, [
      { application: { ...shop, approval: twoDigest }, actions: two },
      { application: { namespace: 'shop', name: 'api' }, actions: [del(ref('ConfigMap', 'c', 'shop'))] },
    ]);
    expect(verdicts.map(isDenied)).toEqual([false, false]);
  });

  const digestOf = (actions: ReadonlyArray<Action>) => planDigest(actions, { application: shop });

  it('digests cover what is written and how, not waits, finalizers or key order', () => {
    const base = [create(ref('ConfigMap', 'a', 'shop'))];
    const wait: Action = {
      type: 'wait',
      ref: ref('ConfigMap', 'b', 'shop'),
      until: 'DependenciesReady',
      for: [],
      changes: [],
    };
    expect(digestOf([...base, wait])).toBe(digestOf(base));
    const reordered: Action = {
      changes: [{ to: '1', path: 'data.a' }],
      body: { metadata: { name: 'a' }, kind: 'ConfigMap', apiVersion: 'v1' },
      ref: { namespace: 'shop', name: 'a', kind: 'ConfigMap', apiVersion: 'v1' },
      type: 'create',
    };
    expect(digestOf([reordered])).toBe(digestOf(base));
    expect(digestOf([create(ref('ConfigMap', 'a', 'other'))])).not.toBe(digestOf(base));
    const changedValue: Action = { ...create(ref('ConfigMap', 'a', 'shop')), changes: [{ path: 'data.a', to: '2' }] };
    expect(digestOf([changedValue])).not.toBe(digestOf(base));
    expect(digestOf([del(ref('ConfigMap', 'a', 'shop'))])).not.toBe(digestOf(base));
  });

  it("a create's digest covers its full body (issue 37): another image, securityContext or namespace is another digest", () => {
    const pod = (image: string, privileged: boolean, namespace = 'shop'): Action => ({
      type: 'create',
      ref: ref('Pod', 'miner', namespace),
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'miner', namespace },
        spec: { containers: [{ name: 'c', image, securityContext: { privileged } }] },
      } as unknown as Resource,
      changes: [],
    });
    const approved = digestOf([pod('nginx:1.27', false)]);
    expect(digestOf([pod('xmrig:latest', false)])).not.toBe(approved);
    expect(digestOf([pod('nginx:1.27', true)])).not.toBe(approved);
    expect(digestOf([pod('nginx:1.27', false, 'kube-system')])).not.toBe(approved);
    // The same plan for another Application, under rules or with violations, is another digest too.
    expect(planDigest([pod('nginx:1.27', false)], { application: { namespace: 'shop', name: 'api' } })).not.toBe(
      approved,
    );
    expect(planDigest([pod('nginx:1.27', false)], { application: shop, policy: 'sha256:1' })).not.toBe(approved);
    expect(
      planDigest([pod('nginx:1.27', false)], { application: shop, violations: [{ rule: 'r', message: 'm' }] }),
    ).not.toBe(approved);
  });

  it("a patch's digest covers its values but not its test guards; a Secret's values enter as digests", () => {
    const secretPatch = (value: string, resourceVersion: string): Action => ({
      type: 'patch',
      ref: ref('Secret', 'token', 'shop'),
      patch: [
        { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
        { op: 'replace', path: '/data/token', value },
      ],
      changes: [{ path: 'data.token', to: '(sensitive value)' }],
    });
    expect(digestOf([secretPatch('YQ==', '1')])).toBe(digestOf([secretPatch('YQ==', '2')]));
    expect(digestOf([secretPatch('Yg==', '1')])).not.toBe(digestOf([secretPatch('YQ==', '1')]));
  });

  it('the digest covers the guard verdict: the same plan under other rules needs another approval', () => {
    const actions = [del(ref('PersistentVolumeClaim', 'data', 'shop'))];
    const strict = evaluateOne(rules, { application: shop, actions });
    const looser = evaluateOne(policy({ rules: [{ name: 'few', maxDeletes: 0 }] }), { application: shop, actions });
    expect(looser.digest).not.toBe(strict.digest);
    expect(judgedDigest(rules, shop, actions)).toBe(strict.digest);
    expect(judgedDigest(undefined, shop, actions)).toBe(digestOf(actions));
  });
});

describe('guardPlan (the operator)', () => {
  const rules = policy(ISSUE_FORM);
  const app = application(
    { manifest: [] },
    {
      generation: 4,
      status: {
        conditions: [],
        lastAppliedManifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' } }],
      },
    },
  );
  const planned: Plan = {
    actions: [del(ref('PersistentVolumeClaim', 'data', 'default')), create(ref('ConfigMap', 'x', 'default'))],
    summary: { create: 1, patch: 0, delete: 1, conflict: 0 },
    status: { lastAppliedManifest: [] },
    outcome: { _tag: 'RequeueAfter', ms: 1000, reason: 'VerifyActions' },
  };

  it('replaces a denied plan by one that writes nothing but Stalled GuardDenied conditions on the stored status', () => {
    const { plan: denied, verdict } = guardPlan({
      policy: rules,
      application: app,
      plan: planned,
      now: '2026-01-01T00:00:00Z',
    });
    expect(denied.actions).toEqual([]);
    expect(denied.outcome).toEqual({ _tag: 'AwaitChange' });
    expect(denied.status.lastAppliedManifest).toEqual(app.status?.lastAppliedManifest);
    const stalled = conditionOf(denied.status.conditions, 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'GuardDenied', observedGeneration: 4 });
    expect(stalled?.message).toBe(
      `rule "keep-volumes" denies delete of v1 PersistentVolumeClaim default/data; to let this plan through, an approver (RBAC verb approve on applications.kreconcile.io, docs/decisions/0026) runs: kubectl annotate applications.kreconcile.io -n default ${app.metadata.name} --overwrite kreconcile.io/approve=${verdict.digest}`,
    );
  });

  it('passes an allowed plan, and a denied one the Application approves, unchanged', () => {
    const allowed: Plan = { ...planned, actions: planned.actions.slice(1) };
    expect(guardPlan({ policy: rules, application: app, plan: allowed, now: '2026-01-01T00:00:00Z' }).plan).toBe(
      allowed,
    );
    const { digest } = guardPlan({
      policy: rules,
      application: app,
      plan: planned,
      now: '2026-01-01T00:00:00Z',
    }).verdict;
    const approving = { ...app, metadata: { ...app.metadata, annotations: { 'kreconcile.io/approve': digest } } };
    expect(guardPlan({ policy: rules, application: approving, plan: planned, now: '2026-01-01T00:00:00Z' }).plan).toBe(
      planned,
    );
  });
});
