/** The current state (`updateLastObservedManifestFromResponse`), drift and the resource delta. */
import { describe, it, expect } from 'vitest';
import {
  calculateResourceDelta,
  driftOf,
  removeFromLastObservedManifest,
  updateLastObservedManifestFromResponse,
  type JsonObject,
  type ObserverSchema,
  type Resource,
} from '../../core/internal.js';

const control = (min: number, max: number) => ({
  observer_schema_list_min_length: min,
  observer_schema_list_max_length: max,
});
const length = (n: number) => ({ observer_schema_list_current_length: n });

const head = (name = 'w', namespace = 'default') => ({
  apiVersion: 'example.io/v1',
  kind: 'Widget',
  metadata: { name, namespace },
});
const widget = (spec: object, name = 'w', namespace = 'default'): Resource =>
  ({ ...head(name, namespace), spec }) as Resource;
const schema = (spec: object, name = 'w'): ObserverSchema =>
  ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name }, spec }) as ObserverSchema;

const observe = (observed: object, response: object) =>
  updateLastObservedManifestFromResponse({
    lastObservedManifest: [],
    mangledObserverSchema: [schema(observed)],
    response: widget(response),
  })[0];

describe('updateLastObservedManifestFromResponse', () => {
  it('projects the response on its schema; lists end with their current length', () => {
    expect(
      observe(
        { a: null, ports: [{ port: null }, control(1, 3)] },
        { a: 1, b: 2, ports: [{ port: 80, name: 'http' }, { port: 443 }] },
      ),
    ).toEqual({
      ...head(),
      spec: { a: 1, ports: [{ port: 80 }, length(2)] },
    });
  });

  it('a list shorter than the schema has only its elements; a longer one only the observed positions', () => {
    const observed = { list: [null, null, null, control(0, 0)] };
    expect(observe(observed, { list: ['a'] })).toEqual({ ...head(), spec: { list: ['a', length(1)] } });
    expect(observe({ list: [null, control(0, 0)] }, { list: ['a', 'b', 'c'] })).toEqual({
      ...head(),
      spec: { list: ['a', length(3)] },
    });
    expect(observe(observed, { list: [] })).toEqual({ ...head(), spec: { list: [length(0)] } });
  });

  it('nested lists of objects', () => {
    const observed = { containers: [{ name: null, env: [{ value: null }, control(0, 0)] }, control(1, 1)] };
    expect(
      observe(observed, {
        containers: [
          {
            name: 'c',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
        ],
      }),
    ).toEqual({
      ...head(),
      spec: { containers: [{ name: 'c', env: [{ value: '1' }, length(2)] }, length(1)] },
    });
  });

  it('a missing key is left out, not an error; a null is observed as null', () => {
    expect(observe({ a: null, b: null, deep: { x: null }, list: [null, control(1, 1)] }, { b: null })).toEqual({
      ...head(),
      spec: { b: null },
    });
  });

  it('a value shaped unlike its schema is recorded as it is', () => {
    expect(observe({ list: [null, control(0, 0)], obj: { a: null } }, { list: 'text', obj: 5 })).toEqual({
      ...head(),
      spec: { list: 'text', obj: 5 },
    });
  });

  it('identification is always recorded, even when the schema does not cover the resource', () => {
    const entry = updateLastObservedManifestFromResponse({
      lastObservedManifest: [],
      mangledObserverSchema: [],
      response: widget({ a: 1 }),
    });
    expect(entry).toEqual([head()]);
  });

  it('replaces the entry of the same resource, keeps the others, appends new ones', () => {
    const other = { ...head('other'), spec: { a: 0 } };
    const before: ReadonlyArray<JsonObject> = [{ ...head(), spec: { a: 1 } }, other];
    const after = updateLastObservedManifestFromResponse({
      lastObservedManifest: before,
      mangledObserverSchema: [schema({ a: null })],
      response: widget({ a: 2 }),
    });
    expect(after).toEqual([{ ...head(), spec: { a: 2 } }, other]);
    const elsewhere = updateLastObservedManifestFromResponse({
      lastObservedManifest: before,
      mangledObserverSchema: [schema({ a: null })],
      response: widget({ a: 3 }, 'w', 'prod'),
      namespace: 'default',
    });
    expect(elsewhere).toEqual([...before, { ...head('w', 'prod'), spec: { a: 3 } }]);
  });

  it('removeFromLastObservedManifest drops the entry of a deleted resource only', () => {
    const entries = [{ ...head() }, { ...head('w', 'prod') }];
    expect(removeFromLastObservedManifest(entries, widget({}, 'w', 'prod'), 'default')).toEqual([head()]);
  });
});

describe('driftOf', () => {
  const drift = (desired: object, current: object, observed: object) =>
    driftOf(widget(desired), { ...head(), spec: current } as JsonObject, schema(observed));

  it('compares observed fields only', () => {
    expect(drift({ a: 1, b: 2 }, { a: 1 }, { a: null })).toEqual([]);
    expect(drift({ a: 1 }, { a: 2 }, { a: null })).toEqual([{ kind: 'value', path: ['spec', 'a'], from: 2, to: 1 }]);
  });

  it('a key absent on both sides is equal; a key known only in the cluster is no difference', () => {
    expect(drift({}, {}, { a: null })).toEqual([]);
    expect(drift({}, { a: 'server' }, { a: null })).toEqual([]);
    expect(drift({ a: null }, { a: 'server' }, { a: null })).toEqual([]);
  });

  it('a desired key missing in the cluster is a difference', () => {
    expect(drift({ a: 1 }, {}, { a: null })).toEqual([{ kind: 'value', path: ['spec', 'a'], from: undefined, to: 1 }]);
  });

  it('a missing parent: the difference is the observed part of the desired parent', () => {
    expect(driftOf(widget({ a: 1, b: 2 }), head() as JsonObject, schema({ a: null }))).toEqual([
      { kind: 'value', path: ['spec'], from: undefined, to: { a: 1 } },
    ]);
  });

  it('lists: elements by position, then the length against [min, max]', () => {
    const observed = { list: [null, control(1, 2)] };
    expect(drift({ list: ['a'] }, { list: ['a', length(1)] }, observed)).toEqual([]);
    expect(drift({ list: ['a'] }, { list: ['b', length(1)] }, observed)).toEqual([
      { kind: 'value', path: ['spec', 'list', 0], from: 'b', to: 'a' },
    ]);
    expect(drift({ list: ['a'] }, { list: ['a', length(3)] }, observed)).toEqual([
      { kind: 'length', path: ['spec', 'list'], from: 3, min: 1, max: 2 },
    ]);
  });

  it('max 0 means no maximum in the diff', () => {
    expect(drift({ list: ['a'] }, { list: ['a', length(100)] }, { list: [null, control(1, 0)] })).toEqual([]);
  });

  it('a list below min is a difference only when the desired list can fill it', () => {
    const observed = { list: [null, control(3, 0)] };
    expect(drift({ list: ['a'] }, { list: ['a', length(1)] }, observed)).toEqual([]);
    expect(drift({ list: ['a', 'b', 'c'] }, { list: ['a', length(1)] }, observed)).toEqual([
      { kind: 'length', path: ['spec', 'list'], from: 1, min: 3, max: 0 },
    ]);
  });

  it('top-level status is never drift, a nested `status` is', () => {
    const desired = {
      ...widget({ status: 'on' }),
      status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
    } as Resource;
    const current = { ...head(), spec: { status: 'off' }, status: { loadBalancer: { ingress: [] } } };
    const observed = { ...schema({ status: null }), status: { loadBalancer: { ingress: null } } } as ObserverSchema;
    expect(driftOf(desired, current, observed)).toEqual([
      { kind: 'value', path: ['spec', 'status'], from: 'off', to: 'on' },
    ]);
  });

  it('identification fields are never drift', () => {
    expect(
      driftOf(
        widget({}),
        { ...head('x', 'y'), apiVersion: 'v2' },
        {
          ...schema({}),
          metadata: { name: 'w', namespace: null },
        },
      ),
    ).toEqual([]);
  });
});

describe('calculateResourceDelta', () => {
  const mangled = [schema({ a: null }, 'one'), schema({ a: null }, 'two'), schema({ a: null }, 'three')];

  it('new: desired, not current; modified: differing on observed fields; deleted: current, not desired', () => {
    const one = widget({ a: 1 }, 'one');
    const two = widget({ a: 2, b: 'ignored' }, 'two');
    const delta = calculateResourceDelta({
      lastAppliedManifest: [one, two],
      lastObservedManifest: [
        { ...head('two'), spec: { a: 20 } },
        { ...head('three'), spec: { a: 3 } },
      ],
      mangledObserverSchema: mangled,
    });
    expect(delta).toEqual({ new: [one], modified: [two], deleted: [{ ...head('three'), spec: { a: 3 } }] });
  });

  it('the namespace is part of the identity: the same name in two namespaces is two resources', () => {
    const here = widget({ a: 1 }, 'one', 'default');
    const there = widget({ a: 1 }, 'one', 'prod');
    const delta = calculateResourceDelta({
      lastAppliedManifest: [here, there],
      lastObservedManifest: [
        { ...head('one', 'prod'), spec: { a: 2 } },
        { ...head('one', 'staging'), spec: { a: 1 } },
      ],
      mangledObserverSchema: mangled,
      namespace: 'default',
    });
    expect(delta).toEqual({ new: [here], modified: [there], deleted: [{ ...head('one', 'staging'), spec: { a: 1 } }] });
  });

  it('nothing differs: empty delta', () => {
    expect(
      calculateResourceDelta({
        lastAppliedManifest: [widget({ a: 1 }, 'one')],
        lastObservedManifest: [{ ...head('one'), spec: { a: 1 } }],
        mangledObserverSchema: mangled,
      }),
    ).toEqual({ new: [], modified: [], deleted: [] });
  });
});
