/** Injected fields are observed: drift in them is corrected, and a converged plan is empty. */
import { describe, expect, it } from 'vitest';
import { plan, type Application, type Plan, type Resource } from './imports.js';
import { afterPlan, application, execute, scopes, served, writes } from '../fixtures.js';
import { at, b64, CONTEXT, TOKENS, WORKLOADS } from './support.js';

const NOW = '2025-01-01T00:00:00Z';

const converge = (
  app: Application,
  live: ReadonlyArray<Resource>,
): { app: Application; live: ReadonlyArray<Resource>; last: Plan } => {
  let state = { app, live };
  for (let round = 0; round < 5; round++) {
    const result = plan({ application: state.app, live: state.live, scopes, now: NOW, options: { hooks: CONTEXT } });
    if (writes(result).length === 0) return { ...state, last: result };
    state = { app: afterPlan(state.app, result), live: execute(state.live, result.actions, (body) => served(body)) };
  }
  throw new Error('no convergence in 5 rounds');
};

describe.each(WORKLOADS)('hooks converge on a $kind', ({ resource, podSpec }) => {
  const start = application({ manifest: [resource], hooks: ['complete', 'shutdown'] });

  it('after executing the plan, the next plan is empty', () => {
    const { last } = converge(start, []);
    expect(writes(last)).toEqual([]);
  });

  it('a removed injected env entry is patched back (observed field)', () => {
    const { app, live } = converge(start, []);
    const path = [...podSpec, 'containers', 1, 'env'];
    const drifted = live.map((object) => (object.kind === resource.kind ? dropLastEnv(object, path) : object));
    const result = plan({ application: app, live: drifted, scopes, now: NOW, options: { hooks: CONTEXT } });
    expect(writes(result).map((a) => `${a.type} ${a.ref.kind}`)).toEqual([`patch ${resource.kind}`]);
    const fixed = execute(drifted, result.actions);
    expect(
      at(
        fixed.find((o) => o.kind === resource.kind),
        path,
      ),
    ).toEqual(
      at(
        live.find((o) => o.kind === resource.kind),
        path,
      ),
    );
  });

  it('a changed callback URL in the Secret is patched back', () => {
    const { app, live } = converge(start, []);
    const tampered = live.map((object) =>
      object.kind === 'Secret'
        ? { ...object, data: { ...(object.data as object), 'complete-url': b64('http://evil.example') } }
        : object,
    );
    const result = plan({ application: app, live: tampered, scopes, now: NOW, options: { hooks: CONTEXT } });
    expect(writes(result).map((a) => `${a.type} ${a.ref.kind}`)).toEqual(['patch Secret']);
    expect(writes(result)[0]?.changes.map((c) => c.path)).toEqual(['data.complete-url']);
  });

  it('a missing token key (e.g. a hook enabled later) is written; the explanation masks it, status never holds it', () => {
    const { app, live } = converge(application({ manifest: [resource], hooks: ['complete'] }), []);
    const later = { ...app, spec: { ...app.spec, hooks: ['complete', 'shutdown'] as const } } as typeof app;
    const result = plan({ application: later, live, scopes, now: NOW, options: { hooks: CONTEXT } });
    const patch = writes(result).find((a) => a.ref.kind === 'Secret');
    expect(patch?.type === 'patch' && patch.patch).toContainEqual({
      op: 'add',
      path: '/data/shutdown-token',
      value: b64(TOKENS.shutdown),
    });
    expect(patch?.changes).toContainEqual({ path: 'data.shutdown-token', to: '(redacted)' });
    expect(JSON.stringify(patch?.changes)).not.toContain(b64(TOKENS.shutdown));
    const fixed = execute(live, result.actions, (body) => served(body));
    const next = plan({
      application: afterPlan(later, result),
      live: fixed,
      scopes,
      now: NOW,
      options: { hooks: CONTEXT },
    });
    expect(writes(next)).toEqual([]);
    for (const token of Object.values(TOKENS)) expect(JSON.stringify(next.status)).not.toContain(b64(token));
  });

  it('another token from the runtime changes only the Secret: workloads reference it, so they are untouched', () => {
    const { app, live } = converge(start, []);
    const result = plan({
      application: app,
      live,
      scopes,
      now: NOW,
      options: { hooks: { ...CONTEXT, tokens: { complete: 'rotated', shutdown: 'rotated-too' } } },
    });
    expect(writes(result).map((a) => `${a.type} ${a.ref.kind}`)).toEqual(['patch Secret']);
    expect(writes(result)[0]?.changes).toEqual([
      { path: 'data.complete-token', from: '(redacted)', to: '(redacted)' },
      { path: 'data.shutdown-token', from: '(redacted)', to: '(redacted)' },
    ]);
  });
});

const dropLastEnv = (object: Resource, path: ReadonlyArray<string | number>): Resource => {
  const copy = structuredClone(object) as Record<string, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const key = path[path.length - 1] as string;
  node[key] = (node[key] as unknown[]).slice(0, -1);
  return copy as unknown as Resource;
};
