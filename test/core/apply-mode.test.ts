/**
 * `spec.applyMode` and `spec.forceConflicts` in the planner: JsonPatch plans are unchanged; in
 * ServerSideApply mode each patch carries the observed-fields intent (and nothing the schema does
 * not observe), the removals an apply cannot express, and the force flag — or, where another actor
 * renamed or moved a named list element, its JSON Patch instead, naming the list.
 */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import {
  clusterError,
  conflictingManagers,
  decodeApplication,
  errorPolicy,
  plan,
  type ApplicationSpec,
  type ObserverSchema,
  type PatchAction,
  type Resource,
} from '../../core/internal.js';
import { actionsOf, afterPlan, application, execute, marked, scopes, served, writes } from './fixtures.js';

const config = (data: Record<string, string>): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'default' },
  data,
});
const deployment = (replicas: number, containers: ReadonlyArray<Record<string, string>>): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
  },
});

const observerSchema: ReadonlyArray<ObserverSchema> = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { COLOR: true } },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: true,
      template: {
        spec: {
          containers: [
            { name: true, image: true },
            { observer_schema_list_min_length: 1, observer_schema_list_max_length: 1 },
          ],
        },
      },
    },
  },
];

const desired = [
  config({ COLOR: 'blue', LOG_LEVEL: 'info' }),
  deployment(3, [{ name: 'web', image: 'nginx:1.28', imagePullPolicy: 'Always' }]),
];
// The live objects: ours, drifted on observed fields, with values others wrote on fields not observed.
const live = [
  served(marked(config({ COLOR: 'red', LOG_LEVEL: 'debug' })), 0),
  served(
    marked(
      deployment(1, [
        { name: 'web', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' },
        { name: 'sidecar', image: 'envoy' },
      ]),
    ),
    1,
  ),
];

const planFor = (extra: Partial<ApplicationSpec>) =>
  plan({ application: application({ manifest: desired, observerSchema, ...extra }), live, scopes, now: 't' });

const patchOf = (patches: ReadonlyArray<PatchAction>, kind: string): PatchAction => {
  const found = patches.find((action) => action.ref.kind === kind);
  if (found === undefined) throw new Error(`no patch of ${kind}`);
  return found;
};

describe('spec.applyMode', () => {
  it('JsonPatch (default or explicit): patches are JSON Patches only, the same either way', () => {
    const byDefault = planFor({});
    const explicit = planFor({ applyMode: 'JsonPatch' });
    expect(actionsOf(byDefault, 'patch').map((action) => action.serverSideApply)).toEqual([undefined, undefined]);
    expect(explicit.actions).toEqual(byDefault.actions);
  });

  it('ServerSideApply: the same patches, each with an intent of identification, marks and observed desired values only', () => {
    const jsonPatch = planFor({});
    const ssa = planFor({ applyMode: 'ServerSideApply' });
    // The mode changes how, never what: same actions, same JSON Patches and explanations.
    expect(ssa.actions.map((action) => ({ ...action, serverSideApply: undefined }))).toEqual(
      jsonPatch.actions.map((action) => ({ ...action, serverSideApply: undefined })),
    );
    const configMap = patchOf(actionsOf(ssa, 'patch'), 'ConfigMap').serverSideApply;
    expect(configMap?.force).toBe(false);
    expect(configMap?.body).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'settings',
        namespace: 'default',
        labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
        annotations: { 'kreconcile.io/owner': 'default/app' },
        ownerReferences: [
          {
            apiVersion: 'kreconcile.io/v1alpha1',
            kind: 'Application',
            name: 'app',
            uid: 'app-uid',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      // LOG_LEVEL is not observed: never sent, so the value another manager wrote stays.
      data: { COLOR: 'blue' },
    });
    const web = patchOf(actionsOf(ssa, 'patch'), 'Deployment').serverSideApply;
    // The container is matched by name and sends only observed fields; selector and imagePullPolicy are not observed.
    expect(web?.body.spec).toEqual({
      replicas: 3,
      template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } },
    });
    // The element beyond the observed maximum is removed by a guarded JSON Patch first: an apply would keep another
    // manager's element.
    expect(web?.beforeApply).toEqual([
      { op: 'test', path: '/spec/template/spec/containers/1', value: { name: 'sidecar', image: 'envoy' } },
      { op: 'remove', path: '/spec/template/spec/containers/1' },
    ]);
    expect(configMap?.beforeApply).toEqual([]);
  });

  it('forceConflicts sets force on every intent; creations are the same in both modes', () => {
    const forced = planFor({ applyMode: 'ServerSideApply', forceConflicts: true });
    expect(actionsOf(forced, 'patch').map((action) => action.serverSideApply?.force)).toEqual([true, true]);
    const fresh = (mode: ApplicationSpec['applyMode']) =>
      plan({
        application: application({
          manifest: desired,
          observerSchema,
          ...(mode === undefined ? {} : { applyMode: mode }),
        }),
        live: [],
        scopes,
        now: 't',
      });
    expect(actionsOf(fresh('ServerSideApply'), 'create')).toEqual(actionsOf(fresh('JsonPatch'), 'create'));
    expect(actionsOf(fresh('ServerSideApply'), 'create')).toHaveLength(2);
  });

  it('decoding: applyMode is JsonPatch or ServerSideApply, forceConflicts a boolean', () => {
    const decode = (spec: Record<string, unknown>) =>
      decodeApplication({
        apiVersion: 'kreconcile.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'a' },
        spec: { manifest: [], ...spec },
      });
    expect(E.isRight(decode({ applyMode: 'ServerSideApply', forceConflicts: true }))).toBe(true);
    expect(E.isLeft(decode({ applyMode: 'Apply' }))).toBe(true);
    expect(E.isLeft(decode({ forceConflicts: 'yes' }))).toBe(true);
  });
});

