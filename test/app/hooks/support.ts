/** End-to-end fixtures for hooks and TOSCA: a memory cluster, reconcile-until-quiet, HTTP calls to the callbacks. */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { HookTokens } from '../../../app/hooks/tokens.js';
import type { HookRuntime } from '../../../app/hooks/runtime.js';
import {
  reconcileApplication,
  type ReconcileDeps,
  type ReconcileResult,
} from '../../../app/reconcile/reconcile-application.js';
import { createToscaTranslator } from '../../../app/tosca/translator.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  type Application,
  type Resource,
} from '../../../core/internal.js';
import { LOOPBACK_ALLOWED } from '../tosca/loopback.js';
import { withReadableStatus } from '../../../app/status/stored-status.js';

export const CALLBACK_URL = 'http://kreconcile.kreconcile-system.svc:8080';

export type World = {
  readonly cluster: MemoryCluster;
  readonly clock: ManualClock;
  readonly tokens: HookTokens;
  readonly deps: ReconcileDeps;
};

export const world = (options: { readonly graceMs?: number; readonly seed?: number } = {}): World => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, seed: options.seed ?? 7, workloads: true });
  const tokens = new HookTokens();
  const hooks: HookRuntime = { callbackUrl: CALLBACK_URL, tokens, shutdownGraceMs: options.graceMs ?? 60_000 };
  const deps: ReconcileDeps = {
    cluster,
    scopes: builtinScopes,
    now: () => new Date(clock.now()).toISOString(),
    random: () => 0.5,
    hooks,
    translate: createToscaTranslator({ now: () => clock.now(), ...LOOPBACK_ALLOWED }),
  };
  return { cluster, clock, tokens, deps };
};

export const appRef = (namespace: string, name: string) => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace,
  name,
});

export const applicationOf = (namespace: string, name: string, spec: Record<string, unknown>): Resource =>
  ({
    apiVersion: APPLICATION_API_VERSION,
    kind: APPLICATION_KIND,
    metadata: { name, namespace },
    spec,
  }) as unknown as Resource;

/** Reconciles one Application until a reconcile acts on nothing (or it is gone); returns the last result. */
export const reconcileUntilQuiet = async (
  w: World,
  namespace: string,
  name: string,
  rounds = 10,
): Promise<ReconcileResult> => {
  let last: ReconcileResult | undefined;
  for (let round = 0; round < rounds; round++) {
    last = await reconcileApplication(appRef(namespace, name), w.deps);
    await w.cluster.settle();
    if (last._tag === 'Gone') return last;
    if (last._tag === 'Failed') throw new Error(`reconcile failed: ${last.error.message}`);
    if (last.plan.actions.length === 0) return last;
  }
  throw new Error(`${namespace}/${name} not quiet after ${rounds} reconciles: ${JSON.stringify(last)}`);
};

export const get = async (
  w: World,
  ref: { apiVersion: string; kind: string; namespace?: string; name: string },
): Promise<Resource | undefined> => {
  const got = await w.cluster.get(ref)();
  if (E.isLeft(got)) throw new Error(got.left.message);
  return O.toUndefined(got.right);
};

export const getApplication = async (w: World, namespace: string, name: string): Promise<Application | undefined> =>
  readable(await get(w, appRef(namespace, name))) as Application | undefined;

/** The stored status read back (app/status/stored-status.ts): what a leak check must search. */
const readable = (object: Resource | undefined): Resource | undefined =>
  object === undefined ? undefined : withReadableStatus(object);

export const call = async (
  url: string,
  method: 'GET' | 'POST',
  token?: string,
): Promise<{ status: number; body: Record<string, unknown> }> => {
  const response = await fetch(url, {
    method,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** Everything stored, as text: "changes nothing" is this being equal before and after. */
export const snapshot = (w: World): string => JSON.stringify(w.cluster.objects());

export const tokenIn = (secret: Resource | undefined, key: string): string => {
  const value = (secret?.data as Record<string, string> | undefined)?.[key];
  if (value === undefined) throw new Error(`no ${key} in the hook Secret`);
  return Buffer.from(value, 'base64').toString('utf8');
};
