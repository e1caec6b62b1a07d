/**
 * Issue 19, attack 4 through the reconcile: a 422 that quotes an adopted Secret (its other keys and
 * its last-applied annotation) reaches neither the Stalled condition, nor the returned error (what
 * Events and logs show), in clear, in base64 or as the echoed object.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster } from '../../../adapters/memory/index.js';
import { reconcileApplication, type ReconcileDeps } from '../../../app/reconcile/reconcile-application.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  base64Of,
  builtinScopes,
  type Resource,
} from '../../../core/internal.js';

const ref = { apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace: 'default', name: 'shop' };
const NEW = 'new-canary-0c6e';
const OTHER = 'other-canary-7a1b';
const LAST_APPLIED = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', stringData: { other: OTHER } });
const LEAKS = [NEW, OTHER, base64Of(NEW), base64Of(OTHER)];

const adopted: Resource = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'db',
    namespace: 'default',
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': LAST_APPLIED },
  },
  data: { password: base64Of('old'), other: base64Of(OTHER) },
};

/** What kube-apiserver answers: the whole patched object quoted, and (as a server may) a value unquoted. */
const echo = (): string => {
  const patched = JSON.stringify({ ...adopted, data: { ...(adopted.data as object), password: base64Of(NEW) } });
  return `Secret "db" is invalid: patch: Invalid value: ${JSON.stringify(patched)}: illegal base64 data at input byte 0; other=${OTHER}`;
};

describe('a 422 echoing an adopted Secret (issue 19)', () => {
  it('leaves no Secret value in the Stalled condition or the returned error', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 5 });
    await cluster.create(adopted)();
    await cluster.create({
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      metadata: { name: 'shop', namespace: 'default' },
      spec: {
        adopt: true,
        manifest: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, data: { password: base64Of(NEW) } }],
      },
    })();
    cluster.setFaults({
      errors: [{ rate: 1, tag: 'Invalid', code: 422, verbs: ['patch'], kinds: ['Secret'], message: echo() }],
    });
    const deps: ReconcileDeps = {
      cluster,
      scopes: builtinScopes,
      now: () => new Date(clock.now()).toISOString(),
      random: () => 0.5,
    };
    const result = await reconcileApplication(ref, deps);
    expect(result._tag).toBe('Failed');
    if (result._tag !== 'Failed') return;
    expect(result.error.message).toContain('illegal base64 data at input byte 0');
    const stored = await cluster.get(ref)();
    if (E.isLeft(stored) || O.isNone(stored.right)) throw new Error('the Application is gone');
    const stalled = (
      stored.right.value.status as { conditions?: ReadonlyArray<{ type: string; message: string }> } | undefined
    )?.conditions?.find((condition) => condition.type === 'Stalled');
    expect(stalled?.message).toContain('(object redacted)');
    for (const text of [
      result.error.message,
      JSON.stringify(result.execution?.failure?.error),
      JSON.stringify(stored.right.value.status),
    ])
      for (const leak of LEAKS) expect(text, `holds ${leak}`).not.toContain(leak);
  });
});