describe('ServerSideApply mode: list element names off the observed positions', () => {
  const containersSchema = (element: Record<string, true>): ReadonlyArray<ObserverSchema> => [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        template: {
          spec: {
            containers: [element, element, { observer_schema_list_min_length: 2, observer_schema_list_max_length: 2 }],
          },
        },
      },
    },
  ];
  const wanted = deployment(3, [
    { name: 'web', image: 'nginx:1.28' },
    { name: 'log', image: 'fluent-bit:3' },
  ]);

  /** The first plan of each mode against `containers` live, and the plan after carrying out the ServerSideApply one. */
  const plans = (schema: ReadonlyArray<ObserverSchema>, containers: ReadonlyArray<Record<string, string>>) => {
    const liveNow = [served(marked(deployment(3, containers)), 0)];
    const ssaApp = application({ manifest: [wanted], observerSchema: schema, applyMode: 'ServerSideApply' });
    const ssa = plan({ application: ssaApp, live: liveNow, scopes, now: 't' });
    const jsonPatch = plan({
      application: application({ manifest: [wanted], observerSchema: schema }),
      live: liveNow,
      scopes,
      now: 't',
    });
    const next = plan({ application: afterPlan(ssaApp, ssa), live: execute(liveNow, ssa.actions), scopes, now: 't2' });
    return { ssa: actionsOf(ssa, 'patch'), jsonPatch: actionsOf(jsonPatch, 'patch'), next };
  };

  it('containers swapped by another actor (names not observed): the positional JSON Patch is sent, naming the list, and converges', () => {
    const { ssa, jsonPatch, next } = plans(containersSchema({ image: true }), [
      { name: 'log', image: 'fluent-bit:3' },
      { name: 'web', image: 'nginx:1.27' },
    ]);
    expect(ssa).toHaveLength(1);
    expect(ssa[0]?.serverSideApply).toBeUndefined();
    expect(ssa[0]?.positionalLists).toEqual(['spec.template.spec.containers']);
    // What is sent is exactly the JsonPatch mode's patch: the schema's positions win.
    expect(ssa[0]?.patch).toEqual(jsonPatch[0]?.patch);
    expect(writes(next)).toEqual([]);
  });

  it('a container renamed by another actor (names observed): the JSON Patch renames it back in place, and converges', () => {
    const { ssa, next } = plans(containersSchema({ name: true, image: true }), [
      { name: 'web-renamed', image: 'nginx:1.27' },
      { name: 'log', image: 'fluent-bit:3' },
    ]);
    expect(ssa[0]?.positionalLists).toEqual(['spec.template.spec.containers']);
    expect(ssa[0]?.patch).toContainEqual({
      op: 'replace',
      path: '/spec/template/spec/containers/0/name',
      value: 'web',
    });
    expect(writes(next)).toEqual([]);
  });

  it('names in place (a value drifted): an apply, whose merge by name converges', () => {
    const { ssa, next } = plans(containersSchema({ image: true }), [
      { name: 'web', image: 'nginx:1.27' },
      { name: 'log', image: 'fluent-bit:3' },
    ]);
    expect(ssa[0]?.positionalLists).toBeUndefined();
    expect(ssa[0]?.serverSideApply?.body.spec).toEqual({
      template: {
        spec: {
          containers: [
            { name: 'web', image: 'nginx:1.28' },
            { name: 'log', image: 'fluent-bit:3' },
          ],
        },
      },
    });
    expect(writes(next)).toEqual([]);
  });

  it('inside a value observed whole (schema null), where the server merges named lists too: swapped containers send the JSON Patch', () => {
    const whole: ReadonlyArray<ObserverSchema> = [
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: null },
    ];
    const { ssa, next } = plans(whole, [
      { name: 'log', image: 'fluent-bit:3' },
      { name: 'web', image: 'nginx:1.28' },
    ]);
    expect(ssa[0]?.positionalLists).toEqual(['spec.template.spec.containers']);
    expect(writes(next)).toEqual([]);
  });

  it('a desired container missing from live and appended at its position is in place; one live elsewhere is not', () => {
    const appended = plans(containersSchema({ image: true }), [{ name: 'web', image: 'nginx:1.28' }]);
    expect(appended.ssa[0]?.serverSideApply).toBeDefined();
    expect(writes(appended.next)).toEqual([]);
    const elsewhere = plans(containersSchema({ image: true }), [{ name: 'log', image: 'fluent-bit:3' }]);
    expect(elsewhere.ssa[0]?.positionalLists).toEqual(['spec.template.spec.containers']);
    expect(writes(elsewhere.next)).toEqual([]);
  });
});

