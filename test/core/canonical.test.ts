import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalized, canonicalResource, type CanonicalProblem } from '../../core/canonical/canonical.js';
import { goKinds, kindStruct, type StructShape, type ValueShape } from '../../core/canonical/go-types.js';
import { GO_TYPES } from '../../core/canonical/go-types.generated.js';
import { decodeGoBase64 } from '../../core/canonical/go-base64.js';
import { canonicalQuantity, parsedCanonical, QUANTITY_FORMAT_ERROR } from '../../core/canonical/quantity.js';
import { canonicalMicroTime, canonicalTime } from '../../core/canonical/time.js';
import { getOwn, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';

/**
 * What `json.Unmarshal` into a `resource.Quantity` then `json.Marshal` answers (k8s.io/apimachinery
 * v0.36.3, the library kube-apiserver 1.36.3 stores quantities with), for the JSON values sent.
 * Recorded by running that Go code on these inputs; the differential suite
 * (test/integration/canonical-differential.test.ts) checks the same on the real API server.
 */
const SERVER_STORES: ReadonlyArray<readonly [unknown, string]> = [
  ['1000m', '1'],
  ['1024Mi', '1Gi'],
  [0.5, '500m'],
  [2, '2'],
  ['0.5Gi', '512Mi'],
  ['1.5Gi', '1536Mi'],
  ['100m', '100m'],
  ['1500m', '1500m'],
  ['1e3', '1e3'],
  ['1E3', '1E3'],
  ['12e2', '1200'],
  ['+1', '+1'],
  ['01', '01'],
  ['500Mi', '500Mi'],
  ['1000Ki', '1000Ki'],
  ['2048Ki', '2Mi'],
  ['1000E', '1'],
  ['0.1n', '1n'],
  ['1e-20', '1e-9'],
  ['1Ei', '1Ei'],
  ['8Ei', '9223372036854775807'],
  ['0.5Ki', '512'],
  ['1.1Ki', '1126400m'],
  [' 1 ', '1'],
  ['1.0', '1'],
  ['0', '0'],
  ['-0', '0'],
  ['.', '0'],
  ['1.', '1.'],
  ['129M', '129M'],
  ['0.25', '250m'],
  [1.5, '1500m'],
  [null, '0'],
  ['123456789012345678901234', '123456789012345678901234'],
  ['1.000000000001', '1000000001n'],
];

const SERVER_REFUSES: ReadonlyArray<readonly [unknown, string]> = [
  ['1K', "unable to parse quantity's suffix"],
  ['1 core', QUANTITY_FORMAT_ERROR],
  ['', QUANTITY_FORMAT_ERROR],
  [true, QUANTITY_FORMAT_ERROR],
  [{}, QUANTITY_FORMAT_ERROR],
  ['-Pi', 'unable to parse numeric part of quantity'],
];

describe('canonicalQuantity: the text kube-apiserver stores', () => {
  it.each(SERVER_STORES)('%j is stored as %j', (sent, stored) => {
    expect(canonicalQuantity(sent)).toEqual({ ok: true, value: stored });
  });

  // core/v1 defaulting rounds every resource list value up to milli-units (SetDefaults_ResourceList).
  it.each([
    ['30122.7m', '30123m'],
    ['1500u', '2m'],
    ['0.1n', '1m'],
    ['0.0001', '1m'],
    ['1.5', '1500m'],
    ['500Mi', '500Mi'],
  ] as const)('a resource list value %j is stored as %j', (sent, stored) => {
    expect(canonicalQuantity(sent, true)).toEqual({ ok: true, value: stored });
  });

  it.each(SERVER_REFUSES)('%j is refused: %s', (sent, message) => {
    expect(canonicalQuantity(sent)).toEqual({ ok: false, message });
  });

  const quantityText = fc
    .tuple(
      fc.constantFrom('', '+', '-'),
      fc.stringMatching(/^[0-9]{0,20}$/),
      fc.option(fc.stringMatching(/^[0-9]{0,12}$/)),
      fc.constantFrom(
        '',
        'n',
        'u',
        'm',
        'k',
        'M',
        'G',
        'T',
        'P',
        'E',
        'Ki',
        'Mi',
        'Gi',
        'Ti',
        'Pi',
        'Ei',
        'e3',
        'e-4',
        'E+7',
      ),
    )
    .map(([sign, num, denom, suffix]) => `${sign}${num}${denom === null ? '' : `.${denom}`}${suffix}`);

  it('storing a stored value again changes nothing (what the server answers is what the planner compares)', () => {
    fc.assert(
      fc.property(fc.oneof(quantityText, fc.double({ noNaN: true, noDefaultInfinity: true })), (sent) => {
        const stored = canonicalQuantity(sent);
        if (!stored.ok) return;
        expect(canonicalQuantity(stored.value)).toEqual(stored);
      }),
    );
  });

  it('keeps the value of a decimal quantity within the SI suffixes (n to E)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 9 }),
        fc.constantFrom(['m', 1e-3], ['', 1], ['k', 1e3], ['M', 1e6]),
        (n, [suffix, scale]) => {
          const stored = canonicalQuantity(`${n}${suffix as string}`);
          expect(stored.ok).toBe(true);
          if (!stored.ok) return;
          const match = /^(\d+)([a-zA-Z]*)$/.exec(stored.value);
          const factor: Record<string, number> = { m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };
          expect(match).not.toBeNull();
          const [, digits = '', unit = ''] = match ?? [];
          expect(Number(digits) * (factor[unit] ?? NaN)).toBeCloseTo(n * (scale as number), 6);
        },
      ),
    );
  });
});

