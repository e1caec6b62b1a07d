/**
 * A reconcile of an in-sync Application whose status is read back as kube-apiserver stores a custom
 * resource's (keys sorted at every level): what every periodic resync does for every Application. It must
 * rebuild nothing it can keep — the stored conditions are the next status's conditions themselves —
 * ask the translator nothing for an Application with its own manifest, and write nothing.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster } from '../../../adapters/memory/index.js';
import { reconcileApplication, type ReconcileDeps } from '../../../app/reconcile/reconcile-application.js';
import type { Translator } from '../../../app/tosca/translator.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  isJsonArray,
  isJsonObject,
  type JsonValue,
  type Resource,
} from '../../../core/internal.js';
import { applicationOf, type Child } from '../model/world.js';

const ref = { apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace: 'default', name: 'shop' };
const config: Child = { kind: 'ConfigMap', name: 'shop-config', data: { mode: 'a' } };

/** `value` with every object's keys sorted, as kube-apiserver returns a custom resource. */
const sortedKeys = (value: JsonValue): JsonValue =>
  isJsonArray(value)
    ? value.map(sortedKeys)
    : isJsonObject(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, sortedKeys(value[key] ?? null)]),
        )
      : value;

describe('an in-sync Application read back with its keys sorted, as from kube-apiserver', () => {
  it('keeps the stored conditions themselves, asks the translator nothing and writes nothing', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 5 });
    const translated: string[] = [];
    const translate: Translator = (application) => {
      translated.push(application.metadata.name);
      return Promise.resolve({ _tag: 'NotNeeded' });
    };
    let statusWrites = 0;
    const deps: ReconcileDeps = {
      cluster: {
        ...cluster,
        patchStatus: (...args: Parameters<typeof cluster.patchStatus>) => {
          statusWrites++;
          return cluster.patchStatus(...args);
        },
      },
      scopes: builtinScopes,
      now: () => new Date(clock.now()).toISOString(),
      random: () => 0.5,
      planOptions: { readiness: 'existence' },
      translate,
    };
    await cluster.create(applicationOf({ namespace: 'default', name: 'shop', children: [config] }))();
    const first = await reconcileApplication(ref, deps);
    expect(first._tag === 'Done' && first.statusWritten).toBe(true);
    expect(statusWrites).toBe(1);

    const read = await cluster.get(ref)();
    if (E.isLeft(read) || O.isNone(read.right)) throw new Error('the Application is gone');
    // The status is what kreconcile wrote in its own key order: read back, it comes sorted.
    const stored: Resource = { ...read.right.value, status: sortedKeys(read.right.value.status ?? null) };
    const storedConditions = isJsonObject(stored.status) ? stored.status.conditions : undefined;
    expect(isJsonArray(storedConditions) && Object.keys(storedConditions[0] ?? {})[0]).toBe('lastTransitionTime');

    await clock.advance(60_000);
    const resync = await reconcileApplication(ref, {
      ...deps,
      reads: { application: () => Promise.resolve(E.right(O.some(stored))) },
    });
    if (resync._tag !== 'Done') throw new Error(`expected Done, got ${resync._tag}`);
    expect(resync.plan.actions).toEqual([]);
    expect(resync.execution.done).toEqual([]);
    expect(resync.statusWritten).toBe(false);
    expect(statusWrites).toBe(1);
    // Nothing to redact: the plan's status is the result's, not a copy of it.
    expect(resync.status).toBe(resync.plan.status);
    // Not rebuilt in another key order and compared: the very array read.
    expect(resync.status.conditions).toBe(storedConditions);
    expect(translated).toEqual([]);
  });
});
