/**
 * The desired state: `updateLastAppliedManifestFromSpec` (step 3) and `updateLastAppliedManifestFromResponse` (step 7).
 */
import { describe, it, expect } from 'vitest';
import {
  updateLastAppliedManifestFromResponse,
  updateLastAppliedManifestFromSpec,
  type ObserverSchema,
  type Resource,
} from '../../core/internal.js';

const control = (min: number, max: number) => ({
  observer_schema_list_min_length: min,
  observer_schema_list_max_length: max,
});

const head = { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } } as const;
const widget = (spec: object): Resource => ({ ...head, spec }) as Resource;
const schema = (spec: object): ObserverSchema =>
  ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec }) as ObserverSchema;

const fromSpec = (manifest: object, observed: object, earlier: object | undefined) =>
  updateLastAppliedManifestFromSpec({
    manifest: [widget(manifest)],
    mangledObserverSchema: [schema(observed)],
    lastAppliedManifest: earlier === undefined ? undefined : [widget(earlier)],
  })[0]?.spec;

const fromResponse = (desired: object, observed: object, response: object) =>
  updateLastAppliedManifestFromResponse({
    lastAppliedManifest: [widget(desired)],
    mangledObserverSchema: [schema(observed)],
    response: widget(response),
  })[0]?.spec;

describe('updateLastAppliedManifestFromSpec', () => {
  it('starts as the spec when nothing was learned', () => {
    expect(fromSpec({ a: 1, b: 2 }, { a: null }, undefined)).toEqual({ a: 1, b: 2 });
  });

  it('keeps learned values of observed keys the spec does not set', () => {
    expect(fromSpec({ a: 1 }, { a: null, clusterIP: null }, { a: 1, clusterIP: '10.0.0.1' })).toEqual({
      a: 1,
      clusterIP: '10.0.0.1',
    });
  });

  it('spec values win over learned ones', () => {
    expect(fromSpec({ a: 2 }, { a: null }, { a: 1 })).toEqual({ a: 2 });
  });

  it('non-observed fields removed from the spec disappear', () => {
    expect(fromSpec({ a: 1 }, { a: null }, { a: 1, b: 'old' })).toEqual({ a: 1 });
  });

  it('walks dicts by key and lists by position; learned trailing positions are kept if observed', () => {
    const observed = {
      ports: [{ port: null, nodePort: null }, { port: null, nodePort: null }, { nodePort: null }, control(0, 0)],
    };
    const earlier = {
      ports: [{ port: 80, nodePort: 30080 }, { port: 443, nodePort: 30443 }, { nodePort: 1 }, { nodePort: 2 }],
    };
    expect(fromSpec({ ports: [{ port: 8080 }] }, observed, earlier)).toEqual({
      ports: [{ port: 8080, nodePort: 30080 }, { port: 443, nodePort: 30443 }, { nodePort: 1 }],
    });
  });

  it('a learned list is not merged into a spec value of another shape', () => {
    expect(fromSpec({ list: 'text' }, { list: [null, control(0, 0)] }, { list: ['x'] })).toEqual({ list: 'text' });
  });

  it('resources removed from the spec disappear; a resource in another namespace learns nothing from this one', () => {
    const result = updateLastAppliedManifestFromSpec({
      manifest: [{ ...head, metadata: { name: 'w', namespace: 'other' }, spec: { a: 1 } }],
      mangledObserverSchema: [schema({ a: null, learned: null })],
      lastAppliedManifest: [
        widget({ a: 1, learned: 'x' }),
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone' } },
      ],
      namespace: 'default',
    });
    expect(result).toEqual([{ ...head, metadata: { name: 'w', namespace: 'other' }, spec: { a: 1 } }]);
  });

  it('a resource without a namespace is the one in the Application namespace', () => {
    const result = updateLastAppliedManifestFromSpec({
      manifest: [{ ...head, metadata: { name: 'w' }, spec: { a: 1 } }],
      mangledObserverSchema: [schema({ a: null, learned: null })],
      lastAppliedManifest: [widget({ a: 1, learned: 'x' })],
      namespace: 'default',
    });
    expect(result[0]?.spec).toEqual({ a: 1, learned: 'x' });
  });
});

