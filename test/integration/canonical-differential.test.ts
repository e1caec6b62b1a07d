/**
 * Differential test (issue 20, item 1): fast-check generates valid objects of built-in kinds
 * whose values the API server rewrites when it stores them — resource quantities in every form
 * (suffixes, fractions, exponents, bare numbers), int-or-string ports, base64 with line breaks,
 * `stringData`, RFC 3339 micro-timestamps — writes each to the real kube-apiserver and to the
 * in-memory API server, and compares what each stored (fields the server generates normalised:
 * uid, resourceVersion, timestamps, managedFields, allocated IPs). It also checks the planner's
 * canonical form (core/canonical) is what the real server stored for every quantity.
 *
 * The seed is printed; rerun one with CANONICAL_DIFF_SEED=<seed>. The count is bounded
 * (CANONICAL_DIFF_RUNS, default 60 objects). Known differences are listed in docs/testing.md.
 */
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMemoryCluster, systemClock, type MemoryCluster } from '../../adapters/memory/index.js';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { canonicalResource } from '../../core/canonical/canonical.js';
import type { JsonObject, JsonValue } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';
import { showClusterError } from '../../core/ports/errors.js';
import { normalize } from '../contract/whole-object-normalize.js';
import { goLeaves } from '../support/go-type-leaves.js';
import { connect, describeWithApiServer, freshNamespace } from '../support/kubernetes-env.js';

const SEED = Number(process.env.CANONICAL_DIFF_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.CANONICAL_DIFF_RUNS ?? 60);

// ---- generators of valid values the server rewrites

const digits = (min: number, max: number): fc.Arbitrary<string> =>
  fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
const positiveInteger = fc.integer({ min: 1, max: 99_999 }).map(String);

/** A positive quantity written any valid way: `1000m`, `0.5Gi`, `1e3`, `+2`, `1.50`, or a JSON number. */
const quantity: fc.Arbitrary<string | number> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('', '+'),
      positiveInteger,
      fc.option(digits(1, 4), { nil: undefined }),
      fc.constantFrom('', 'm', 'k', 'M', 'G', 'Ki', 'Mi', 'Gi', 'e3', 'E2', 'e-2'),
    )
    .map(
      ([sign, whole, fraction, suffix]) => `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}${suffix}`,
    ),
  fc.constantFrom('1000m', '1024Mi', '2048Ki', '0.5', '1.0', '500m', '1Gi', '1536Mi', '100M', '01'),
  fc.integer({ min: 1, max: 4096 }),
  fc.integer({ min: 1, max: 4000 }).map((n) => n / 4),
);

/** A port as an int-or-string: a number or an IANA service name. */
const targetPort: fc.Arbitrary<number | string> = fc.oneof(
  fc.integer({ min: 1, max: 65535 }),
  fc.constantFrom('http', 'metrics', 'grpc-web'),
);

const base64Text = (bytes: ReadonlyArray<number>, wrapAt: number | undefined): string => {
  const text = Buffer.from(bytes).toString('base64');
  return wrapAt === undefined ? text : (text.match(new RegExp(`.{1,${wrapAt}}`, 'g')) ?? []).join('\n');
};
/** Base64 as `base64` (wrapped at 76) or people paste it: line breaks anywhere are skipped by Go's decoder. */
const base64Value = fc
  .tuple(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 60 }), fc.option(fc.integer({ min: 4, max: 76 })))
  .map(([bytes, wrap]) => base64Text(bytes, wrap ?? undefined));

const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);

/** RFC 3339 with microseconds (a MicroTime needs exactly 6 digits) and an offset: stored in UTC. */
const microTime = fc
  .tuple(
    fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }),
    digits(6, 6),
    fc.constantFrom('Z', '+02:00', '-05:30'),
  )
  .map(([date, fraction, zone]) => `${date.toISOString().slice(0, 19)}.${fraction}${zone}`);

// ---- objects of built-in kinds (valid: the real server must accept every one)

type Draft = Omit<Resource, 'metadata'> & { readonly metadata?: JsonObject };

const deployment: fc.Arbitrary<Draft> = fc
  .record({ cpu: quantity, memory: quantity, storage: quantity, replicas: fc.integer({ min: 0, max: 5 }) })
  .map(({ cpu, memory, storage, replicas }) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          // requests and limits on different resources: validation compares them only per resource
          containers: [{ name: 'web', image: 'nginx:1.27', resources: { requests: { cpu }, limits: { memory } } }],
          initContainers: [{ name: 'init', image: 'busybox', resources: { limits: { cpu } } }],
          volumes: [{ name: 'scratch', emptyDir: { sizeLimit: storage } }],
        },
      },
    },
  }));

const service: fc.Arbitrary<Draft> = fc
  .uniqueArray(fc.integer({ min: 1, max: 65535 }), { minLength: 1, maxLength: 3 })
  .chain((ports) =>
    fc.tuple(fc.constant(ports), fc.array(targetPort, { minLength: ports.length, maxLength: ports.length })),
  )
  .map(([ports, targets]) => ({
    apiVersion: 'v1',
    kind: 'Service',
    spec: {
      selector: { app: 'web' },
      ports: ports.map((port, i) => ({ name: `p${i}`, port, targetPort: targets[i] ?? port })),
    },
  }));

