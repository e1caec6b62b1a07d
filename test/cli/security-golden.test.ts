/**
 * Golden plans of examples/security: the default tenancy forbids the team-a-db child; with the
 * admin's policy the drifted Secret is patched. In every format no Secret value appears
 * (plaintext or base64 of each canary), only `(sensitive value) sha256:…` digests; both validate
 * against docs/plan-output.schema.json.
 */
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const CANARIES = ['canary-password-42e1', 'canary-changed-77b3', 'canary-api-key-9d07'].flatMap((text) => [
  text,
  Buffer.from(text, 'utf8').toString('base64'),
]);

const CASES = [
  { name: 'forbidden', args: [] as ReadonlyArray<string>, result: 'Stalled' },
  {
    name: 'secret-drifted',
    args: [
      '--policy',
      'examples/security/policy.yaml',
      '--snapshot',
      'examples/security/snapshots/secret-drifted.yaml',
    ],
    result: 'Changes',
  },
] as const;

const validate = new Ajv({ allErrors: true }).compile(
  JSON.parse(readFileSync('docs/plan-output.schema.json', 'utf8')) as object,
);

const planOf = (args: ReadonlyArray<string>, format: string) =>
  runCli(['plan', '-f', 'examples/security/app.yaml', '--now', NOW, '-o', format, ...args]);

describe.each(CASES)('plan examples/security $name', ({ name, args, result }) => {
  it('prints the golden text and JSON plans, the same plan as YAML, and no Secret value in any of them', async () => {
    const text = await planOf(args, 'text');
    const json = await planOf(args, 'json');
    const yaml = await planOf(args, 'yaml');
    for (const output of [text, json, yaml]) {
      // A forbidden child stalls the plan: exit 1, and a summary on stderr (issue 36).
      expect(output.code).toBe(result === 'Stalled' ? 1 : 0);
      expect(output.stderr === '').toBe(result !== 'Stalled');
      for (const canary of CANARIES) expect(output.stdout).not.toContain(canary);
    }
    expectGolden(`test/cli/golden/security/${name}.txt`, text.stdout);
    expectGolden(`test/cli/golden/security/${name}.json`, json.stdout);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
    expect(validate(JSON.parse(json.stdout)), JSON.stringify(validate.errors)).toBe(true);
    expect((JSON.parse(json.stdout) as { applications: Array<{ result: string }> }).applications[0]?.result).toBe(
      result,
    );
  });
});
