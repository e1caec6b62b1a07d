/**
 * The runtime's index of dependants (app/runtime/dependants.ts): which changes of a primary requeue
 * its dependants (turning Ready, appearing, going away, changing its own dependsOn) and which
 * requeue its dependencies (going away, being deleted, changing its dependsOn); nothing else does.
 */
import { describe, expect, it } from 'vitest';
import { Dependants } from '../../../app/runtime/dependants.js';
import type { Resource } from '../../../core/internal.js';

const app = (
  name: string,
  options: { dependsOn?: ReadonlyArray<string>; ready?: boolean; generation?: number; deleting?: boolean } = {},
): Resource => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: {
    name,
    namespace: 'shop',
    generation: options.generation ?? 1,
    ...(options.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: { dependsOn: (options.dependsOn ?? []).map((dependency) => ({ name: dependency })) },
  status: {
    observedGeneration: 1,
    conditions: [
      {
        type: 'Ready',
        status: options.ready === true ? 'True' : 'False',
        reason: options.ready === true ? 'Reconciled' : 'Progressing',
        message: '',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  },
});

const setup = () => {
  const objects = new Map<string, Resource>();
  const queued: string[] = [];
  const index = new Dependants({ object: (key) => objects.get(key), enqueue: (key) => queued.push(key) });
  /** The store's change: the object replaced (or removed), the index told. */
  const change = (before: Resource | undefined, after: Resource | undefined): ReadonlyArray<string> => {
    const key = `shop/${(after ?? before)!.metadata.name}`;
    if (after === undefined) objects.delete(key);
    else objects.set(key, after);
    queued.length = 0;
    index.observe(before, after);
    return [...queued].sort();
  };
  return { index, change };
};

describe('the dependants index', () => {
  it('requeues dependants when their dependency turns Ready, not on other status changes', () => {
    const { index, change } = setup();
    const a = app('a');
    change(undefined, a);
    change(undefined, app('b', { dependsOn: ['a'] }));
    change(undefined, app('c', { dependsOn: ['a'] }));
    expect(index.dependantsOf('shop/a')).toEqual(['shop/b', 'shop/c']);
    const stillNotReady = { ...a, metadata: { ...a.metadata, resourceVersion: '2' } };
    expect(change(a, stillNotReady)).toEqual([]);
    const ready = app('a', { ready: true });
    expect(change(stillNotReady, ready)).toEqual(['shop/b', 'shop/c']);
    // Ready again for the same generation: no news.
    expect(change(ready, { ...ready, metadata: { ...ready.metadata, resourceVersion: '3' } })).toEqual([]);
    // A new generation not yet observed is not Ready; observed again it is, and that is news.
    const stale = app('a', { ready: true, generation: 2 });
    expect(change(ready, stale)).toEqual([]);
    expect(change(stale, { ...stale, status: { ...(stale.status as object), observedGeneration: 2 } })).toEqual([
      'shop/b',
      'shop/c',
    ]);
  });

  it('a dependency appearing or going away requeues its dependants; a dependant going away, its dependencies', () => {
    const { index, change } = setup();
    change(undefined, app('b', { dependsOn: ['a'] }));
    expect(change(undefined, app('a'))).toEqual(['shop/b']);
    expect(change(app('a'), undefined)).toEqual(['shop/b']);
    expect(change(app('b', { dependsOn: ['a'] }), undefined)).toEqual(['shop/a']);
    expect(index.dependantsOf('shop/a')).toEqual([]);
  });

  it('a dependant being deleted, or changing its dependsOn, requeues its old and new dependencies', () => {
    const { index, change } = setup();
    const b = app('b', { dependsOn: ['a'] });
    change(undefined, b);
    const moved = app('b', { dependsOn: ['x'] });
    expect(change(b, moved)).toEqual(['shop/a', 'shop/x']);
    expect(index.dependantsOf('shop/a')).toEqual([]);
    expect(index.dependantsOf('shop/x')).toEqual(['shop/b']);
    expect(change(moved, app('b', { dependsOn: ['x'], deleting: true }))).toEqual(['shop/x']);
  });

  it('its view reads the store and answers dependants from the index', () => {
    const { index, change } = setup();
    change(undefined, app('a'));
    change(undefined, app('b', { dependsOn: ['a'] }));
    expect(index.view.get('shop', 'a')?.metadata.name).toBe('a');
    expect(index.view.get('shop', 'nope')).toBeUndefined();
    expect(index.view.dependantsOf('shop', 'a').map((object) => object.metadata.name)).toEqual(['b']);
  });
});