const configMap: fc.Arbitrary<Draft> = fc
  .dictionary(key, base64Value, { maxKeys: 3 })
  .map((binaryData) => ({ apiVersion: 'v1', kind: 'ConfigMap', data: { plain: 'text' }, binaryData }));

const secret: fc.Arbitrary<Draft> = fc
  .record({
    data: fc.dictionary(key, base64Value, { maxKeys: 3 }),
    stringData: fc.dictionary(key, fc.string(), { maxKeys: 2 }),
  })
  .map(({ data, stringData }) => ({ apiVersion: 'v1', kind: 'Secret', data, stringData }));

const claim: fc.Arbitrary<Draft> = quantity.map((storage) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
}));

const quota: fc.Arbitrary<Draft> = fc.record({ cpu: quantity, memory: quantity }).map(({ cpu, memory }) => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  spec: { hard: { 'requests.cpu': cpu, 'limits.memory': memory } },
}));

const limitRange: fc.Arbitrary<Draft> = fc.record({ cpu: quantity, memory: quantity }).map(({ cpu, memory }) => ({
  apiVersion: 'v1',
  kind: 'LimitRange',
  spec: { limits: [{ type: 'Container', max: { cpu, memory } }] },
}));

const lease: fc.Arbitrary<Draft> = fc
  .record({ acquireTime: microTime, renewTime: microTime, leaseDurationSeconds: fc.integer({ min: 1, max: 3600 }) })
  .map((spec) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: { holderIdentity: 'me', ...spec } }));

const draft = fc.oneof(deployment, service, configMap, secret, claim, quota, limitRange, lease);

// ---- comparison

/** Fields only one of the servers fills for reasons outside this test, with the reason (docs/testing.md). */
const KNOWN: ReadonlyArray<{ readonly kind: string; readonly path: string; readonly reason: string }> = [];

/** Every path where two normalised objects differ, `a.b[0].c: real → memory`. */
const differences = (real: JsonValue | undefined, memory: JsonValue | undefined, path = ''): ReadonlyArray<string> => {
  if (JSON.stringify(real) === JSON.stringify(memory)) return [];
  const bothObjects = typeof real === 'object' && real !== null && typeof memory === 'object' && memory !== null;
  if (!bothObjects || Array.isArray(real) !== Array.isArray(memory))
    return [`${path}: ${JSON.stringify(real)} (real) ≠ ${JSON.stringify(memory)} (memory)`];
  if (Array.isArray(real) && Array.isArray(memory)) {
    const length = Math.max(real.length, memory.length);
    return Array.from({ length }, (_, i) => differences(real[i], memory[i], `${path}[${i}]`)).flat();
  }
  const a = real as JsonObject;
  const b = memory as JsonObject;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.flatMap((k) => differences(a[k], b[k], path === '' ? k : `${path}.${k}`));
};

const isKnown = (kind: string, difference: string): boolean =>
  KNOWN.some((known) => known.kind === kind && difference.startsWith(`${known.path}:`));

/** The quantity values of a stored object, by path, where the planner's canonical form must equal the server's. */
const quantitiesOf = (object: Resource): ReadonlyArray<readonly [string, JsonValue]> =>
  goLeaves(object, new Set(['quantity']));

describeWithApiServer('stored values: the in-memory API server against kube-apiserver', (env) => {
  let real: KubernetesCluster;
  let memory: MemoryCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let counter = 0;
  const tally = { objects: 0, differences: 0 };

  beforeAll(async () => {
    real = connect(env);
    ({ namespace, cleanup } = await freshNamespace(real, 'kr-canonical'));
    memory = createMemoryCluster({ clock: systemClock, seed: 1, workloads: false });
    const created = await memory.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })();
    if (E.isLeft(created)) throw new Error(showClusterError(created.left));
  });
  afterAll(async () => {
    console.log(
      `canonical differential: seed ${SEED}, ${tally.objects} objects compared, ${tally.differences} differences`,
    );
    await cleanup();
  });

  it(`stores what kube-apiserver stores (seed ${SEED}, ${RUNS} objects)`, async () => {
    console.log(`canonical differential: seed ${SEED} (rerun with CANONICAL_DIFF_SEED=${SEED})`);
    await fc.assert(
      fc.asyncProperty(draft, async (generated) => {
        counter += 1;
        const object = {
          ...generated,
          metadata: { name: `obj-${counter}`, namespace, ...generated.metadata },
        } as Resource;
        const onReal = await real.create(object)();
        if (E.isLeft(onReal))
          throw new Error(`the real server refused ${JSON.stringify(object)}: ${showClusterError(onReal.left)}`);
        const onMemory = await memory.create(object)();
        if (E.isLeft(onMemory))
          throw new Error(`the memory server refused what the real one stored: ${showClusterError(onMemory.left)}`);
        tally.objects += 1;
        const found = differences(normalize(onReal.right, namespace), normalize(onMemory.right, namespace)).filter(
          (d) => !isKnown(object.kind, d),
        );
        tally.differences += found.length;
        expect(found, `${object.kind} ${JSON.stringify(object)}`).toEqual([]);
        // The planner's desired form of each quantity is the stored one (so it never patches it again).
        const desired = quantitiesOf(canonicalResource(object));
        const stored = new Map(quantitiesOf(onReal.right));
        expect(desired).toEqual(desired.map(([path]) => [path, stored.get(path)]));
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});