const deployment = (resources: unknown): Resource =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      template: {
        spec: {
          containers: [{ name: 'web', image: 'nginx', resources }],
          initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { memory: '1024Mi' } } }],
          volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '0.5Gi' } }],
        },
      },
    },
  }) as Resource;

describe('canonicalResource: desired objects in the form the server stores', () => {
  it('canonicalises every quantity of a pod template (containers, init containers, volumes)', () => {
    const stored = canonicalResource(deployment({ limits: { cpu: '1000m', memory: 2 }, requests: { cpu: 0.5 } }));
    expect(stored).toMatchObject({
      spec: {
        template: {
          spec: {
            containers: [{ resources: { limits: { cpu: '1', memory: '2' }, requests: { cpu: '500m' } } }],
            initContainers: [{ resources: { requests: { memory: '1Gi' } } }],
            volumes: [{ emptyDir: { sizeLimit: '512Mi' } }],
          },
        },
      },
    });
  });

  it('returns the same object when everything is already canonical (plan memos key on identity)', () => {
    const already = canonicalResource(deployment({ limits: { cpu: '1' } }));
    expect(canonicalResource(already)).toBe(already);
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
      data: { x: '1000m' },
    } as Resource;
    expect(canonicalResource(configMap)).toBe(configMap);
  });

  it('leaves a value the server refuses as written, and names it', () => {
    const written = deployment({ limits: { cpu: '1 core' } });
    expect(canonicalResource(written)).toMatchObject({
      spec: { template: { spec: { containers: [{ resources: { limits: { cpu: '1 core' } } }] } } },
    });
    expect(canonicalized('apps', 'Deployment', written).problems).toEqual([
      {
        path: ['spec', 'template', 'spec', 'containers', 0, 'resources', 'limits', 'cpu'],
        message: QUANTITY_FORMAT_ERROR,
      },
    ]);
  });

  it('re-encodes Secret data as Go does (newlines skipped) and canonicalises the other kinds listed', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'aGk=\n', b: null } };
    expect(canonicalResource(secret as Resource)).toMatchObject({ data: { a: 'aGk=', b: '' } });
    const quota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { cpu: '2000m' } },
    };
    expect(canonicalResource(quota as Resource)).toMatchObject({ spec: { hard: { cpu: '2' } } });
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'c' },
      spec: { resources: { requests: { storage: '1024Mi' } } },
    };
    expect(canonicalResource(claim as Resource)).toMatchObject({
      spec: { resources: { requests: { storage: '1Gi' } } },
    });
  });

  it('leaves custom kinds alone, even named like a built-in one', () => {
    const custom = {
      apiVersion: 'example.com/v1',
      kind: 'Deployment',
      metadata: { name: 'x' },
      spec: { template: { spec: { containers: [{ name: 'a', resources: { limits: { cpu: '1000m' } } }] } } },
    } as Resource;
    expect(canonicalResource(custom)).toBe(custom);
  });
});

