/** Secret values in the core: SHA-256, digests, stringData folding, and no value in a plan's status or explanations. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base64Of,
  digestOfData,
  digestOfString,
  foldStringData,
  plan,
  redactForDisplay,
  withDigests,
  type JsonValue,
  type Plan,
  type Resource,
} from '../../core/internal.js';
import { sha256Hex } from '../../core/sensitive/sha256.js';
import { revealMatching, withoutDigests } from '../../core/sensitive/secret-values.js';
import { utf8Bytes } from '../../core/json/base64.js';
import { manifestArbitrary } from '../../core/model/resource.arbitrary.js';
import { application, marked, scopes, served } from './fixtures.js';

const secret = (data: Record<string, string>, stringData?: Record<string, string>): Resource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db' },
  data,
  ...(stringData === undefined ? {} : { stringData }),
});

describe('sha256Hex', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
  ])('FIPS 180-2 vector %j', (text, hex) => {
    expect(sha256Hex(utf8Bytes(text))).toBe(hex);
  });
});

describe('Secret value digests', () => {
  it('a data value and its stringData form have one digest: of the bytes they stand for', () => {
    expect(digestOfData(base64Of('pässword'))).toBe(digestOfString('pässword'));
    expect(digestOfString('abc')).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('withDigests keeps a null (unknown: to be learned), never a digest of "null"', () => {
    const digested = withDigests(secret({ a: null as unknown as string, b: base64Of('x') }, {}));
    expect((digested.data as Record<string, JsonValue>).a).toBeNull();
    expect((digested.data as Record<string, JsonValue>).b).toBe(digestOfData(base64Of('x')));
  });

  it('withDigests replaces every data and stringData value, is idempotent, and leaves other kinds alone', () => {
    const digested = withDigests(secret({ a: base64Of('x') }, { b: 'y' }));
    expect(digested).toMatchObject({ data: { a: digestOfString('x') }, stringData: { b: digestOfString('y') } });
    expect(withDigests(digested)).toEqual(digested);
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'x' } } as Resource;
    expect(withDigests(configMap)).toBe(configMap);
  });

  it('withoutDigests drops digests (unknown again); revealMatching restores only those that match the desired value', () => {
    const observed = withDigests(secret({ same: base64Of('1'), changed: base64Of('2') }));
    expect(withoutDigests(observed).data).toBeUndefined();
    expect(withoutDigests(withDigests(secret({ a: base64Of('1') }, { b: 'kept' }))).stringData).toBeUndefined();
    expect(revealMatching(observed, secret({ same: base64Of('1'), changed: base64Of('3') })).data).toEqual({
      same: base64Of('1'),
      changed: digestOfString('2'),
    });
  });

  it('foldStringData folds stringData into base64 data as the API server does (stringData wins) and drops it', () => {
    expect(foldStringData(secret({ a: base64Of('old'), keep: base64Of('k') }, { a: 'new' }))).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db' },
      data: { keep: base64Of('k'), a: base64Of('new') },
    });
  });
});

describe('Secret values in plans', () => {
  const CANARY = 'plan-canary-19af';
  const LIVE_CANARY = 'live-canary-77be';

  it('status holds digests; explanations show (sensitive value) + digest; create bodies keep values for the write, and display masks them', () => {
    const created = plan({
      application: application({ manifest: [secret({ p: base64Of(CANARY) }, { s: CANARY })] }),
      live: [],
      scopes,
      now: 'now',
    });
    const create = created.actions.find((a) => a.type === 'create');
    expect(create?.type === 'create' && create.body.data).toEqual({ p: base64Of(CANARY), s: base64Of(CANARY) });
    expect(JSON.stringify(redactForDisplay(create!))).not.toContain(base64Of(CANARY));
    expect(JSON.stringify(redactForDisplay(create!))).toContain(`(sensitive value) ${digestOfString(CANARY)}`);
    expect(created.status.lastAppliedManifest?.[0]?.data).toEqual({
      p: digestOfString(CANARY),
      s: digestOfString(CANARY),
    });

    const live = served(
      marked({
        ...secret({ p: base64Of(LIVE_CANARY), s: base64Of(CANARY) }),
        metadata: { name: 'db', namespace: 'default' },
      }),
    );
    const patched = plan({
      application: application(
        { manifest: [secret({ p: base64Of(CANARY) }, { s: CANARY })] },
        { status: created.status },
      ),
      live: [live],
      scopes,
      now: 'now',
    });
    const patch = patched.actions.find((a) => a.type === 'patch');
    expect(patch?.changes).toEqual([
      {
        path: 'data.p',
        from: `(sensitive value) ${digestOfString(LIVE_CANARY)}`,
        to: `(sensitive value) ${digestOfString(CANARY)}`,
      },
    ]);
    expect(patch?.type === 'patch' && patch.patch).toContainEqual({
      op: 'replace',
      path: '/data/p',
      value: base64Of(CANARY),
    });
    expect(JSON.stringify(redactForDisplay(patch!))).not.toContain(base64Of(CANARY));
  });

  it('a value learned from the live object (observed, not in the spec) is reported by digest and never written back as a digest', () => {
    const schema = [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, data: null }];
    const live = served(
      marked({ ...secret({ learned: base64Of(LIVE_CANARY) }), metadata: { name: 'db', namespace: 'default' } }),
    );
    const bare = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' } } as Resource;
    const first = plan({
      application: application({ manifest: [bare], observerSchema: schema }),
      live: [live],
      scopes,
      now: 'now',
    });
    expect(first.status.lastAppliedManifest?.[0]?.data).toEqual({ learned: digestOfString(LIVE_CANARY) });
    expect(JSON.stringify(first.status)).not.toContain(base64Of(LIVE_CANARY));
    const second = plan({
      application: application({ manifest: [bare], observerSchema: schema }, { status: first.status }),
      live: [live],
      scopes,
      now: 'now',
    });
    expect(second.actions.filter((a) => a.type === 'patch')).toEqual([]);
    expect(second.status.lastAppliedManifest?.[0]?.data).toEqual({ learned: digestOfString(LIVE_CANARY) });
  });

  it("a Secret's kubectl last-applied annotation is sensitive: a digest in status, masked in explanations and bodies (issue 19)", () => {
    const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
    const applied = (value: string): string =>
      JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { p: value } });
    // A schema marker (null: observe the whole map) where the Resource type expects string values.
    const schema = [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', annotations: null } } as unknown as Resource,
    ];
    const live = served(
      marked({
        ...secret({ p: base64Of(LIVE_CANARY) }),
        metadata: { name: 'db', namespace: 'default', annotations: { [LAST_APPLIED]: applied(LIVE_CANARY) } },
      }),
    );
    const bare = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' } } as Resource;
    const observed = plan({
      application: application({ manifest: [bare], observerSchema: schema }),
      live: [live],
      scopes,
      now: 'now',
    });
    expect(JSON.stringify(observed.status)).not.toContain(LIVE_CANARY);
    expect(observed.status.lastAppliedManifest?.[0]?.metadata.annotations?.[LAST_APPLIED]).toBe(
      digestOfString(applied(LIVE_CANARY)),
    );
    expect(withDigests(withDigests(live))).toEqual(withDigests(live));
    expect(withoutDigests(withDigests(live)).metadata.annotations).not.toHaveProperty(LAST_APPLIED);
    // Stable: the digest is not taken for a value to write back.
    const again = plan({
      application: application({ manifest: [bare], observerSchema: schema }, { status: observed.status }),
      live: [live],
      scopes,
      now: 'now',
    });
    expect(again.actions.filter((a) => a.type === 'patch')).toEqual([]);
    // A spec that sets the annotation: the change and the printed patch show digests only.
    const withAnnotation = {
      ...bare,
      metadata: { name: 'db', annotations: { [LAST_APPLIED]: applied(CANARY) } },
    } as Resource;
    const patched = plan({
      application: application({ manifest: [withAnnotation] }, { status: observed.status }),
      live: [live],
      scopes,
      now: 'now',
    });
    const patch = patched.actions.find((a) => a.type === 'patch');
    expect(patch).toBeDefined();
    expect(JSON.stringify(patch?.changes)).not.toContain(CANARY);
    expect(JSON.stringify(patch?.changes)).not.toContain(LIVE_CANARY);
    expect(JSON.stringify(redactForDisplay(patch!))).not.toContain(CANARY);
    expect(JSON.stringify(patched.status)).not.toContain(CANARY);
    const created = plan({ application: application({ manifest: [withAnnotation] }), live: [], scopes, now: 'now' });
    const create = created.actions.find((a) => a.type === 'create');
    expect(JSON.stringify(create)).toContain(CANARY);
    expect(JSON.stringify(redactForDisplay(create!))).not.toContain(CANARY);
  });

  it('a Secret manifest copied into its observer schema by mistake is refused without echoing its values', () => {
    const manifest = [secret({ p: base64Of(CANARY) })];
    const result = plan({
      application: application({ manifest, observerSchema: manifest }),
      live: [],
      scopes,
      now: 'now',
    });
    const stalled = result.status.conditions?.find((c) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'InvalidObserverSchema' });
    expect(stalled?.message).toContain(
      'spec.observerSchema[0].data.p: observed fields are marked true (or null), got a string',
    );
    expect(JSON.stringify(result)).not.toContain(base64Of(CANARY));
  });

  it('property: no Secret value (plaintext or base64) is in any status or explanation, with any other resources around', () => {
    const canary = fc.stringMatching(/^[a-z]{6}$/).map((s) => `canary-${s}-value`);
    fc.assert(
      fc.property(manifestArbitrary(3), canary, canary, fc.boolean(), (others, desiredValue, liveValue, drifted) => {
        const manifest = [
          ...others.filter((r) => r.kind !== 'Secret'),
          secret({ d: base64Of(desiredValue) }, { s: desiredValue }),
        ];
        const live = drifted
          ? [
              served(
                marked({
                  ...secret({ d: base64Of(liveValue), s: base64Of(liveValue) }),
                  metadata: { name: 'db', namespace: 'default' },
                }),
              ),
            ]
          : [];
        const result = plan({
          application: application({ manifest }),
          live,
          scopes,
          now: 'now',
          options: {
            tenancy: { destinations: [{ from: '*', to: ['*'] }], clusterKinds: [{ from: '*', kinds: ['*'] }] },
          },
        });
        const shown = JSON.stringify([
          result.status,
          result.actions.map((a) => a.changes),
          result.actions.map((a) => redactForDisplay(a)),
        ]);
        for (const value of [desiredValue, liveValue]) {
          expect(shown).not.toContain(value);
          expect(shown).not.toContain(base64Of(value));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('fields an observer schema marks sensitive (kreconcile.io/sensitive)', () => {
  const CANARY = 'marked-canary-5e21';
  const LIVE_CANARY = 'marked-live-canary-0b9d';
  const configMap = (password: string): Resource => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'app' },
    data: { user: 'bob', password },
  });
  const schema = (mark: JsonValue, data: JsonValue = null) => [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data, 'kreconcile.io/sensitive': mark },
  ];
  const planWith = (mark: JsonValue, live: ReadonlyArray<Resource>, status?: Plan['status'], data: JsonValue = null) =>
    plan({
      application: application(
        { manifest: [configMap(CANARY)], observerSchema: schema(mark, data) },
        status === undefined ? {} : { status },
      ),
      live,
      scopes,
      now: 'now',
    });
  const liveWith = (password: string): Resource =>
    served(marked({ ...configMap(password), metadata: { name: 'app', namespace: 'default' } }));

  it('a marker must be a list of JSON pointers, never the resource identity', () => {
    const issues = (mark: JsonValue) =>
      planWith(mark, []).status.conditions?.find((c) => c.type === 'Stalled')?.message;
    expect(issues('/data/password')).toBe(
      'spec.observerSchema[0]["kreconcile.io/sensitive"]: kreconcile.io/sensitive must be a list of JSON pointers such as "/spec/password"',
    );
    expect(issues(['/metadata/name'])).toBe(
      'spec.observerSchema[0]["kreconcile.io/sensitive"][0]: /metadata/name identifies the resource: it cannot be sensitive',
    );
    expect(issues(['data.password'])).toContain('a sensitive field is a JSON pointer');
    expect(issues(['/data/password'])).toBe('');
  });

  it('the marked value is a digest in status and hidden in explanations and printed bodies; other fields stay readable', () => {
    const created = planWith(['/data/password'], []);
    const create = created.actions.find((a) => a.type === 'create')!;
    expect(create.type === 'create' && create.body.data).toEqual({ user: 'bob', password: CANARY });
    const shown = redactForDisplay(create, created.status.mangledObserverSchema);
    expect(shown.type === 'create' && shown.body.data).toEqual({
      user: 'bob',
      password: `(sensitive value) ${digestOfString(CANARY)}`,
    });
    expect(created.status.lastAppliedManifest?.[0]?.data).toEqual({ user: 'bob', password: digestOfString(CANARY) });
  });

  it('converges, and drift of the marked value is patched with the change shown as digests (whole-map and per-key schemas)', () => {
    for (const data of [null, { user: null, password: null }]) {
      const created = planWith(['/data/password'], [], undefined, data);
      expect(
        planWith(['/data/password'], [liveWith(CANARY)], created.status, data).actions.filter(
          (a) => a.type === 'patch',
        ),
      ).toEqual([]);
      const drifted = planWith(['/data/password'], [liveWith(LIVE_CANARY)], created.status, data);
      const patch = drifted.actions.find((a) => a.type === 'patch')!;
      expect(JSON.stringify(patch.changes)).toContain(`(sensitive value) ${digestOfString(LIVE_CANARY)}`);
      expect(JSON.stringify(patch.changes)).toContain(`(sensitive value) ${digestOfString(CANARY)}`);
      expect(JSON.stringify(patch.type === 'patch' && patch.patch)).toContain(CANARY);
      const printed = JSON.stringify([
        drifted.status,
        patch.changes,
        redactForDisplay(patch, drifted.status.mangledObserverSchema),
      ]);
      for (const value of [CANARY, LIVE_CANARY]) expect(printed).not.toContain(value);
      expect(printed).toContain('bob');
    }
  });

  it('a marked value learned from the live object (not in the spec) is a digest in status and never written back', () => {
    const bare = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data: { user: 'bob' } } as Resource;
    const observerSchema = schema(['/data/password'], { user: null, password: null }) as never;
    const first = plan({
      application: application({ manifest: [bare], observerSchema }),
      live: [liveWith(LIVE_CANARY)],
      scopes,
      now: 'now',
    });
    expect(first.status.lastAppliedManifest?.[0]?.data).toEqual({ user: 'bob', password: digestOfString(LIVE_CANARY) });
    const second = plan({
      application: application({ manifest: [bare], observerSchema }, { status: first.status }),
      live: [liveWith(LIVE_CANARY)],
      scopes,
      now: 'now',
    });
    expect(second.actions.filter((a) => a.type === 'patch')).toEqual([]);
    expect(JSON.stringify(second)).not.toContain(LIVE_CANARY);
  });
});
