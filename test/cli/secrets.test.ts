/**
 * Secret values never appear in a printed plan (text, JSON, YAML, status included) or a snapshot
 * unless asked for: the canary's plaintext and base64 are searched for in every output; digests
 * still show that a value changed, and a plan from a redacted snapshot sees the same as from values.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Resource } from '../../core/internal.js';
import { fakeCluster } from './support/fake-cluster.js';
import { runCli } from './support/run-cli.js';

const CANARY = 'hunter2-canary-5b1e';
const OTHER = 'old-canary-value-91c2';
const STRING_CANARY = 'string-canary-77d0';
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const digest = (text: string): string => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
const FORBIDDEN_TEXTS = [CANARY, b64(CANARY), OTHER, b64(OTHER), STRING_CANARY, b64(STRING_CANARY)];

/** Application shop/web with the given `spec` body (YAML, indented two spaces). */
const applicationYaml = (spec: string): string => `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata: { name: web, namespace: shop }
spec:
${spec}`;

const APP = applicationYaml(`  manifest:
    - apiVersion: v1
      kind: Secret
      metadata: { name: db }
      data: { password: ${b64(CANARY)} }
      stringData: { token: ${STRING_CANARY} }
`);

const liveSecret = (password: string, token: string): Resource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  type: 'Opaque',
  metadata: {
    name: 'db',
    namespace: 'shop',
    uid: 'u1',
    resourceVersion: '7',
    labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
    annotations: { 'kreconcile.io/owner': 'shop/web' },
  },
  data: { password: b64(password), token: b64(token) },
});

const snapshotOf = (objects: ReadonlyArray<Resource>): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });

const expectNoSecretIn = (output: string): void => {
  for (const text of FORBIDDEN_TEXTS) expect(output, `output holds ${text}`).not.toContain(text);
};

const plan = (format: string, snapshot?: string) =>
  runCli(
    [
      'plan',
      '-f',
      'app.yaml',
      '--now',
      '2026-03-02T12:00:00Z',
      '-o',
      format,
      ...(snapshot === undefined ? [] : ['--snapshot', 'live.json']),
    ],
    { files: { 'app.yaml': APP, ...(snapshot === undefined ? {} : { 'live.json': snapshot }) } },
  );

