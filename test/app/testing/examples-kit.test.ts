/**
 * The controllers of examples/kit, run unchanged under checkController, each but the last with a
 * planted bug the kit finds and names:
 * - debounce-controller.mjs: its one global debounce flag drops the events of other objects, so a
 *   world with two Greetings fails, shrunk to two, naming the Greeting left without its ConfigMap;
 * - framework-controller.mjs: a framework base class reading the default kubeconfig, unawaited
 *   writes: a transient 500 crashes the process;
 * - secret-copier.mjs: a transient read error skips its "never override foreign Secrets" check;
 * - patching-controller.mjs: writes only with client-node's `patch` (server-side apply for its
 *   ConfigMaps, the default strategic merge patch for its Deployments' env lists) and converges
 *   while another actor tampers with both.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkController, ConvergenceFailure, type FaultProfile } from '../../../app/testing/index.js';
import type { ConvergenceContext } from '../../../app/testing/index.js';
import { getIn, isJsonArray, isJsonObject } from '../../../core/json/json.js';
import { converged, perturb, setup, worldArbitrary, type World } from './greeting-world.js';
import { flakySecretReads, secretSetup, secretsConverged, secretWorld } from './secret-world.js';

const example = (file: string): string => fileURLToPath(new URL(`../../../examples/kit/${file}`, import.meta.url));
const script = example('debounce-controller.mjs');
const patching = example('patching-controller.mjs');

/** The greeter container's env of `<name>-greeter` as `NAME=value`, its image first; undefined when absent. */
const greeter = (context: ConvergenceContext<World>, name: string): ReadonlyArray<string> | undefined => {
  const deployment = context.cluster
    .objects()
    .find((o) => o.kind === 'Deployment' && o.metadata.name === `${name}-greeter`);
  const containers =
    deployment === undefined ? undefined : getIn(deployment, ['spec', 'template', 'spec', 'containers']);
  const container = isJsonArray(containers)
    ? containers.find((c) => isJsonObject(c) && c.name === 'greeter')
    : undefined;
  if (!isJsonObject(container)) return undefined;
  const env = isJsonArray(container.env) ? container.env.filter(isJsonObject) : [];
  return [String(container.image), ...env.map((e) => `${String(e.name)}=${String(e.value)}`)];
};

/**
 * The ConfigMaps as in the other examples (applied by the controller), and each Deployment's env merged, never
 * replaced.
 */
const patchedConverged = async (context: ConvergenceContext<World>): Promise<true | string> => {
  const configMaps = await converged(context);
  if (configMaps !== true) return configMaps;
  const applied = context.cluster
    .objects()
    .filter((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-greeting'))
    .filter((o) => {
      const fields = o.metadata.managedFields;
      const entries = isJsonArray(fields) ? fields.filter(isJsonObject) : [];
      return !entries.some((f) => f.manager === 'greeting-controller' && f.operation === 'Apply');
    });
  if (applied.length > 0)
    return `${applied.map((o) => o.metadata.name).join(', ')}: no Apply entry of greeting-controller in managedFields`;
  const wrong = context.world.flatMap(({ name }) => {
    const greeting = context.cluster.objects().find((o) => o.kind === 'Greeting' && o.metadata.name === name);
    const message = greeting === undefined ? undefined : getIn(greeting, ['spec', 'message']);
    const wanted = ['busybox:1.36', `MESSAGE=${String(message)}`, 'STATIC=kept'];
    const found = greeter(context, name);
    return JSON.stringify(found) === JSON.stringify(wanted)
      ? []
      : [`${name}-greeter: wanted ${wanted.join(' ')}, found ${found?.join(' ') ?? 'none'}`];
  });
  return wrong.length === 0 ? true : wrong.join('; ');
};

/** The other actor of the Greeting examples, and a strategic patch of its own on a Deployment's env list. */
const perturbDeployments = async (context: ConvergenceContext<World>, step: number): Promise<void> => {
  const target = context.world[step % context.world.length];
  if (step % 3 !== 2 || target === undefined) return perturb(context, step);
  const body = {
    spec: { template: { spec: { containers: [{ name: 'greeter', env: [{ name: 'MESSAGE', value: 'tampered' }] }] } } },
  };
  await context.api
    .patch(
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: `${target.name}-greeter` },
      { type: 'strategic', body },
    )
    .catch(() => undefined); // not created yet
};

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

  it('a controller using client-node patch (strategic merge, and server-side apply) converges under tampering', async () => {
    await checkController({
      world: worldArbitrary,
      setup,
      converged: patchedConverged,
      perturb: perturbDeployments,
      controller: { command: [process.execPath, patching] },
      numRuns: 3,
      seed: 11,
      faultyMs: 1_200,
      perturbEveryMs: 200,
      settleMs: 1_000,
    });
  }, 120_000);

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
        controller: { module: example('secret-copier.mjs'), process },
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
      controller: { module: example('secret-copier.mjs'), process },
      numRuns: 5,
      seed: 3,
    });
  }, 180_000);
});