describe('times as the server stores them', () => {
  it('a MicroTime (Lease, Event) needs six fraction digits and is stored in UTC', () => {
    expect(canonicalMicroTime('2000-01-01T00:00:00.306388+02:00')).toEqual({
      ok: true,
      value: '1999-12-31T22:00:00.306388Z',
    });
    expect(canonicalMicroTime('2000-01-01T00:00:00.030766-05:30')).toEqual({
      ok: true,
      value: '2000-01-01T05:30:00.030766Z',
    });
    expect(canonicalMicroTime('2025-11-29T19:43:07.80150-05:30').ok).toBe(false);
    expect(canonicalMicroTime('2025-02-30T00:00:00.000000Z').ok).toBe(false);
  });

  it('a Time is stored in UTC to the second, its fraction cut', () => {
    expect(canonicalTime('2024-01-01T00:00:00.9+02:00')).toEqual({ ok: true, value: '2023-12-31T22:00:00Z' });
    expect(canonicalTime(null)).toEqual({ ok: true, value: null });
    expect(canonicalTime('yesterday').ok).toBe(false);
  });

  it('a Lease written with an offset is desired in UTC', () => {
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l' },
      spec: { acquireTime: '2000-01-01T00:00:00.306388+02:00' },
    } as Resource;
    expect(canonicalResource(lease)).toMatchObject({ spec: { acquireTime: '1999-12-31T22:00:00.306388Z' } });
  });
});

describe('empty maps and lists the server does not store', () => {
  it('leaves out `labels: {}`, `data: {}`, empty container lists; keeps empty structs (`resources: {}`, `emptyDir: {}`)', () => {
    const written = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: {}, annotations: { a: 'b' } },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        strategy: {},
        template: {
          metadata: { labels: { app: 'web' }, annotations: {} },
          spec: {
            containers: [{ name: 'web', image: 'nginx', args: [], resources: {} }],
            volumes: [{ name: 'v', emptyDir: {} }],
          },
        },
      },
    } as unknown as Resource;
    expect(canonicalResource(written)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', annotations: { a: 'b' } },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        strategy: {},
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [{ name: 'web', image: 'nginx', resources: {} }],
            volumes: [{ name: 'v', emptyDir: {} }],
          },
        },
      },
    });
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', finalizers: [] }, data: {} };
    expect(canonicalResource(configMap as Resource)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
    });
  });
});

/**
 * Arbitrary JSON along a Go struct of the table: each field absent, null, at its zero value or not, `depth` structs
 * deep.
 */
const alongStruct = (struct: StructShape, depth: number): fc.Arbitrary<JsonObject> =>
  fc
    .record(Object.fromEntries([...struct.fields.values()].map((f) => [f.name, alongType(f.type, depth)])), {
      requiredKeys: [],
    })
    .map((record) =>
      objectFromEntries(Object.entries(record).flatMap(([k, v]) => (v === undefined ? [] : [[k, v] as const]))),
    );

const SCALARS: Readonly<Record<string, ReadonlyArray<JsonValue>>> = {
  string: ['', 'x'],
  bool: [false, true],
  int: [0, 3],
  float: [0, 0.5],
  bytes: ['', 'aGk=\n'],
  quantity: ['0', '1000m', 2],
  intOrString: [0, 'http', 8080],
  time: ['2026-01-02T03:04:05+02:00'],
  microTime: ['2026-01-02T03:04:05.123456Z'],
  duration: ['1m'],
  raw: [{ b: 1 }],
};