describe('updateLastAppliedManifestFromResponse', () => {
  it('fills observed keys not yet known, from keys looked up as written (camelCase, `/`)', () => {
    const observed = { clusterIP: null, loadBalancerIP: null, selector: { 'app.kubernetes.io/name': null } };
    expect(
      fromResponse({ selector: {} }, observed, {
        clusterIP: '10.0.0.1',
        cluster_ip: 'snake',
        selector: { 'app.kubernetes.io/name': 'web' },
      }),
    ).toEqual({ selector: { 'app.kubernetes.io/name': 'web' }, clusterIP: '10.0.0.1' });
  });

  it("never overwrites a known value: the user's input prevails", () => {
    expect(fromResponse({ replicas: 3 }, { replicas: null }, { replicas: 1 })).toEqual({ replicas: 3 });
  });

  it('a learned null stays unknown (absent)', () => {
    expect(fromResponse({ a: 1 }, { a: null, b: null }, { a: 1, b: null })).toEqual({ a: 1 });
  });

  it('a null written by the user is unknown, so it is learned', () => {
    expect(fromResponse({ a: null }, { a: null }, { a: 'server' })).toEqual({ a: 'server' });
  });

  it('non-observed keys of the response are not learned', () => {
    expect(fromResponse({ a: 1 }, { a: null }, { a: 1, extra: 'x' })).toEqual({ a: 1 });
  });

  it('lists: only observed positions are learned, by position, and only as far as the response goes', () => {
    const observed = { rythms: [null, null, control(0, 0)] };
    expect(fromResponse({}, observed, { rythms: ['waltz', 'tango', 'polka'] })).toEqual({ rythms: ['waltz', 'tango'] });
    expect(fromResponse({}, observed, { rythms: ['waltz'] })).toEqual({ rythms: ['waltz'] });
    expect(fromResponse({ rythms: ['rock'] }, observed, { rythms: ['waltz', 'tango'] })).toEqual({
      rythms: ['rock', 'tango'],
    });
  });

  it('lists: an unknown position stops learning (positions are meaningful)', () => {
    expect(fromResponse({}, { rythms: [null, null, control(0, 0)] }, { rythms: [null, 'tango'] })).toEqual({});
  });

  it('nested lists of objects: unknown fields of known elements are learned', () => {
    const observed = {
      containers: [
        { name: null, image: null, ports: [{ containerPort: null, protocol: null }, control(1, 1)] },
        control(1, 1),
      ],
    };
    const desired = { containers: [{ name: 'web', ports: [{ containerPort: 80 }] }] };
    const response = {
      containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 8080, protocol: 'TCP' }] }],
    };
    expect(fromResponse(desired, observed, response)).toEqual({
      containers: [{ name: 'web', ports: [{ containerPort: 80, protocol: 'TCP' }], image: 'nginx' }],
    });
  });

  it('a response of another shape than desired teaches nothing there', () => {
    expect(fromResponse({ list: ['a'] }, { list: [null, null, control(0, 0)] }, { list: 'x' })).toEqual({
      list: ['a'],
    });
  });

  it('a response for an unknown resource, or one without schema, changes nothing', () => {
    const lastApplied = [widget({ a: 1 })];
    const other = { ...widget({ a: 2, b: 3 }), metadata: { name: 'other', namespace: 'default' } } as Resource;
    expect(
      updateLastAppliedManifestFromResponse({
        lastAppliedManifest: lastApplied,
        mangledObserverSchema: [schema({ a: null, b: null })],
        response: other,
      }),
    ).toEqual(lastApplied);
    expect(
      updateLastAppliedManifestFromResponse({
        lastAppliedManifest: lastApplied,
        mangledObserverSchema: [],
        response: widget({ b: 3 }),
      }),
    ).toEqual(lastApplied);
  });

  it('a response from another namespace is another resource', () => {
    const lastApplied = [widget({ a: 1 })];
    const elsewhere = { ...widget({ b: 3 }), metadata: { name: 'w', namespace: 'other' } } as Resource;
    expect(
      updateLastAppliedManifestFromResponse({
        lastAppliedManifest: lastApplied,
        mangledObserverSchema: [schema({ a: null, b: null })],
        response: elsewhere,
        namespace: 'default',
      }),
    ).toEqual(lastApplied);
  });

  it('missing keys in the response are not errors', () => {
    expect(fromResponse({ a: 1 }, { a: null, deep: { deeper: { x: null } }, list: [null, control(1, 1)] }, {})).toEqual(
      { a: 1 },
    );
  });
});
