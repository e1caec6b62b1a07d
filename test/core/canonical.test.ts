import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalized, canonicalResource, type CanonicalProblem } from '../../core/canonical/canonical.js';
import {
  canonicalFieldsOf,
  EACH_ITEM,
  EACH_VALUE,
  KIND_FIELDS,
  type CanonicalField,
} from '../../core/canonical/fields.js';
import { decodeGoBase64 } from '../../core/canonical/go-base64.js';
import { canonicalQuantity, parsedCanonical, QUANTITY_FORMAT_ERROR } from '../../core/canonical/quantity.js';
import { canonicalMicroTime, canonicalTime } from '../../core/canonical/time.js';
import { isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../../core/json/json.js';
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
 * The definition `canonicalized` implements in one walk: each field of the kind applied in turn,
 * in list order, to what the fields before it left (each walk from the root). Written plainly
 * here, paths copied at every step, so that the one-walk version has something to be equal to.
 */
const oneFieldAtATime = (kind: string, object: JsonObject): { value: JsonValue; problems: CanonicalProblem[] } => {
  const problems: CanonicalProblem[] = [];
  const GONE = Symbol('gone');
  const isEmpty = (v: JsonValue): boolean =>
    Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0;
  const leafOf = (field: CanonicalField, value: JsonValue, inMap: boolean): JsonValue | typeof GONE | Error => {
    if (field.type === 'omitEmpty') return isEmpty(value) ? GONE : value;
    const stored =
      field.type === 'time'
        ? canonicalTime(value)
        : field.type === 'microTime'
          ? canonicalMicroTime(value)
          : value === null
            ? { ok: true as const, value: inMap ? (field.type === 'bytes' ? '' : '0') : null }
            : field.type !== 'bytes'
              ? canonicalQuantity(value, field.type === 'resourceList')
              : typeof value !== 'string'
                ? { ok: true as const, value }
                : ((decoded) => (decoded.ok ? { ok: true as const, value: decoded.canonical } : decoded))(
                    decodeGoBase64(value),
                  );
    return stored.ok ? stored.value : new Error(stored.message);
  };
  const at = (
    field: CanonicalField,
    value: JsonValue,
    index: number,
    path: Array<string | number>,
  ): JsonValue | typeof GONE => {
    if (index === field.path.length) {
      const stored = leafOf(field, value, field.path[index - 1] === EACH_VALUE);
      if (stored instanceof Error) {
        problems.push({ path, message: stored.message });
        return value;
      }
      return stored;
    }
    const step = field.path[index] as string;
    if (step === EACH_ITEM)
      return Array.isArray(value)
        ? value.map((item: JsonValue, i: number) => {
            const next = at(field, item, index + 1, [...path, i]);
            return next === GONE ? item : next;
          })
        : value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const keys = step === EACH_VALUE ? Object.keys(value) : Object.hasOwn(value, step) ? [step] : [];
    const result: Record<string, JsonValue> = { ...(value as JsonObject) };
    for (const key of keys) {
      const next = at(field, (value as JsonObject)[key] as JsonValue, index + 1, [...path, key]);
      if (next === GONE) delete result[key];
      else result[key] = next;
    }
    return result;
  };
  let value: JsonValue = object;
  for (const field of canonicalFieldsOf(...(kind.split('/') as [string, string]))) {
    const next = at(field, value, 0, []);
    if (next !== GONE) value = next;
  }
  return { value, problems };
};

/** Values that exercise every field type: canonical, rewritten, refused, null, empty. */
const canonicalLeaf: fc.Arbitrary<JsonValue> = fc.constantFrom<JsonValue>(
  '100m',
  '1000m',
  '1024Mi',
  0.5,
  2,
  '1 core',
  null,
  [],
  {},
  ['a'],
  { a: 'b' },
  'aGk=\n',
  'aGk',
  '!!',
  '2026-01-02T03:04:05+02:00',
  '2026-01-02T03:04:05.123456Z',
  'yesterday',
);

/** An object with values along some of the kind's field paths (and lists, maps and leaves elsewhere). */
const objectAlong = (kind: string): fc.Arbitrary<JsonObject> => {
  const [group, name] = kind.split('/') as [string, string];
  const paths = canonicalFieldsOf(group, name).map((field) => field.path);
  const nodeAt = (prefix: ReadonlyArray<string>, depth: number): fc.Arbitrary<JsonValue> => {
    const next = [
      ...new Set(
        paths
          .filter((p) => p.length > prefix.length && prefix.every((s, i) => p[i] === s))
          .map((p) => p[prefix.length]),
      ),
    ] as string[];
    if (next.length === 0 || depth > 12) return canonicalLeaf;
    const below = (step: string): fc.Arbitrary<JsonValue> =>
      step === EACH_ITEM
        ? fc.array(nodeAt([...prefix, step], depth + 1), { maxLength: 2 })
        : step === EACH_VALUE
          ? fc.dictionary(fc.constantFrom('cpu', 'memory', 'x'), nodeAt([...prefix, step], depth + 1), { maxKeys: 2 })
          : nodeAt([...prefix, step], depth + 1);
    const named = next.filter((step) => step !== EACH_ITEM && step !== EACH_VALUE);
    const structured: fc.Arbitrary<JsonValue> = next.includes(EACH_ITEM)
      ? below(EACH_ITEM)
      : next.includes(EACH_VALUE)
        ? below(EACH_VALUE)
        : fc
            .record(Object.fromEntries(named.map((step) => [step, below(step)])), { requiredKeys: [] })
            .map((record) =>
              objectFromEntries(
                Object.entries(record).flatMap(([key, v]) => (v === undefined ? [] : [[key, v] as const])),
              ),
            );
    return fc.oneof({ weight: 4, arbitrary: structured }, { weight: 1, arbitrary: canonicalLeaf });
  };
  return nodeAt([], 0).map((value) => (isJsonObject(value) ? value : {}));
};

describe("canonicalized: one walk over the kind's field tree", () => {
  it('gives the value and problems (in field order) of applying each field in turn', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...KIND_FIELDS.keys(), 'example.com/Widget')
          .chain((kind) => objectAlong(kind).map((object) => [kind, object] as const)),
        ([kind, object]) => {
          const [group, name] = kind.split('/') as [string, string];
          const walked = canonicalized(group, name, object);
          const expected = oneFieldAtATime(kind, object);
          expect(walked.value).toEqual(expected.value);
          expect(walked.problems).toEqual(expected.problems);
        },
      ),
      { numRuns: 400 },
    );
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