const alongType = (type: ValueShape, depth: number): fc.Arbitrary<JsonValue> => {
  const leaf = fc.constantFrom<JsonValue>(null, ...(SCALARS[type.kind] ?? [null]));
  if (type.kind === 'struct')
    return depth === 0
      ? fc.constantFrom<JsonValue>(null, {})
      : fc.oneof(fc.constant(null), alongStruct(type.struct, depth - 1));
  if (type.kind === 'list') return fc.array(depth === 0 ? leaf : alongType(type.items, depth - 1), { maxLength: 2 });
  if (type.kind === 'map' || type.kind === 'resourceList') {
    const values =
      type.kind === 'map' ? alongType(type.values, Math.max(depth - 1, 0)) : alongType({ kind: 'quantity' }, 0);
    return fc.dictionary(fc.constantFrom('cpu', 'a', '__proto__'), values, { maxKeys: 2 });
  }
  return leaf;
};

/** Every value the walk left where the table says Go would not store it, and every pointer set that it lost. */
const violations = (
  struct: StructShape,
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  path: string,
): string[] => {
  if (!isJsonObject(after) || !isJsonObject(before)) return [];
  return [...struct.fields.values()].flatMap((field) => {
    const was = getOwn(before, field.name);
    const is = getOwn(after, field.name);
    const here = `${path}.${field.name}`;
    if (field.pointer && was !== undefined && was !== null && is === undefined)
      return [`${here}: a set pointer was dropped`];
    if (field.dropped && !field.pointer && is !== undefined && isZeroJson(is))
      return [`${here}: zero value ${JSON.stringify(is)} kept`];
    if (field.type.kind === 'struct') return violations(field.type.struct, was, is, here);
    if (field.type.kind === 'list' && field.type.items.kind === 'struct' && Array.isArray(was) && Array.isArray(is)) {
      const items = field.type.items.struct;
      return is.flatMap((item: JsonValue, i: number) => violations(items, was[i], item, `${here}[${i}]`));
    }
    return [];
  });
};

const isZeroJson = (value: JsonValue): boolean =>
  value === null ||
  value === false ||
  value === 0 ||
  value === '' ||
  (typeof value === 'object' && Object.keys(value).length === 0);

