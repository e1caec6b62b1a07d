/**
 * Rollout impact (core/impact/): what each action does at run time, by the workload controllers'
 * rules, and the opt-in config digest (spec.rolloutOnConfigChange) that makes a config change roll.
 */
import { describe, expect, it } from 'vitest';
import {
  builtinScopes,
  isJsonObject,
  plan,
  rolloutImpacts,
  type Action,
  type Application,
  type JsonObject,
  type Resource,
} from '../../core/internal.js';
import { CONFIG_DIGEST_ANNOTATION, withConfigDigests } from '../../core/impact/config-digest.js';

const NOW = '2026-03-02T12:00:00Z';

/** `value` when `condition` holds, else nothing to spread. */
const when = (condition: boolean, value: JsonObject): JsonObject => (condition ? value : {});

const deployment = (extra: {
  replicas?: number;
  strategy?: JsonObject;
  volumes?: boolean;
  env?: boolean;
}): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    replicas: extra.replicas ?? 4,
    ...when(extra.strategy !== undefined, { strategy: extra.strategy ?? {} }),
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            ...when(extra.env === true, {
              envFrom: [{ configMapRef: { name: 'settings' } }],
              env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } }],
            }),
            ...when(extra.volumes === true, { volumeMounts: [{ name: 'conf', mountPath: '/etc/conf' }] }),
          },
        ],
        ...when(extra.volumes === true, { volumes: [{ name: 'conf', configMap: { name: 'settings' } }] }),
      },
    },
  },
});

const ref = (
  kind: string,
  name: string,
  apiVersion = kind === 'Deployment' || kind === 'StatefulSet' ? 'apps/v1' : 'v1',
) => ({
  apiVersion,
  kind,
  namespace: 'shop',
  name,
});

const templatePatch: Action = {
  type: 'patch',
  ref: ref('Deployment', 'web'),
  patch: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.28' }],
  changes: [{ path: 'spec.template.spec.containers[0].image', from: 'nginx:1.27', to: 'nginx:1.28' }],
};

const configPatch = (kind: 'ConfigMap' | 'Secret', name: string): Action => ({
  type: 'patch',
  ref: ref(kind, name),
  patch: [{ op: 'replace', path: '/data/mode', value: 'b' }],
  changes: [{ path: 'data.mode', from: 'a', to: 'b' }],
});

const messages = (
  actions: ReadonlyArray<Action>,
  desired: ReadonlyArray<Resource>,
  live: ReadonlyArray<Resource> = [],
) =>
  rolloutImpacts({ actions, desired, live }).map((each) => each.map((impact) => `${impact.type}: ${impact.message}`));

describe('rollout impact (core/impact)', () => {
  it('a pod-template change rolls the Deployment by its strategy (25 % defaults: surge up, unavailable down)', () => {
    expect(messages([templatePatch], [deployment({ replicas: 10 })])).toEqual([
      [
        'rollout: rolls 10 pods of apps/v1 Deployment shop/web (RollingUpdate: up to 3 extra, up to 2 unavailable at a time)',
      ],
    ]);
    expect(
      messages(
        [templatePatch],
        [deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } })],
      ),
    ).toEqual([
      [
        'rollout: rolls 4 pods of apps/v1 Deployment shop/web (RollingUpdate: up to 0 extra, up to 1 unavailable at a time)',
      ],
    ]);
    expect(messages([templatePatch], [deployment({ strategy: { type: 'Recreate' } })])[0]?.[0]).toBe(
      'rollout: replaces all 4 pods of apps/v1 Deployment shop/web at once (strategy Recreate: none runs in between)',
    );
  });

  it('a scale-only patch rolls nothing; a StatefulSet partition and OnDelete say which pods roll', () => {
    const scale: Action = { ...templatePatch, changes: [{ path: 'spec.replicas', from: 4, to: 6 }] };
    expect(messages([scale], [deployment({})])).toEqual([[]]);
    const base = deployment({ replicas: 5 }).spec;
    const spec5: JsonObject = isJsonObject(base) ? base : {};
    const sts = (updateStrategy: JsonObject): Resource => ({
      ...deployment({ replicas: 5 }),
      kind: 'StatefulSet',
      spec: { ...when(true, spec5), updateStrategy },
    });
    const stsPatch: Action = { ...templatePatch, ref: ref('StatefulSet', 'web') };
    expect(messages([stsPatch], [sts({ type: 'RollingUpdate', rollingUpdate: { partition: 3 } })])[0]?.[0]).toBe(
      'rollout: rolls 2 of 5 pods of apps/v1 StatefulSet shop/web, from the highest ordinal, 1 at a time (RollingUpdate; partition 3: ordinals below 3 keep the old template)',
    );
    expect(messages([stsPatch], [sts({ type: 'OnDelete' })])[0]?.[0]).toMatch(
      /^noRollout: no pod of .* rolls \(updateStrategy OnDelete\)/,
    );
  });

  it('a config change reaches pods through a volume, never through env/envFrom, and the new pods of a rolling workload', () => {
    const reader = deployment({ env: true, volumes: true });
    expect(messages([configPatch('ConfigMap', 'settings')], [reader])).toEqual([
      [
        'configStale: never seen by the running pods of Deployment web (envFrom, volume) until they restart: roll them, or set spec.rolloutOnConfigChange',
      ],
    ]);
    expect(messages([configPatch('ConfigMap', 'settings')], [deployment({ volumes: true })])).toEqual([
      [
        "configReload: seen by the running pods of Deployment web (volume) through a volume, after the kubelet's sync (about a minute)",
      ],
    ]);
    expect(messages([configPatch('Secret', 'creds'), templatePatch], [reader])[0]).toEqual([
      'configRollout: seen by the new pods of Deployment web (env) whose pod template changes in this plan',
    ]);
    // A workload only live (not in this plan's desired state) is found too; a config nobody reads has no impact.
    expect(messages([configPatch('ConfigMap', 'settings')], [], [reader])[0]?.[0]).toMatch(/^configStale/);
    expect(messages([configPatch('ConfigMap', 'unread')], [reader])).toEqual([[]]);
  });

  it('a recreation says what is lost; a selector change says where the traffic goes', () => {
    const service: Resource = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { clusterIP: '10.96.12.7', selector: { app: 'web' } },
    };
    const recreate: Action = {
      type: 'recreate',
      ref: ref('Service', 'web'),
      body: service,
      fields: ['spec.clusterIP'],
      changes: [{ path: 'spec.clusterIP', from: '10.96.12.7', to: '10.96.0.50' }],
    };
    expect(messages([recreate], [], [service])[0]?.[0]).toBe(
      'loss: recreating the Service releases its cluster IP 10.96.12.7 and allocates another (clients holding the old address break); node ports change too',
    );
    const pvc: Action = {
      type: 'delete',
      ref: ref('PersistentVolumeClaim', 'data'),
      reason: 'RemovedFromSpec',
      changes: [],
    };
    expect(messages([pvc], [])[0]?.[0]).toMatch(/^loss: deleting the claim releases its volume/);
    const selector: Action = {
      type: 'patch',
      ref: ref('Service', 'web'),
      patch: [{ op: 'replace', path: '/spec/selector', value: { app: 'web-v2' } }],
      changes: [{ path: 'spec.selector', from: { app: 'web' }, to: { app: 'web-v2' } }],
    };
    expect(messages([selector], [deployment({})])[0]?.[0]).toBe(
      'traffic: traffic moves: the selector changes (spec.selector); it selects no workload of this plan afterwards: its endpoints may be empty',
    );
  });
});

