/**
 * Seeded strategic merge patches of a Deployment, the kind users patch most: containers, env,
 * ports, volume mounts and volumes merged by their keys, finalizers (a merge list of strings),
 * tolerations and args (replaced), every directive (`$patch` replace/delete/merge and unknown,
 * `$retainKeys`, `$deleteFromPrimitiveList`, `$setElementOrder`), nulls, and a few malformed
 * patches. Shared by the oracle test (apimachinery's own strategicpatch) and the differential
 * test against kube-apiserver.
 */
import type { JsonObject, JsonValue } from '../../../../core/json/json.js';

/** mulberry32: a small seeded generator, so a printed seed replays a case. */
export const seeded = (seed: number) => {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: ReadonlyArray<T>): T => items[Math.floor(next() * items.length)] as T;
  const chance = (p: number): boolean => next() < p;
  const some = <T>(items: ReadonlyArray<T>, max = items.length): T[] =>
    items.filter(() => chance(0.5)).slice(0, Math.max(0, Math.floor(next() * (max + 1))));
  return { next, pick, chance, some };
};
type Random = ReturnType<typeof seeded>;

/** The Deployment every case starts from (as created: the server adds its defaults around it). */
export const baseDeployment = (name: string): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name, tier: 'web' }, finalizers: ['a.example/x', 'b.example/y'] },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            args: ['-g', 'daemon off;'],
            ports: [
              { name: 'http', containerPort: 80, protocol: 'TCP' },
              { name: 'https', containerPort: 443, protocol: 'TCP' },
            ],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
              { name: 'C', value: '3' },
            ],
            resources: { limits: { cpu: '1', memory: '128Mi' } },
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          },
          { name: 'side', image: 'busybox:1.36', command: ['sleep', '3600'] },
        ],
        volumes: [
          { name: 'data', configMap: { name: 'settings' } },
          { name: 'scratch', emptyDir: {} },
        ],
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
      },
    },
  },
});

const envItem = (r: Random): JsonObject =>
  r.chance(0.15)
    ? { name: r.pick(['A', 'B', 'C', 'D']), $patch: 'delete' }
    : r.chance(0.15)
      ? { name: r.pick(['A', 'D']), value: null }
      : { name: r.pick(['A', 'B', 'C', 'D', 'E']), value: r.pick(['1', '9', 'x']) };

const PORT_NAMES: Readonly<Record<number, string>> = { 80: 'http', 443: 'https', 8080: 'alt' };

const portItem = (r: Random): JsonObject =>
  r.chance(0.2)
    ? { containerPort: r.pick([80, 443]), $patch: 'delete' }
    : // Each port keeps its name: two ports of one name are invalid, which the memory server does not check (docs/testing.md).
      ((port: number): JsonObject => ({ containerPort: port, name: PORT_NAMES[port] ?? 'alt', protocol: 'TCP' }))(
        r.pick([80, 443, 8080]),
      );

const containerItem = (r: Random): JsonObject => {
  const name = r.pick(['web', 'web', 'side', 'log']);
  if (r.chance(0.1)) return { name, $patch: 'delete' };
  const item: Record<string, JsonValue> = { name };
  if (r.chance(0.5) || name === 'log') item.image = r.pick(['nginx:1.28', 'busybox:1.37', 'fluentd:2']);
  if (r.chance(0.4)) item.env = [...r.some([0, 1, 2], 3).map(() => envItem(r))];
  if (r.chance(0.3)) item.ports = [...r.some([0, 1], 2).map(() => portItem(r))];
  if (r.chance(0.2)) item.args = r.chance(0.3) ? null : ['--verbose'];
  if (r.chance(0.2)) item.resources = { limits: { cpu: r.pick(['1000m', '500m', null]) } };
  if (r.chance(0.15)) item.volumeMounts = [{ name: 'scratch', mountPath: r.pick(['/data', '/tmp']) }];
  if (r.chance(0.1))
    item['$setElementOrder/env'] = r.some([{ name: 'C' }, { name: 'A' }, { name: 'B' }, { name: 'E' }]);
  return item;
};

