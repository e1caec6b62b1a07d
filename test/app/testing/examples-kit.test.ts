/**
 * The controllers of examples/kit, each run unchanged under checkController, each with a planted
 * bug the kit finds and names: debounce-controller.mjs (one global debounce flag drops other
 * objects' events), framework-controller.mjs (a framework base class reading the default
 * kubeconfig, unawaited writes: a transient 500 crashes the process), secret-copier.mjs (a
 * transient read error skips its "never override foreign Secrets" check).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkController, ConvergenceFailure, type FaultProfile } from '../../../app/testing/index.js';
import { converged, setup, worldArbitrary } from './greeting-world.js';
import { flakySecretReads, secretSetup, secretsConverged, secretWorld } from './secret-world.js';

const example = (file: string): string => fileURLToPath(new URL(`../../../examples/kit/${file}`, import.meta.url));
const script = example('debounce-controller.mjs');

/** What a check rejects with, as text ('' when it passed). */
const failureOf = (check: Promise<void>): Promise<string> =>
  check.then(
    () => '',
    (error: unknown) =>
      error instanceof ConvergenceFailure ? error.message : `not a ConvergenceFailure: ${String(error)}`,
  );

/** A transient 500 on writes, as an overloaded etcd answers. */
const flakyWrites: FaultProfile = {
  errors: [{ rate: 0.3, tag: 'Internal', code: 500, verbs: ['patch'], message: 'etcdserver: request timed out' }],
};

describe('examples/kit: the kit finds the planted bug of a controller run as it is', () => {
  it('a global debounce flag: the second Greeting never gets its ConfigMap', async () => {
    const failure = await checkController({
      world: worldArbitrary,
      setup,
      converged,
      controller: { command: [process.execPath, script] },
      numRuns: 4,
      seed: 7,
      faultyMs: 0,
      settleMs: 1_000,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConvergenceFailure);
    const message = failure instanceof Error ? failure.message : '';
    // the shrunk world has two Greetings; one of them was never reconciled
    expect(message).toMatch(/counterexample: world = \[\{.*\},\{.*\}\]/);
    expect(message).toMatch(/got: \w+: wanted "\w+", found null/);
    expect(message).toContain('the controller process never exited');
  }, 180_000);

  it('a framework controller with unawaited writes: a transient 500 crashes it, the report names the exit and the 500', async () => {
    const message = await failureOf(
      checkController({
        world: worldArbitrary,
        setup,
        converged,
        controller: { command: [process.execPath, example('framework-controller.mjs')] },
        faults: flakyWrites,
        numRuns: 3,
        seed: 5,
        settleMs: 1_000,
      }),
    );
    expect(message).toMatch(/got: the controller exited with code 1 at/);
    expect(message).toMatch(/Internal on patch/);
    expect(message).toMatch(/HTTP-Code: 500|etcdserver: request timed out/);
    expect(message).toMatch(/restarted \d+ time/);
  }, 180_000);

  it('a Secret copier whose read error skips its ownership check: a foreign Secret is overwritten', async () => {
    const message = await failureOf(
      checkController({
        world: secretWorld,
        setup: secretSetup,
        converged: secretsConverged,
        controller: { module: example('secret-copier.mjs'), environment: process.env },
        faults: flakySecretReads,
        numRuns: 20,
        seed: 3,
      }),
    );
    expect(message).toMatch(/got: team-[ab]\/\w+: a foreign Secret was overwritten/);
    expect(message).toMatch(/faults injected by the server: .*Internal on get/);
    // the shrunk world: one source copied into one namespace where a foreign Secret of that name lives
    expect(message).toMatch(
      /counterexample: world = \{"sources":\[\{"name":"(\w+)","targets":\[[^\]]*"(team-[ab])"[^\]]*\],"version":\d\}\],"foreign":\[\{"namespace":"\2","name":"\1"\}\]\}/,
    );
    expect(message).not.toMatch(/generated password|owned by another team|b3duZWQ|Z2VuZXJhdGVk/); // no Secret value, plain or base64
  }, 180_000);

  it('the Secret copier keeps its promise when reads do not fail (the fault is the cause)', async () => {
    await checkController({
      world: secretWorld,
      setup: secretSetup,
      converged: secretsConverged,
      controller: { module: example('secret-copier.mjs'), environment: process.env },
      numRuns: 5,
      seed: 3,
    });
  }, 180_000);
});
