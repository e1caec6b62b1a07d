/**
 * The perpetual-diff guard on a running operator (docs/decisions/0022-perpetual-diff.md): a mutating
 * admission on the in-memory API server strips a label the manifest sets, so every patch that puts
 * it back is a no-op write (the resourceVersion does not move). After the bound the operator stops
 * writing the object and the Application is `Stalled` (PerpetualDiff), with one Patched Event counted
 * three times and one PerpetualDiff Event; a new spec resumes the writes.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
  type MutatingAdmission,
} from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  conditionOf,
  getIn,
  withKey,
  type Application,
  type Cluster,
  type Resource,
} from '../../../core/internal.js';
import { applicationOf } from '../model/world.js';

/** Strips `metadata.labels.app` from every ConfigMap written: what a MutatingAdmissionPolicy could do. */
const stripAppLabel: MutatingAdmission = {
  name: 'strip-app-label',
  group: '',
  kind: 'ConfigMap',
  mutate: (object) => {
    const labels = object.metadata.labels;
    if (labels === undefined) return object;
    const { app: _stripped, ...kept } = labels;
    return withKey(object, 'metadata', withKey(object.metadata, 'labels', kept));
  },
};

const applicationRef = {
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace: 'default',
  name: 'shop',
};

/** The cluster, with every patch of a ConfigMap counted as it is sent. */
const counted = (cluster: MemoryCluster): { readonly cluster: Cluster; readonly patches: () => number } => {
  let patches = 0;
  return {
    cluster: {
      ...cluster,
      patch: (ref, patch, options) => {
        if (ref.kind === 'ConfigMap') patches++;
        return cluster.patch(ref, patch, options);
      },
    },
    patches: () => patches,
  };
};

const application = (cluster: MemoryCluster): Application | undefined =>
  cluster.objects().find((object): object is Application => object.kind === APPLICATION_KIND);

const events = (cluster: MemoryCluster) =>
  cluster
    .objects()
    .filter((object) => object.kind === 'Event')
    .map((event) => ({ reason: getIn(event, ['reason']), count: getIn(event, ['count']) }));

describe('perpetual-diff guard (operator on the in-memory API server)', () => {
  it('stops after three no-op writes, Stalled PerpetualDiff naming the object, path and cause; resumes on a new spec', async () => {
    const clock = new ManualClock();
    const memory = createMemoryCluster({ clock, seed: 7, admission: [stripAppLabel] });
    const { cluster, patches } = counted(memory);
    // Distinct draws: Event names are random (`shop.<hex>`), as client-go names them.
    let draws = 0;
    const random = () => (draws++ % 997) / 997;
    const controller = new Controller({ cluster, clock, random });
    await controller.start();
    const created = await memory.create(
      applicationOf({
        namespace: 'default',
        name: 'shop',
        children: [{ kind: 'ConfigMap', name: 'shop-config', data: { mode: 'a' } }],
      }),
    )();
    if (E.isLeft(created)) throw new Error(created.left.message);
    const settle = async (ms: number) => {
      for (let t = 0; t < ms; t += 250) {
        await flushMicrotasks();
        await clock.advance(250);
      }
      await flushMicrotasks();
    };
    await settle(60_000);
    const stalled = conditionOf(application(memory)?.status?.conditions, 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'PerpetualDiff' });
    expect(stalled?.message).toContain('v1 ConfigMap default/shop-config: metadata.labels.app');
    expect(stalled?.message).toContain('a zero value of an omitempty field, a default, or a mutating admission');
    expect(patches()).toBe(3);
    // One Patched Event counted three times, one PerpetualDiff Event: never one per write.
    expect(events(memory).filter((event) => event.reason === 'Patched')).toEqual([{ reason: 'Patched', count: 3 }]);
    expect(events(memory).filter((event) => event.reason === 'PerpetualDiff')).toEqual([
      { reason: 'PerpetualDiff', count: 1 },
    ]);

    // A new spec (a new generation) is written again: the data is kept, the label is not.
    const current = application(memory);
    if (current === undefined) throw new Error('application missing');
    const next = applicationOf({
      namespace: 'default',
      name: 'shop',
      children: [{ kind: 'ConfigMap', name: 'shop-config', data: { mode: 'b' } }],
    });
    const updated = await memory.update({ ...current, spec: next.spec } as Resource)();
    if (E.isLeft(updated)) throw new Error(updated.left.message);
    await settle(60_000);
    const config = memory
      .objects()
      .find((object) => object.kind === 'ConfigMap' && object.metadata.name === 'shop-config');
    expect(getIn(config, ['data', 'mode'])).toBe('b');
    // The patch of the new spec (kept in part), then the label alone three times.
    expect(patches()).toBe(3 + 1 + 3);
    expect(conditionOf(application(memory)?.status?.conditions, 'Stalled')).toMatchObject({ reason: 'PerpetualDiff' });
    await controller.stop(0);
    void applicationRef;
  });
});