describe('Secret values in kreconcile plan', () => {
  it.each(['text', 'json', 'yaml'])(
    'are never printed in %s: a create shows digests, a drifted value shows the change as digests',
    async (format) => {
      const created = await plan(format);
      expect(created.code).toBe(0);
      expectNoSecretIn(created.stdout + created.stderr);
      const drifted = await plan(format, snapshotOf([liveSecret(OTHER, STRING_CANARY)]));
      expectNoSecretIn(drifted.stdout + drifted.stderr);
      if (format !== 'text') expect(created.stdout).toContain(`(sensitive value) ${digest(CANARY)}`);
      expect(drifted.stdout).toContain(`(sensitive value) ${digest(CANARY)}`);
      expect(drifted.stdout).toContain(`(sensitive value) ${digest(OTHER)}`);
    },
  );

  it('stringData is planned as the data the server stores: in sync when the live data holds it', async () => {
    const inSync = await plan('json', snapshotOf([liveSecret(CANARY, STRING_CANARY)]));
    const document = JSON.parse(inSync.stdout) as {
      applications: Array<{
        result: string;
        status: { lastAppliedManifest: unknown[]; lastObservedManifest: unknown[] };
      }>;
    };
    expect(document.applications[0]?.result).toBe('NoChanges');
    expect(document.applications[0]?.status.lastObservedManifest).toContainEqual(
      expect.objectContaining({ data: { password: digest(CANARY), token: digest(STRING_CANARY) } }),
    );
  });

  it('a plan against a redacted snapshot equals the plan against the values', async () => {
    const objects = [liveSecret(OTHER, STRING_CANARY)];
    const cluster = fakeCluster(objects);
    const recorded = await runCli(['snapshot', '-f', 'app.yaml', '-o', 'json'], {
      files: { 'app.yaml': APP },
      connect: async () => cluster,
    });
    expect(recorded.code).toBe(0);
    expectNoSecretIn(recorded.stdout);
    const fromDigests = await plan('json', recorded.stdout);
    const fromValues = await plan('json', snapshotOf(objects));
    const actionsOf = (stdout: string) =>
      (JSON.parse(stdout) as { applications: Array<{ actions: unknown[] }> }).applications[0]?.actions;
    expect(actionsOf(fromDigests.stdout)).toEqual(actionsOf(fromValues.stdout));
    expect(JSON.stringify(actionsOf(fromDigests.stdout))).toContain(digest(CANARY));
  });

  it('kreconcile snapshot records Secret values only with --include-secret-values', async () => {
    const cluster = fakeCluster([liveSecret(OTHER, STRING_CANARY)]);
    const redacted = parse(
      (await runCli(['snapshot', '-f', 'app.yaml'], { files: { 'app.yaml': APP }, connect: async () => cluster }))
        .stdout,
    ) as { items: Resource[] };
    expect(redacted.items.find((o) => o.kind === 'Secret')?.data).toEqual({
      password: digest(OTHER),
      token: digest(STRING_CANARY),
    });
    const full = parse(
      (
        await runCli(['snapshot', '-f', 'app.yaml', '--include-secret-values'], {
          files: { 'app.yaml': APP },
          connect: async () => cluster,
        })
      ).stdout,
    ) as { items: Resource[] };
    expect(full.items.find((o) => o.kind === 'Secret')?.data).toEqual({
      password: b64(OTHER),
      token: b64(STRING_CANARY),
    });
  });

  it("a Secret's kubectl last-applied annotation never shows its plaintext: plan (every format, status included) and snapshot (issue 19)", async () => {
    const lastApplied = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', stringData: { password: CANARY } });
    const kubectlApplied: Resource = {
      ...liveSecret(OTHER, STRING_CANARY),
      metadata: {
        ...liveSecret(OTHER, STRING_CANARY).metadata,
        annotations: {
          'kreconcile.io/owner': 'shop/web',
          'kubectl.kubernetes.io/last-applied-configuration': lastApplied,
        },
      },
    };
    // The tenant observes the Secret's annotations: the status would carry them.
    const app = applicationYaml(`  manifest:
    - apiVersion: v1
      kind: Secret
      metadata: { name: db }
  observerSchema:
    - apiVersion: v1
      kind: Secret
      metadata: { name: db, annotations: null }
`);
    for (const format of ['text', 'json', 'yaml']) {
      const planned = await runCli(
        ['plan', '-f', 'app.yaml', '--now', '2026-03-02T12:00:00Z', '-o', format, '--snapshot', 'live.json'],
        { files: { 'app.yaml': app, 'live.json': snapshotOf([kubectlApplied]) } },
      );
      expect(planned.code).toBe(0);
      expectNoSecretIn(planned.stdout + planned.stderr);
    }
    const cluster = fakeCluster([kubectlApplied]);
    const recorded = await runCli(['snapshot', '-f', 'app.yaml', '-o', 'json'], {
      files: { 'app.yaml': app },
      connect: async () => cluster,
    });
    expect(recorded.code).toBe(0);
    expectNoSecretIn(recorded.stdout);
    expect(recorded.stdout).toContain(digest(lastApplied));
  });

  it('a field the observer schema marks sensitive is hidden in every format too', async () => {
    const app = applicationYaml(`  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata: { name: settings }
      data: { user: bob, password: ${CANARY} }
  observerSchema:
    - apiVersion: v1
      kind: ConfigMap
      metadata: { name: settings }
      data: null
      kreconcile.io/sensitive: [/data/password]
`);
    for (const format of ['text', 'json', 'yaml']) {
      const result = await runCli(['plan', '-f', 'app.yaml', '--now', '2026-03-02T12:00:00Z', '-o', format], {
        files: { 'app.yaml': app },
      });
      expect(result.code).toBe(0);
      expectNoSecretIn(result.stdout + result.stderr);
      if (format !== 'text') expect(result.stdout).toContain(`(sensitive value) ${digest(CANARY)}`);
    }
  });
});
