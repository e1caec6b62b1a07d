/**
 * The strategic merge patch engine against apimachinery's own strategicpatch (the code
 * kube-apiserver runs), built from the module cache by tools/k8s-go: seeded chains of generated
 * patches (patch-cases.ts) applied by both, the merged objects (list order included) and the
 * failures (code and message) compared. The seed is printed; KRECONCILE_SMP_SEED replays one.
 * Skipped, saying so, where no Go toolchain is installed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../core/json/json.js';
import { strategicPatched } from '../../../../adapters/memory/strategic/index.js';
import { baseDeployment, seeded, strategicPatchCase } from './patch-cases.js';

const hasGo = spawnSync('go', ['version']).status === 0;
const work = mkdtempSync(join(tmpdir(), 'kreconcile-smp-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Answer = { readonly result?: JsonObject; readonly code?: number; readonly message?: string };

/** One oracle process for every case: a JSON case per line in, a JSON answer per line out. */
const oracle = (
  cases: ReadonlyArray<{ original: JsonObject; patch: JsonObject }>,
  options = { build: true },
): ReadonlyArray<Answer> => {
  const binary = join(work, 'k8s-go');
  if (options.build)
    execFileSync('go', ['build', '-o', binary, '.'], { cwd: join(import.meta.dirname, '../../../../tools/k8s-go') });
  const input = cases.map((c) => JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', ...c })).join('\n');
  const output = execFileSync(binary, ['strategic'], { input: `${input}\n`, encoding: 'utf8', maxBuffer: 256 << 20 });
  return output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Answer);
};

const ours = (original: JsonObject, patch: JsonObject): Answer => {
  const result = strategicPatched('apps/v1', 'Deployment', original, patch);
  return E.isRight(result) ? { result: result.right } : { code: result.left.code, message: result.left.message };
};

describe.skipIf(!hasGo)('strategic merge patch: the engine against apimachinery strategicpatch', () => {
  it('merges seeded patch chains of a Deployment as strategicpatch does', () => {
    const seed = Number(process.env.KRECONCILE_SMP_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`strategic merge oracle seed: ${seed} (replay: KRECONCILE_SMP_SEED=${seed})`);
    const random = seeded(seed);
    const chains = 120;
    const steps = 3;
    // Chains run step by step: each step's original is the oracle's previous result.
    let originals: JsonObject[] = Array.from({ length: chains }, (_, i) => baseDeployment(`web-${i}`));
    let compared = 0;
    let failures = 0;
    for (let step = 0; step < steps; step++) {
      const cases = originals.map((original) => ({ original, patch: strategicPatchCase(random) }));
      const answers = oracle(cases);
      cases.forEach((c, i) => {
        const answer = ours(c.original, c.patch);
        // A patch failing in two places fails with the first Go's map order reaches: ask again for that one.
        const first = answers[i];
        const otherOrder = (tries: number): boolean =>
          tries > 0 && (oracle([c], { build: false })[0]?.message === answer.message || otherOrder(tries - 1));
        const expected =
          first?.code !== undefined && first.code === answer.code && first.message !== answer.message && otherOrder(8)
            ? answer
            : first;
        expect({ patch: c.patch, answer }).toEqual({ patch: c.patch, answer: expected });
        compared++;
        if (expected?.code !== undefined) failures++;
      });
      originals = cases.map((c, i) => answers[i]?.result ?? c.original);
    }
    console.log(`strategic merge oracle: ${compared} patches compared, ${failures} of them failures`);
    expect(compared).toBe(chains * steps);
    // Not vacuous: both merges and refusals were compared.
    expect(failures).toBeGreaterThan(5);
    expect(compared - failures).toBeGreaterThan(chains * steps * 0.7);
  }, 300_000);
});