const podSpecPatch = (r: Random): JsonObject => {
  const spec: Record<string, JsonValue> = {};
  if (r.chance(0.7)) spec.containers = [...r.some([0, 1, 2], 3).map(() => containerItem(r))];
  if (r.chance(0.1)) (spec.containers as JsonValue[] | undefined)?.push({ $patch: 'replace' });
  if (r.chance(0.2)) spec['$setElementOrder/containers'] = r.some([{ name: 'side' }, { name: 'log' }, { name: 'web' }]);
  if (r.chance(0.25))
    spec.volumes = [
      r.chance(0.5)
        ? { name: 'data', $retainKeys: ['name', 'emptyDir'], emptyDir: { medium: 'Memory' } }
        : // A volume keeps one source: `data` switches with $retainKeys, a second source would be invalid.
          r.pick<JsonObject>([
            { name: 'cache', secret: { secretName: 's' } },
            { name: 'data', $retainKeys: ['name', 'secret'], secret: { secretName: 's' } },
          ]),
    ];
  if (r.chance(0.15)) spec.tolerations = r.chance(0.5) ? null : [{ key: 'x', operator: 'Exists' }];
  if (r.chance(0.05)) spec.$patch = r.pick(['delete', 'bogus']);
  return spec;
};

const metadataPatch = (r: Random): JsonObject => {
  const metadata: Record<string, JsonValue> = {};
  if (r.chance(0.4)) metadata.labels = { tier: r.pick([null, 'api']), [r.pick(['x', 'y'])]: 'v' };
  const added = r.chance(0.3) ? r.some(['c.example/z', 'a.example/x', 'd.example/w']) : undefined;
  if (added !== undefined) metadata.finalizers = added;
  // Never a value the patch also adds: Go merges the two keys in map order, so the server's answer would be random.
  if (r.chance(0.2))
    metadata['$deleteFromPrimitiveList/finalizers'] = r
      .some(['a.example/x', 'b.example/y'])
      .filter((finalizer) => !(added ?? []).includes(finalizer));
  if (r.chance(0.15)) metadata['$setElementOrder/finalizers'] = r.some(['b.example/y', 'c.example/z', 'a.example/x']);
  return metadata;
};

const strategyPatch = (r: Random): JsonValue =>
  r.pick<JsonValue>([
    { $retainKeys: ['type'], type: 'Recreate' },
    { $patch: 'replace', type: 'Recreate' },
    { $patch: 'delete' },
    { rollingUpdate: { maxSurge: 2 } },
    null,
  ]);

/** Patches users never mean but clients can send: each must fail as the server fails it. */
const malformed = (r: Random): JsonObject =>
  r.pick<JsonObject>([
    { spec: { template: { spec: { containers: [{ image: 'no-name' }] } } } },
    { spec: { template: { spec: { containers: [{ $patch: 'merge' }] } } } },
    { spec: { strategy: { $patch: 'keep' } } },
    { spec: { strategy: { $retainKeys: 'type', type: 'Recreate' } } },
    { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 1 } } } },
    { metadata: { $deleteFromPrimitiveListfinalizers: ['a.example/x'] } },
    { metadata: { '$setElementOrder/finalizers': ['z.example/q'], finalizers: ['c.example/z'] } },
    { spec: { template: { spec: { containers: [{ name: 'web' }, 'side'] } } } },
  ]);

/** One patch: mostly what kubectl apply/edit/set send, sometimes malformed. */
export const strategicPatchCase = (r: Random): JsonObject => {
  if (r.chance(0.08)) return malformed(r);
  const spec: Record<string, JsonValue> = {};
  if (r.chance(0.85)) spec.template = { spec: podSpecPatch(r) };
  if (r.chance(0.2)) spec.strategy = strategyPatch(r);
  if (r.chance(0.1)) spec.replicas = r.pick([2, 3]);
  const patch: Record<string, JsonValue> = { spec };
  if (r.chance(0.4)) patch.metadata = metadataPatch(r);
  return patch;
};