describe('spec.rolloutOnConfigChange (core/impact/config-digest.ts)', () => {
  const settings = (mode: string): Resource => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings' },
    data: { mode },
  });
  const secret = (token: string): Resource => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'creds' },
    data: { token },
  });
  const digestOf = (manifest: ReadonlyArray<Resource>): unknown => {
    const stamped = withConfigDigests(manifest, 'shop').find((r) => r.kind === 'Deployment');
    return (stamped?.spec as { template: { metadata: { annotations?: Record<string, string> } } }).template.metadata
      .annotations?.[CONFIG_DIGEST_ANNOTATION];
  };

  it('stamps a digest of the config a workload reads, which changes with its data and never shows a value', () => {
    const reader = deployment({ env: true });
    const first = digestOf([settings('a'), secret('c2VjcmV0'), reader]);
    expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(digestOf([settings('b'), secret('c2VjcmV0'), reader])).not.toBe(first);
    expect(digestOf([settings('a'), secret('b3RoZXI='), reader])).not.toBe(first);
    expect(digestOf([reader, secret('c2VjcmV0'), settings('a')])).toBe(first);
    expect(JSON.stringify(withConfigDigests([settings('a'), secret('c2VjcmV0'), reader], 'shop'))).not.toContain(
      'c2VjcmV0"}}}',
    );
    // A workload reading nothing of the manifest is left as it is.
    expect(digestOf([settings('a'), deployment({})])).toBeUndefined();
  });

  it('makes a config change a pod-template patch in the plan, so the Deployment rolls', () => {
    const application = (mode: string, optIn: boolean): Application => ({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'web', namespace: 'shop', finalizers: ['kreconcile.io/cleanup'] },
      spec: {
        manifest: [settings(mode), deployment({ env: true })],
        ...(optIn ? { rolloutOnConfigChange: true } : {}),
      },
    });
    const created = (optIn: boolean) =>
      plan({ application: application('a', optIn), live: [], scopes: builtinScopes, now: NOW }).actions.flatMap((a) =>
        a.type === 'create' ? [{ ...a.body, metadata: { ...a.body.metadata, namespace: 'shop' } }] : [],
      );
    for (const optIn of [true, false]) {
      const live = created(optIn);
      const next = plan({ application: application('b', optIn), live, scopes: builtinScopes, now: NOW });
      const patched = next.actions.filter((a) => a.type === 'patch').map((a) => a.ref.kind);
      expect(patched).toEqual(optIn ? ['ConfigMap', 'Deployment'] : ['ConfigMap']);
      const impacts = rolloutImpacts({ actions: next.actions, desired: next.status.lastAppliedManifest ?? [], live });
      expect(impacts.flat().map((i) => i.type)).toEqual(optIn ? ['configRollout', 'rollout'] : ['configStale']);
    }
  });
});
