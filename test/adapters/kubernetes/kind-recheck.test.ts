/**
 * The REST adapter when a kind discovery knew stops being served (its CRD was deleted): a 404 that
 * names no object (kube-apiserver 1.36 answers a deleted CRD's paths with a bare `404 page not found`)
 * has discovery asked again for its group/version and becomes `UnknownKind`; a 404 naming an object
 * stays an absent object and costs no discovery request.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import { createKindResolver, isUnservedPath } from '../../../adapters/kubernetes/discovery.js';
import { getObject } from '../../../adapters/kubernetes/read-operations.js';
import type { RestClient, RestRequest } from '../../../adapters/kubernetes/rest-client.js';
import { createObject } from '../../../adapters/kubernetes/write-operations.js';
import { clusterError, type ClusterError, type JsonValue, type Resource } from '../../../core/internal.js';

const GROUP_VERSION = '/apis/chaos.io/v1';
const resourceList: JsonValue = {
  kind: 'APIResourceList',
  groupVersion: 'chaos.io/v1',
  resources: [{ name: 'gadgets', kind: 'Gadget', namespaced: true }],
};
const PAGE_NOT_FOUND = clusterError('NotFound', '404 page not found', { code: 404 });
const OBJECT_NOT_FOUND = clusterError('NotFound', 'gadgets.chaos.io "g" not found', { code: 404 });

/** A server whose CRD can be deleted: discovery and object paths answer as kube-apiserver does. */
const fakeServer = () => {
  const state = { served: true, objectExists: false, requests: [] as RestRequest[] };
  const rest: RestClient = {
    send: (request) => {
      state.requests.push(request);
      if (request.path === GROUP_VERSION)
        return state.served ? TE.right(resourceList) : TE.left<ClusterError, JsonValue>(PAGE_NOT_FOUND);
      if (!state.served) return TE.left(PAGE_NOT_FOUND);
      if (request.method === 'GET') return TE.left(OBJECT_NOT_FOUND);
      return TE.right(request.body as JsonValue);
    },
  };
  const discoveryRequests = () => state.requests.filter((request) => request.path === GROUP_VERSION).length;
  return { state, context: { rest, kinds: createKindResolver(rest) }, discoveryRequests };
};

const ref = { apiVersion: 'chaos.io/v1', kind: 'Gadget', namespace: 'ns', name: 'g' };
const gadget = { ...ref, metadata: { name: 'g', namespace: 'ns' } } as unknown as Resource;

describe('a kind discovery knew, then not served any more', () => {
  it('tells a path not served from a missing object by the 404', () => {
    expect(isUnservedPath(PAGE_NOT_FOUND)).toBe(true);
    // What client-node's Watch reports for a 404 (the status text).
    expect(isUnservedPath(clusterError('NotFound', 'Not Found', { code: 404 }))).toBe(true);
    expect(isUnservedPath(OBJECT_NOT_FOUND)).toBe(false);
    expect(isUnservedPath(clusterError('NotFound', 'namespaces "ns" not found', { code: 404 }))).toBe(false);
    expect(isUnservedPath(clusterError('Forbidden', '404 page not found', { code: 403 }))).toBe(false);
  });

  it('a get of a missing object is none and asks discovery nothing more', async () => {
    const { context, discoveryRequests } = fakeServer();
    expect(await getObject(context)(ref)()).toEqual(E.right(O.none));
    expect(await getObject(context)(ref)()).toEqual(E.right(O.none));
    expect(discoveryRequests()).toBe(1);
  });

  it('a get or a create after the CRD was deleted is UnknownKind, discovery asked again', async () => {
    const { state, context, discoveryRequests } = fakeServer();
    expect(E.isRight(await createObject(context)(gadget)())).toBe(true);
    state.served = false;
    const got = await getObject(context)(ref)();
    expect(got).toMatchObject(E.left({ _tag: 'UnknownKind', ref }));
    expect(discoveryRequests()).toBe(2);
    const created = await createObject(context)(gadget)();
    expect(created).toMatchObject(E.left({ _tag: 'UnknownKind', ref }));
    // Reinstalled: served again at the next request, found by discovery without a restart.
    state.served = true;
    expect(E.isRight(await createObject(context)(gadget)())).toBe(true);
  });

  it('a 404 naming no object on a kind still served keeps its own error', async () => {
    const { context } = fakeServer();
    const odd: RestClient = {
      send: (request) =>
        request.path === GROUP_VERSION
          ? TE.right(resourceList)
          : TE.left(clusterError('NotFound', '404 page not found')),
    };
    const created = await createObject({ rest: odd, kinds: context.kinds })(gadget)();
    expect(created).toMatchObject(E.left({ _tag: 'NotFound', message: '404 page not found' }));
  });
});
