/**
 * Golden output of `kreconcile validate` on files that exercise strict validation: unknown fields
 * with "did you mean" suggestions, observed markers (true and null), what a merge patch leaves of
 * null markers, TOSCA versions. `UPDATE_GOLDEN=1` rewrites the .txt files (review the diff).
 */
import { describe, expect, it } from 'vitest';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';

const DIR = 'test/cli/golden/validate';

describe('kreconcile validate: golden output', () => {
  it.each([
    ['typos', 1],
    ['stripped-markers', 1],
    ['markers', 0],
    ['tosca-version', 1],
  ] as const)('%s.yaml', async (name, code) => {
    const result = await runCli(['validate', '-f', `${DIR}/${name}.yaml`]);
    expect(result.code).toBe(code);
    expectGolden(`${DIR}/${name}.txt`, `${result.stdout}${result.stderr}`);
  });
});
