/**
 * `validate` and `plan` say before anything is written that an Application cannot be stored
 * (decision 0023): the size, the limit and how to split, in one line; one that fits passes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { largeInstall } from '../support/large-install.js';
import { runCli } from './support/run-cli.js';

const NS = 'rollouts';

/** The Application as a file (JSON is YAML). */
const applicationFile = (name: string, scale: number): string =>
  JSON.stringify({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: NS },
    spec: { manifest: largeInstall(NS, scale) },
  });

const TOO_LARGE =
  /^error: \/virtual\/huge\.yaml:1:\d+: document 1 \(Application rollouts\/huge\): stalled \(TooLarge\): Application rollouts\/huge would be 1\.\d\d MiB stored \(spec 1\.\d\d MiB, status \d+ KiB\), over etcd's limit of 1\.50 MiB \(--max-request-bytes\): split spec\.manifest into several Applications \(for example the CustomResourceDefinitions in one, the rest in another\)$/;

describe('an Application too large to store', () => {
  const files = {
    '/virtual/huge.yaml': applicationFile('huge', 1.45),
    '/virtual/fits.yaml': applicationFile('fits', 1),
  };

  it('validate refuses it in one line: size, limit, how to split', async () => {
    const result = await runCli(['validate', '-f', '/virtual/huge.yaml'], { files });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(TOO_LARGE);
  }, 60_000);

  it('plan refuses it the same way', async () => {
    // The install writes cluster-scoped kinds: the admin's policy allows them (else the plan is Forbidden).
    const policy = join(mkdtempSync(join(tmpdir(), 'kr-policy-')), 'policy.yaml');
    writeFileSync(
      policy,
      `apiVersion: kreconcile.io/v1alpha1\nkind: TenancyPolicy\nclusterKinds:\n  - from: ${NS}\n    kinds: ['*']\n`,
    );
    const result = await runCli(['plan', '-f', '/virtual/huge.yaml', '--policy', policy], { files });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/stalled \(TooLarge\): Application rollouts\/huge would be 1\.\d\d MiB stored/);
  }, 60_000);

  it('an install that fits validates', async () => {
    const result = await runCli(['validate', '-f', '/virtual/fits.yaml'], { files });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 60_000);
});
