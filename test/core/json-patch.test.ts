/** The JSON Patch of one resource (`patchOf`): observed fields only, against the live object. */
import { describe, it, expect } from 'vitest';
import { applyPatch, type Operation } from 'fast-json-patch';
import type { JsonValue } from '../../core/internal.js';
import { patchOf } from '../../core/plan/json-patch.js';

const control = (min: number, max: number) => ({
  observer_schema_list_min_length: min,
  observer_schema_list_max_length: max,
});
const head = { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'w' } };
const widget = (body: object) => ({ ...head, ...body });
const schema = (body: object) => ({ ...head, ...body });

const patch = (desired: object, live: object, observed: object) =>
  patchOf(widget(desired), widget(live), schema(observed));
const ops = (desired: object, live: object, observed: object) => patch(desired, live, observed).operations;

/** Applies the operations (validating them, as an API server does) and returns the result. */
const applied = (live: object, operations: ReadonlyArray<unknown>): JsonValue =>
  applyPatch(structuredClone(widget(live)), structuredClone(operations) as Operation[], true, false).newDocument;

describe('patchOf: values', () => {
  it('replaces an observed leaf that differs, with a field-level explanation', () => {
    expect(
      patch({ spec: { replicas: 3, image: 'x' } }, { spec: { replicas: 1, image: 'y' } }, { spec: { replicas: null } }),
    ).toEqual({
      operations: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
      changes: [{ path: 'spec.replicas', from: 1, to: 3 }],
    });
  });

  it('adds an observed leaf missing in the cluster', () => {
    expect(patch({ spec: { replicas: 3 } }, { spec: {} }, { spec: { replicas: null } })).toEqual({
      operations: [{ op: 'add', path: '/spec/replicas', value: 3 }],
      changes: [{ path: 'spec.replicas', to: 3 }],
    });
  });

  it('creates missing parents holding the observed desired values only', () => {
    const operations = ops(
      { spec: { template: { replicas: 3, notObserved: true } } },
      {},
      { spec: { template: { replicas: null } } },
    );
    expect(operations).toEqual([{ op: 'add', path: '/spec', value: { template: { replicas: 3 } } }]);
  });

  it('never patches non-observed fields, unknown desired values, status, apiVersion, kind, name or namespace', () => {
    const desired = {
      apiVersion: 'v2',
      metadata: { name: 'x', namespace: 'a' },
      spec: { a: 1, b: 2, unknown: null },
      status: { phase: 'Ready' },
    };
    const live = {
      metadata: { name: 'w', namespace: 'b' },
      spec: { a: 1, b: 3, unknown: 'server' },
      status: { phase: 'Pending' },
    };
    expect(
      ops(desired, live, {
        metadata: { name: 'w', namespace: null },
        spec: { a: null, unknown: null },
        status: { phase: null },
      }),
    ).toEqual([]);
  });

  it('escapes `/` and `~` in keys (RFC 6901), e.g. label app.kubernetes.io/name', () => {
    const operations = ops(
      { metadata: { name: 'w', labels: { 'app.kubernetes.io/name': 'web', 'a~b': 'x' } } },
      { metadata: { name: 'w', labels: { 'app.kubernetes.io/name': 'old' } } },
      { metadata: { name: 'w', labels: { 'app.kubernetes.io/name': null, 'a~b': null } } },
    );
    expect(operations).toEqual([
      { op: 'replace', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' },
      { op: 'add', path: '/metadata/labels/a~0b', value: 'x' },
    ]);
    expect(applied({ metadata: { name: 'w', labels: { 'app.kubernetes.io/name': 'old' } } }, operations)).toEqual(
      widget({ metadata: { name: 'w', labels: { 'app.kubernetes.io/name': 'web', 'a~b': 'x' } } }),
    );
  });

  it('camelCase keys are patched as written', () => {
    expect(
      ops({ spec: { clusterIP: 'None' } }, { spec: { clusterIP: '10.0.0.1' } }, { spec: { clusterIP: null } }),
    ).toEqual([{ op: 'replace', path: '/spec/clusterIP', value: 'None' }]);
  });

  it('a value observed whole: keys others added inside it stand, differing keys are set in place', () => {
    expect(
      ops(
        { spec: { selector: { app: 'web' } } },
        { spec: { selector: { app: 'web', extra: 'x' } } },
        { spec: { selector: null } },
      ),
    ).toEqual([]);
    expect(
      ops(
        { spec: { selector: { app: 'web' } } },
        { spec: { selector: { app: 'api', extra: 'x' } } },
        { spec: { selector: null } },
      ),
    ).toEqual([{ op: 'replace', path: '/spec/selector/app', value: 'web' }]);
  });

  it('a list observed whole keeps exactly its written length; a scalar where an object is wanted is replaced', () => {
    expect(ops({ spec: { args: ['a'] } }, { spec: { args: ['a', 'b'] } }, { spec: { args: null } })).toEqual([
      { op: 'test', path: '/spec/args/1', value: 'b' },
      { op: 'remove', path: '/spec/args/1' },
    ]);
    expect(
      ops({ spec: { selector: { app: 'web' } } }, { spec: { selector: 'x' } }, { spec: { selector: null } }),
    ).toEqual([{ op: 'replace', path: '/spec/selector', value: { app: 'web' } }]);
  });
});

describe('patchOf: lists', () => {
  it('patches elements by position, guarded by a test of the element name', () => {
    const observed = { spec: { containers: [{ name: null, image: null }, control(1, 1)] } };
    const operations = ops(
      { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } },
      { spec: { containers: [{ name: 'web', image: 'nginx:1' }] } },
      observed,
    );
    expect(operations).toEqual([
      { op: 'test', path: '/spec/containers/0/name', value: 'web' },
      { op: 'replace', path: '/spec/containers/0/image', value: 'nginx:2' },
    ]);
  });

  it('an element without a name is not guarded', () => {
    expect(
      ops(
        { spec: { ports: [{ port: 80 }] } },
        { spec: { ports: [{ port: 81 }] } },
        { spec: { ports: [{ port: null }, control(1, 1)] } },
      ),
    ).toEqual([{ op: 'replace', path: '/spec/ports/0/port', value: 80 }]);
  });

  it('removes trailing elements beyond max, last first, each after a test of its value', () => {
    const operations = ops(
      { spec: { list: ['a'] } },
      { spec: { list: ['a', 'b', 'c'] } },
      { spec: { list: [null, control(1, 1)] } },
    );
    expect(operations).toEqual([
      { op: 'test', path: '/spec/list/2', value: 'c' },
      { op: 'remove', path: '/spec/list/2' },
      { op: 'test', path: '/spec/list/1', value: 'b' },
      { op: 'remove', path: '/spec/list/1' },
    ]);
    expect(applied({ spec: { list: ['a', 'b', 'c'] } }, operations)).toEqual(widget({ spec: { list: ['a'] } }));
  });

  it('max 0 means no maximum: nothing is removed', () => {
    expect(
      ops({ spec: { list: ['a'] } }, { spec: { list: ['a', 'b', 'c'] } }, { spec: { list: [null, control(1, 0)] } }),
    ).toEqual([]);
  });

  it('adds missing observed elements, then whole desired elements to reach min', () => {
    const observed = { spec: { ports: [{ port: null }, control(3, 3)] } };
    const desired = {
      spec: {
        ports: [
          { port: 80, name: 'http' },
          { port: 443, name: 'https' },
          { port: 8080, name: 'alt' },
        ],
      },
    };
    expect(ops(desired, { spec: { ports: [] } }, observed)).toEqual([
      { op: 'add', path: '/spec/ports/0', value: { port: 80 } },
      { op: 'add', path: '/spec/ports/1', value: { port: 443, name: 'https' } },
      { op: 'add', path: '/spec/ports/2', value: { port: 8080, name: 'alt' } },
    ]);
  });

  it('a live list shorter than the schema gets the observed elements it lacks', () => {
    const observed = { spec: { list: [null, null, null, control(0, 0)] } };
    const operations = ops({ spec: { list: ['a', 'b', 'c'] } }, { spec: { list: ['a'] } }, observed);
    expect(operations).toEqual([
      { op: 'add', path: '/spec/list/1', value: 'b' },
      { op: 'add', path: '/spec/list/2', value: 'c' },
    ]);
    expect(applied({ spec: { list: ['a'] } }, operations)).toEqual(widget({ spec: { list: ['a', 'b', 'c'] } }));
  });

  it('a position whose observed part is unknown holds its place (whole) before a known later one', () => {
    const observed = { spec: { list: [{}, null, control(0, 0)] } };
    expect(ops({ spec: { list: [{ x: 1 }, 'b'] } }, { spec: { list: [] } }, observed)).toEqual([
      { op: 'add', path: '/spec/list/0', value: { x: 1 } },
      { op: 'add', path: '/spec/list/1', value: 'b' },
    ]);
    expect(ops({ spec: { list: [{ x: 1 }] } }, { spec: { list: [] } }, observed)).toEqual([]);
  });

  it('a missing list is created within its controls, nested lists included', () => {
    const observed = {
      spec: { containers: [{ name: null, ports: [{ containerPort: null }, control(2, 2)] }, control(1, 1)] },
    };
    const desired = {
      spec: {
        containers: [
          { name: 'web', image: 'x', ports: [{ containerPort: 80 }, { containerPort: 81, protocol: 'TCP' }] },
        ],
      },
    };
    expect(ops(desired, { spec: {} }, observed)).toEqual([
      {
        op: 'add',
        path: '/spec/containers',
        // position 1 of ports is not observed: added whole, to reach the minimum of 2
        value: [{ name: 'web', ports: [{ containerPort: 80 }, { containerPort: 81, protocol: 'TCP' }] }],
      },
    ]);
  });

  it('nested lists of objects are patched at depth', () => {
    const observed = {
      spec: { containers: [{ name: null, env: [{ name: null, value: null }, control(1, 1)] }, control(1, 1)] },
    };
    const desired = { spec: { containers: [{ name: 'web', env: [{ name: 'A', value: '2' }] }] } };
    const live = {
      spec: {
        containers: [
          {
            name: 'web',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: 'x' },
            ],
          },
        ],
      },
    };
    const operations = ops(desired, live, observed);
    expect(operations).toEqual([
      { op: 'test', path: '/spec/containers/0/name', value: 'web' },
      { op: 'test', path: '/spec/containers/0/env/0/name', value: 'A' },
      { op: 'replace', path: '/spec/containers/0/env/0/value', value: '2' },
      { op: 'test', path: '/spec/containers/0/env/1', value: { name: 'B', value: 'x' } },
      { op: 'remove', path: '/spec/containers/0/env/1' },
    ]);
    expect(applied(live, operations)).toEqual(widget(desired));
  });

  it('a mistyped live value is replaced by the observed desired one', () => {
    expect(ops({ spec: { list: ['a'] } }, { spec: { list: 'a' } }, { spec: { list: [null, control(1, 1)] } })).toEqual([
      { op: 'replace', path: '/spec/list', value: ['a'] },
    ]);
  });

  it('a desired empty list with nothing to enforce needs nothing', () => {
    expect(ops({ spec: { list: [] } }, { spec: {} }, { spec: { list: [control(0, 0)] } })).toEqual([]);
  });
});