describe('server-side apply conflicts in the error policy', () => {
  const conflict = (...managers: ReadonlyArray<string>) =>
    clusterError('Conflict', 'Apply failed with conflicts', {
      causes: managers.map((manager) => ({
        reason: 'FieldManagerConflict',
        field: '.data.COLOR',
        message: `conflict with "${manager}" using v1`,
      })),
    });

  it('a conflict with other field managers stalls Conflict, naming each once', () => {
    const error = conflict('kubectl-edit', 'hpa-controller', 'kubectl-edit');
    expect(conflictingManagers(error)).toEqual(['kubectl-edit', 'hpa-controller']);
    const decision = errorPolicy(error, 1, 0);
    expect(decision).toMatchObject({ _tag: 'Terminal', reason: 'Conflict' });
    expect(decision._tag === 'Terminal' && decision.detail).toBe(
      'server-side apply conflicts with field managers "kubectl-edit", "hpa-controller": set spec.forceConflicts: true to take the fields over, or stop the other manager from writing them',
    );
  });

  it("an apply whose object does not fit the kind's types (a 500 on kube-apiserver 1.36) stalls InvalidSpec, naming paths and types, never the values", () => {
    const typed = clusterError(
      'Internal',
      'failed to create typed patch object (shop/db; /v1, Kind=Secret): .data.token: expected string, got &value.valueUnstructured{Value:424242}; ' +
        '.spec.template.spec.containers[name="main"].env[name="PORT"].value: expected string, got &value.valueUnstructured{Value:8080}',
    );
    const decision = errorPolicy(typed, 1, 0);
    expect(decision).toMatchObject({ _tag: 'Terminal', reason: 'InvalidSpec' });
    const detail = decision._tag === 'Terminal' ? (decision.detail ?? '') : '';
    expect(detail).toBe(
      'the API server cannot apply it (.data.token: expected string, .spec.template.spec.containers[name="main"].env[name="PORT"].value: expected string): fix the value\'s type in spec.manifest',
    );
    expect(detail).not.toContain('424242');
    const converted = clusterError(
      'Internal',
      'failed to convert new object (shop/web; apps/v1, Kind=Deployment) to proper version: unable to convert unstructured object to apps/v1, Kind=Deployment: cannot convert float64 to int32',
    );
    expect(errorPolicy(converted, 1, 0)).toMatchObject({
      _tag: 'Terminal',
      reason: 'InvalidSpec',
      detail: "the API server cannot apply it (cannot convert float64 to int32): fix the value's type in spec.manifest",
    });
    // Any other 500 is the server's trouble: retried.
    expect(errorPolicy(clusterError('Internal', 'etcdserver: request timed out'), 1, 0)._tag).toBe('Retry');
  });

  it('an optimistic-concurrency 409 (no field managers) is retried, as before', () => {
    const stale = clusterError(
      'Conflict',
      'the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(conflictingManagers(stale)).toEqual([]);
    expect(errorPolicy(stale, 1, 0)._tag).toBe('Retry');
  });
});