describe('canonicalized: the stored form the Go types give, at every depth', () => {
  const kinds = goKinds().filter((key) => !key.startsWith('apiextensions.k8s.io/'));

  it('drops non-pointer zero values Go does not write, keeps pointers, and is idempotent', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds).chain((key) => {
          const slash = key.lastIndexOf('/');
          const struct = kindStruct(key.slice(0, slash), key.slice(slash + 1));
          if (struct === undefined) throw new Error(`no struct for ${key}`);
          return alongStruct(struct, 4).map((object) => ({
            key,
            struct,
            apiVersion: key.slice(0, slash),
            kind: key.slice(slash + 1),
            object,
          }));
        }),
        ({ struct, apiVersion, kind, object }) => {
          const written = { ...object, apiVersion, kind };
          const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
          const once = canonicalized(group, kind, written).value;
          expect(violations(struct, written, once, kind)).toEqual([]);
          expect(canonicalized(group, kind, once).value).toEqual(once);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('every type the generator wrote is one the walk knows', () => {
    const unknown = Object.entries(GO_TYPES.types).flatMap(([name, fields]) =>
      fields
        .map(([field, type]) => [field, type.replace(/^(\[\]|map\[\])+/, '')] as const)
        .filter(([, type]) => !type.startsWith('@') && !Object.hasOwn(SCALARS, type) && type !== 'resourceList')
        .map(([field, type]) => `${name}.${field}: ${type}`),
    );
    expect(unknown).toEqual([]);
  });

  it.each([
    ['apps/v1', 'Deployment', { minReadySeconds: 0, paused: false, replicas: 0 }, { replicas: 0 }],
    ['apps/v1', 'StatefulSet', { minReadySeconds: 0, replicas: 0, serviceName: '' }, { replicas: 0, serviceName: '' }],
    [
      'batch/v1',
      'Job',
      { suspend: false, manualSelector: false, completions: 0 },
      { suspend: false, manualSelector: false, completions: 0 },
    ],
  ])('%s %s spec %j is stored as %j', (apiVersion, kind, spec, stored) => {
    const group = apiVersion.split('/')[0] ?? '';
    const written = { apiVersion, kind, metadata: { name: 'x' }, spec } as Resource;
    expect(canonicalized(group, kind, written).value.spec).toEqual(stored);
  });

  it('drops zero values inside lists and maps of structs (volume mounts, ports, containers)', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: {}, generation: 0 },
      spec: {
        hostNetwork: false,
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'a',
            image: 'i',
            stdin: false,
            tty: false,
            workingDir: '',
            volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: false, subPath: '' }],
            ports: [{ containerPort: 80, hostPort: 0 }],
            securityContext: { privileged: false },
          },
        ],
      },
    } as Resource;
    expect(canonicalResource(pod)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'a',
            image: 'i',
            volumeMounts: [{ name: 'v', mountPath: '/v' }],
            ports: [{ containerPort: 80 }],
            securityContext: { privileged: false },
          },
        ],
      },
    });
    const others: ReadonlyArray<readonly [string, string, JsonObject, JsonObject]> = [
      ['scheduling.k8s.io/v1', 'PriorityClass', { value: 0, globalDefault: false }, { value: 0 }],
      [
        'v1',
        'Service',
        { spec: { publishNotReadyAddresses: false, ports: [{ port: 80, nodePort: 0 }] } },
        { spec: { ports: [{ port: 80 }] } },
      ],
      ['v1', 'ConfigMap', { immutable: false, data: {} }, { immutable: false }],
      ['v1', 'ServiceAccount', { automountServiceAccountToken: false }, { automountServiceAccountToken: false }],
    ];
    for (const [apiVersion, kind, body, stored] of others) {
      const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
      const written = { apiVersion, kind, metadata: { name: 'x' }, ...body } as Resource;
      expect(canonicalized(group, kind, written).value).toEqual({
        apiVersion,
        kind,
        metadata: { name: 'x' },
        ...stored,
      });
    }
  });

  it('a null field is its zero value: left out, or stored as Go writes it', () => {
    const written = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'x', labels: null },
      spec: {
        replicas: null,
        paused: null,
        template: { metadata: null, spec: { containers: [{ name: 'a', resources: null }] } },
      },
    } as unknown as Resource;
    expect(canonicalResource(written)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'x' },
      spec: { template: { metadata: {}, spec: { containers: [{ name: 'a', resources: {} }] } } },
    });
  });
});

describe('canonicalQuantity: the common quantities answered without parsing', () => {
  const suffixes = ['', 'm', 'k', 'M', 'G', 'T', 'P', 'n', 'u', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'e3', 'K'];
  const text = fc
    .tuple(
      fc.oneof(fc.integer({ min: 0, max: 2048 }), fc.bigInt({ min: 0n, max: 10n ** 17n }).map(String)),
      fc.constantFrom('', '0', '00', '000'),
      fc.constantFrom(...suffixes),
    )
    .map(([digits, zeros, suffix]) => `${String(digits)}${zeros}${suffix}`);

  it('answers what parsing as the server does answers, for lists of resources and plain quantities', () => {
    fc.assert(
      fc.property(text, fc.boolean(), (written, resourceList) => {
        expect(canonicalQuantity(written, resourceList)).toEqual(parsedCanonical(written, resourceList));
      }),
      { numRuns: 3000 },
    );
  });

  it('every binary mantissa from 1 to 1024 of every binary suffix', () => {
    for (const suffix of ['Ki', 'Mi', 'Gi', 'Ti', 'Pi'])
      for (let mantissa = 1; mantissa <= 1024; mantissa++)
        for (const resourceList of [false, true])
          expect(canonicalQuantity(`${mantissa}${suffix}`, resourceList)).toEqual(
            parsedCanonical(`${mantissa}${suffix}`, resourceList),
          );
  });
});
