/** Unit tests of the CLI's small pure pieces: paths, issue tidying, JSON conversion, cluster state, errors. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { showPath, type Application } from '../../core/internal.js';
import { showCliError } from '../../app/cli/cli-error.js';
import { parsePath } from '../../app/cli/input/parse-path.js';
import { tidyIssues } from '../../app/cli/input/tidy-issues.js';
import { toJson } from '../../app/cli/input/to-json.js';
import { supportsLiveClusters } from '../../app/cli/live/kubernetes.js';
import { resolveNow } from '../../app/cli/now.js';
import { withClusterState } from '../../app/cli/planning/cluster-state.js';

describe('parsePath', () => {
  it.each([
    [['spec', 'manifest', 0, 'metadata', 'name']],
    [['metadata', 'labels', 'app.kubernetes.io/name']],
    [['spec', 'observerSchema', 3, 'data', 'a "quoted" key', 12]],
    [[]],
  ])('reads back what showPath writes: %j', (path) => {
    expect(parsePath(showPath(path))).toEqual(path);
  });

  it('stops at what it cannot read', () => {
    expect(parsePath('spec.manifest[0] oops')).toEqual(['spec', 'manifest', 0]);
  });
});

describe('tidyIssues', () => {
  it('keeps the deepest issues and the shortest message per path', () => {
    expect(
      tidyIssues([
        { path: 'spec', message: 'expected Partial<{ manifest: … }>, got a list' },
        { path: 'spec', message: 'expected object, got a list' },
        { path: 'status', message: 'expected null, got an object' },
        { path: 'status.conditions[0].type', message: 'expected "Ready" | "Reconciling" | "Stalled", got string "X"' },
      ]),
    ).toEqual([
      { path: 'spec', message: 'expected object, got a list' },
      { path: 'status.conditions[0].type', message: 'expected "Ready" | "Reconciling" | "Stalled", got string "X"' },
    ]);
  });
});

describe('toJson', () => {
  const limits = { maxDepth: 3, maxNodes: 10 };

  it('makes own properties of every key, __proto__ included', () => {
    const result = toJson(
      new Map<unknown, unknown>([
        ['__proto__', new Map([['polluted', true]])],
        [1, 'one'],
        [null, 'nothing'],
      ]),
      limits,
    );
    expect(E.isRight(result)).toBe(true);
    const value = (result as E.Right<Record<string, unknown>>).right;
    expect(Object.keys(value)).toEqual(['1', '__proto__', 'null']); // integer-like keys first, as in every JS object
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    [
      'too deep',
      [[[[1]]]],
      {
        path: [0, 0, 0, 0],
        message: 'nesting is deeper than 3 levels: Kubernetes objects nest far less, check the file',
      },
    ],
    [
      'too many values',
      Array.from({ length: 20 }, () => 1),
      {
        path: [],
        message: 'the document holds more than 10 values (after expanding aliases): split it or remove the repetition',
      },
    ],
    ['not finite', [Number.NaN], { path: [0], message: 'NaN is not a JSON number: quote it to make it a string' }],
    [
      'binary',
      [new Uint8Array([1])],
      {
        path: [0],
        message:
          'binary data (!!binary) is not a JSON value: Kubernetes objects hold only strings, numbers, booleans, null, lists and maps',
      },
    ],
    [
      'a collection key',
      new Map([[['a'], 1]]),
      { path: [], message: 'a map key is itself a list or map, which JSON cannot hold: use a string key' },
    ],
  ])('refuses %s, naming where', (_name, value, problem) => {
    expect(toJson(value, limits)).toEqual(E.left(problem));
  });
});

describe('withClusterState', () => {
  const desired: Application = {
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace: 'shop', uid: 'from-file', generation: 7, labels: { team: 'a' } },
    spec: { manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }] },
    status: { observedGeneration: 99 },
  };

  it('a new Application: generation 1, no uid, no status', () => {
    expect(withClusterState(desired, undefined)).toEqual({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'web', namespace: 'shop', labels: { team: 'a' }, generation: 1 },
      spec: desired.spec,
    });
  });

  it('a recorded Application: its uid, finalizers, status; generation bumped only when the spec changed', () => {
    const recorded: Application = {
      ...desired,
      metadata: {
        name: 'web',
        namespace: 'shop',
        uid: 'u-1',
        generation: 3,
        finalizers: ['kreconcile.io/cleanup'],
        resourceVersion: '42',
      },
      status: { observedGeneration: 3 },
    };
    const same = withClusterState(desired, recorded);
    expect(same.metadata).toEqual({
      name: 'web',
      namespace: 'shop',
      labels: { team: 'a' },
      uid: 'u-1',
      resourceVersion: '42',
      generation: 3,
      finalizers: ['kreconcile.io/cleanup'],
    });
    expect(same.status).toEqual({ observedGeneration: 3 });
    const changed = withClusterState({ ...desired, spec: { manifest: [] } }, recorded);
    expect(changed.metadata.generation).toBe(4);
  });
});

describe('small pieces', () => {
  it.each([
    ['v24.21.0', true],
    ['22.19.0', true],
    ['22.18.1', false],
    ['v20.20.2', false],
    ['23.0.0', true],
  ])('Node %s runs the client: %s', (version, ok) => {
    expect(supportsLiveClusters(version)).toBe(ok);
  });

  it.each([
    ['2026-01-31T12:00:00Z', true],
    ['2026-01-31T12:00:00.5+02:00', true],
    ['2026-01-31', false],
    ['2026-13-45T99:00:00Z', false],
  ])('--now %s valid: %s', (text, ok) => {
    expect(E.isRight(resolveNow(text, () => new Date()))).toBe(ok);
  });

  it('an error line is always one line', () => {
    expect(
      showCliError({
        _tag: 'InputError',
        message: 'first\n  second',
        location: { file: 'a.yaml', document: 2, line: 3, column: 4 },
        subject: 'Application x/y',
        path: 'spec',
      }),
    ).toBe('error: a.yaml:3:4: document 2 (Application x/y): spec: first second');
  });
});
